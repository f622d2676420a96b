import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  ActivateAnswer,
  AskAnswer,
  CtrlAnswer,
  MAX_TOOL_NAME,
  SCREEN_TOOL_ANSWERS,
  SCREEN_TOOL_ARGS,
  SCREEN_TOOL_NAMES,
  TOOL_ANSWERS,
  TALK_TOOL_NAMES,
  TOOL_NAMES,
  errorInfo,
  type ScreenToolName,
  type TalkToolName,
  type ToolName,
} from '../../../protocol/index.js';
import { phase, profileTool } from '../callProfile.js';
import { agentName, type AgentSession } from '../tools/agentSession.js';
import { TALK_TOOL_ARGS, TOOL_ARGS, isTalkTool, type ToolResult, type ToolRunner } from '../tools/toolRunner.js';
import { toolJsonSchema } from './jsonSchema.js';

/** The activation tool of progressive mode. */
export const ACTIVATE_TOOL = 'computer_use_activate';

const DESCRIPTIONS: Record<ToolName, string> = {
  window_list: 'List visible top-level windows (front to back) with their ids, titles, apps and pids. Start here to pick a window.',
  window_read:
    'Read one window (default: the foreground window) as a bounded accessibility tree. Each line is one element: role "name" =value #automation_id [actions] {states} ~target. ' +
    'Repeat the same query with since=<observation> to get only what changed. Budgets (max_nodes, max_depth, …) cut the answer and every cut is named. Password values are never shown.',
  element_find:
    'Find elements of one window by selector (automation_id exact; role, name, name_contains, value_contains case-insensitive; all fields must match; nth picks one). ' +
    'Answers found, not found after searching the whole window, or could not decide (with the reason). Matches carry targets when window is given.',
  element_act:
    'Act on one element through its accessibility pattern: invoke, set_value (text), toggle, expand, collapse, select, scroll_into_view, focus. Give a target from window_read/element_find, or a selector. ' +
    'Changing actions wait for a person to approve; if that takes long the answer is outcome "pending" with a receipt_id for action_wait. The receipt says what was called and how the element looks afterwards; whether your goal was met is yours to judge.',
  action_wait: 'Keep waiting for a pending element_act (by receipt_id) and get its final receipt.',
};

const INPUT_NOTE = ' Supervised: waits for a person like element_act (answer "pending" → action_wait).';
const POINT_NOTE = ' x, y are image pixels of your latest screenshot (or screenshot: "S…"; raw: true for physical pixels).';
const SCREEN_DESCRIPTIONS: Record<ScreenToolName, string> = {
  capabilities: 'What the screen tier can do here: session (x11, wayland, windows), capture and input paths and their named degradations, monitors.',
  screenshot:
    'Capture the screen, or one window (window id from window_list), downscaled to fit max_width × max_height. Answers the image and the exact transform: physical = origin + image × scale. The supervisor and excluded apps are masked.',
  click: `Click at x, y (button, count 1–3).${POINT_NOTE}${INPUT_NOTE}`,
  double_click: `Double-click at x, y.${POINT_NOTE}${INPUT_NOTE}`,
  triple_click: `Triple-click at x, y.${POINT_NOTE}${INPUT_NOTE}`,
  move: `Move the pointer to x, y.${POINT_NOTE}${INPUT_NOTE}`,
  left_click_drag: `Press at x, y, drag to to_x, to_y, release.${POINT_NOTE}${INPUT_NOTE}`,
  mouse_down: `Press a button where the pointer is.${INPUT_NOTE}`,
  mouse_up: `Release a button where the pointer is.${INPUT_NOTE}`,
  scroll: `Turn the wheel amount detents (1:1 notches) at x, y (default: where the pointer is).${POINT_NOTE}${INPUT_NOTE}`,
  type_text: `Type text exactly, any Unicode, into the focused window.${INPUT_NOTE}`,
  key: `Press keys: "Return", "ctrl+s", "ctrl+a ctrl+c" (docs/keys.md: enter, esc, cmd… are aliases).${INPUT_NOTE}`,
  hold_key: `Hold keys for duration_ms (≤ 10000).${INPUT_NOTE}`,
  cursor_position: 'Where the pointer is: physical pixels, and image pixels of your latest screenshot when it shows the pointer.',
  wait: 'Wait ms milliseconds (at most 10000) before looking again, e.g. while an application redraws.',
};

const readOnly = (title: string): Tool['annotations'] => ({ title, readOnlyHint: true, openWorldHint: false });
const supervisedInput = (title: string): Tool['annotations'] => ({
  title,
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
});
const SCREEN_ANNOTATIONS: Record<ScreenToolName, Tool['annotations']> = {
  capabilities: readOnly('Screen capabilities'),
  screenshot: readOnly('Screenshot'),
  click: supervisedInput('Click (supervised)'),
  double_click: supervisedInput('Double-click (supervised)'),
  triple_click: supervisedInput('Triple-click (supervised)'),
  move: supervisedInput('Move the pointer (supervised)'),
  left_click_drag: supervisedInput('Drag (supervised)'),
  mouse_down: supervisedInput('Press a button (supervised)'),
  mouse_up: supervisedInput('Release a button (supervised)'),
  scroll: supervisedInput('Scroll (supervised)'),
  type_text: supervisedInput('Type text (supervised)'),
  key: supervisedInput('Press keys (supervised)'),
  hold_key: supervisedInput('Hold keys (supervised)'),
  cursor_position: readOnly('Pointer position'),
  wait: readOnly('Wait'),
};

const ANNOTATIONS: Record<ToolName, Tool['annotations']> = {
  window_list: { title: 'List windows', readOnlyHint: true, openWorldHint: false },
  window_read: { title: 'Read a window', readOnlyHint: true, openWorldHint: false },
  element_find: { title: 'Find elements', readOnlyHint: true, openWorldHint: false },
  element_act: { title: 'Act on an element (supervised)', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  action_wait: { title: 'Wait for an approval', readOnlyHint: true, openWorldHint: false },
};

/**
 * The five tools as MCP lists them: arguments (inputSchema) and answers (outputSchema, the shape of
 * every successful answer's structuredContent) generated from the protocol's zod schemas.
 * Built once: the schemas never change while the process runs.
 */
export const toolList: () => Tool[] = (() => {
  let tools: Tool[] | undefined;
  return () =>
    (tools ??= TOOL_NAMES.map((name) => ({
      name,
      description: DESCRIPTIONS[name],
      inputSchema: toolJsonSchema(TOOL_ARGS[name], 'input'),
      outputSchema: toolJsonSchema(TOOL_ANSWERS[name], 'output'),
      annotations: ANNOTATIONS[name],
    })));
})();

/** The screen tier's tools as MCP lists them (when the person offers the tier). */
export const screenToolList: () => Tool[] = (() => {
  let tools: Tool[] | undefined;
  return () =>
    (tools ??= SCREEN_TOOL_NAMES.map((name) => ({
      name,
      description: SCREEN_DESCRIPTIONS[name],
      inputSchema: toolJsonSchema(SCREEN_TOOL_ARGS[name], 'input'),
      outputSchema: toolJsonSchema(SCREEN_TOOL_ANSWERS[name], 'output'),
      annotations: SCREEN_ANNOTATIONS[name],
    })));
})();

const TALK_DESCRIPTIONS: Record<TalkToolName, string> = {
  computer_ask:
    'Ask the supervising person a question (which file, which account, is this right?), with choices or for a written answer. A person answers, picks a choice or declines; rules never answer. ' +
    'Answers {outcome: "answered", answer, choice?} or "declined"; if nobody answers within the approval wait, "pending" with a receipt_id for action_wait.',
  computer_ctrl:
    'Without arguments: what governs you now (brakes, whether a person is watching, your pending and held items, your connection and tiers, the rules that name you). ' +
    'With handoff {reason}: hand the desktop to the person (a login, a CAPTCHA, a judgement call); every input on this connection waits until they give control back, then this answers {resumed: true, note?} (or "pending" for action_wait).',
};

const TALK_ANNOTATIONS: Record<TalkToolName, Tool['annotations']> = {
  computer_ask: { title: 'Ask the person', readOnlyHint: true, openWorldHint: false },
  computer_ctrl: { title: 'Control state and handoff', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

const TALK_ANSWERS: Record<TalkToolName, z.ZodType> = { computer_ask: AskAnswer, computer_ctrl: CtrlAnswer };

/** The tools that talk to the person: listed whether or not a tier is active (docs/tools.md#computer_ask). */
export const talkToolList: () => Tool[] = (() => {
  let tools: Tool[] | undefined;
  return () =>
    (tools ??= TALK_TOOL_NAMES.map((name) => ({
      name,
      description: TALK_DESCRIPTIONS[name],
      inputSchema: toolJsonSchema(TALK_TOOL_ARGS[name], 'input'),
      outputSchema: toolJsonSchema(TALK_ANSWERS[name], 'output'),
      annotations: TALK_ANNOTATIONS[name],
    })));
})();

/** The tools an agent sees: the accessibility tools, and the screen tier when it is on. */
export function listedTools(screen: boolean): Tool[] {
  return screen ? [...toolList(), ...screenToolList()] : toolList();
}

/** computer_use_activate as MCP lists it (progressive tools). */
export const activateTool: () => Tool = (() => {
  let tool: Tool | undefined;
  return () =>
    (tool ??= {
      name: ACTIVATE_TOOL,
      description:
        `Activate the desktop tools for this agent: tier "accessibility" (${TOOL_NAMES.join(', ')}; the default) and, when the supervisor offers it, ` +
        `"screen" (screenshots, pointer and keyboard: ${SCREEN_TOOL_NAMES.length} tools, for what the accessibility tree cannot see).`,
      inputSchema: {
        type: 'object',
        properties: { tiers: { type: 'array', items: { enum: ['accessibility', 'screen'] }, description: 'Tiers to activate; default ["accessibility"].' } },
        additionalProperties: false,
      },
      outputSchema: toolJsonSchema(ActivateAnswer, 'output'),
      annotations: { readOnlyHint: true },
    });
})();

/** computer_use_activate's arguments. */
const Activate = z.strictObject({
  tiers: z
    .array(z.enum(['accessibility', 'screen']))
    .max(2)
    .optional(),
});

/**
 * tools/call as it arrives, before we judge it: the SDK's own schema would answer a wrong-typed
 * `arguments` with −32603 and a raw validation dump before our handler ran; we validate it
 * ourselves, journal it, and answer −32602 with an `invalid_argument` that says what is wrong.
 */
const RawCallTool = z.object({ method: z.literal('tools/call'), params: z.unknown() });
const CallParams = z
  .object({
    name: z.string().max(MAX_TOOL_NAME),
    arguments: z.record(z.string(), z.unknown()).optional(),
    _meta: z
      .object({ progressToken: z.union([z.string(), z.number()]).optional() })
      .loose()
      .optional(),
  })
  .loose();

/**
 * A ToolRunner result as MCP answers it. The compact text stays the content the model reads; a
 * successful answer also carries the full structured answer (what `output: "json"` gives) as
 * structuredContent, matching the tool's outputSchema. An error (`isError`) carries text only:
 * SDK clients (1.32) validate any structuredContent against the outputSchema even on errors, so an
 * `{error}` object there would turn every typed error into a client-side validation failure; the
 * structured error is the text of `output: "json"`.
 */
export function toolAnswer(result: ToolResult): CallToolResult {
  if (result.isError) return { isError: true, content: [{ type: 'text', text: result.text }] };
  const images = (result.images ?? []).map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType }));
  return { content: [...images, { type: 'text', text: result.text }], structuredContent: result.structured };
}

/** A JSON-RPC error the SDK passes through as it is (code, message, data). */
function rpcError(code: number, message: string, data: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/** Counts what the server handed its transport, so an emergency stop can wait until it was written. */
export function trackSends(transport: Transport): { drain(): Promise<void> } {
  const inFlight = new Set<Promise<void>>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const p = send(message, options).finally(() => inFlight.delete(p));
    inFlight.add(p);
    return p;
  };
  return { drain: () => Promise.allSettled([...inFlight]).then(() => undefined) };
}

/** Options of one agent's MCP server. */
export interface McpSessionOptions {
  runner: ToolRunner;
  session: AgentSession;
  version: string;
  onChange: () => void;
}

/**
 * One agent's MCP server: every call goes through the ToolRunner (our own validation, typed
 * errors, journal), progress notifications while an action waits, and progressive tools.
 */
export function createMcpServer(options: McpSessionOptions): Server {
  const { runner, session } = options;
  const server = new Server(
    { name: 'overseer', version: options.version },
    {
      capabilities: { tools: { listChanged: true } },
      instructions:
        'Overseer: read and operate desktop applications through their accessibility tree. Reads run at once; actions that change an application wait for a person to approve them.',
    },
  );
  server.oninitialized = () => {
    session.client = agentName(server.getClientVersion()?.name, session.client);
    options.onChange();
  };
  server.setRequestHandler(ListToolsRequestSchema, () => {
    if (!session.activated) return { tools: [activateTool(), ...talkToolList()] };
    return { tools: [...listedTools(runner.screenTools && session.screenTier), ...talkToolList()] };
  });
  // Registered at the protocol level: see RawCallTool.
  const callTool = async (request: z.infer<typeof RawCallTool>, extra: Parameters<Parameters<Server['setRequestHandler']>[1]>[1]): Promise<CallToolResult> => {
    const parsed = CallParams.safeParse(request.params);
    if (!parsed.success) {
      const raw = request.params as { name?: unknown; arguments?: unknown } | undefined;
      const name = typeof raw?.name === 'string' ? raw.name.slice(0, MAX_TOOL_NAME) : '(no tool name)';
      const issues = parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
      const where = issues[0]?.path ?? 'params';
      const detail =
        where === 'arguments'
          ? "tools/call arguments must be a JSON object of the tool's fields"
          : `tools/call params are malformed at ${where}: give name (a string) and arguments (an object)`;
      const info = errorInfo('invalid_argument', detail, { issues });
      // Journaled like every call, then answered as the JSON-RPC error it is.
      await runner.refuse(session, name, raw?.arguments, info);
      throw rpcError(ErrorCode.InvalidParams, `invalid_argument: ${detail}`, { code: info.code, issues });
    }
    const { name, arguments: args } = parsed.data;
    if (name === ACTIVATE_TOOL) {
      const tiers = Activate.safeParse(args ?? {});
      if (!tiers.success)
        return { isError: true, content: [{ type: 'text', text: 'error invalid_argument: tiers is a list of "accessibility" and "screen"' }] };
      session.activated = true;
      if (tiers.data.tiers?.includes('screen') === true) session.screenTier = true;
      options.onChange();
      void server.sendToolListChanged().catch(() => {});
      const names = listedTools(runner.screenTools && session.screenTier).map((t) => t.name);
      const answer: ActivateAnswer = { activated: names };
      return { content: [{ type: 'text', text: `activated: ${names.join(', ')}` }], structuredContent: answer };
    }
    if (!session.activated && !isTalkTool(name))
      return { isError: true, content: [{ type: 'text', text: `error invalid_argument: call ${ACTIVATE_TOOL} first` }] };
    const token = parsed.data._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (done: number, total: number | undefined, message: string): void => {
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), message },
              })
              .catch(() => {});
          };
    profileTool(name);
    const handled = phase('handler');
    const result = await runner.run(session, name, args, extra.signal, progress);
    options.onChange();
    const answer = toolAnswer(result);
    handled();
    return answer;
  };
  Protocol.prototype.setRequestHandler.call(server, RawCallTool, callTool as never);
  return server;
}
