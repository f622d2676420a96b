// The tools as MCP lists them: names, descriptions the model reads, annotations, and the JSON
// Schemas generated from protocol/ (docs/tools.md#overview). Which of them an agent sees is
// toolTiers.ts's business.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import {
  ActivateAnswer,
  ActivateArgs,
  AskAnswer,
  CONNECTION_TOOL_ANSWERS,
  CONNECTION_TOOL_ARGS,
  CONNECTION_TOOL_NAMES,
  CtrlAnswer,
  type ConnectionToolName,
  TALK_TOOL_NAMES,
  type TalkToolName,
  SCREEN_TOOL_ANSWERS,
  SCREEN_TOOL_ARGS,
  SCREEN_TOOL_NAMES,
  TOOL_ANSWERS,
  TOOL_NAMES,
  type ScreenToolName,
  type ToolName,
} from '../../../protocol/index.js';
import { TALK_TOOL_ARGS, TOOL_ARGS } from '../tools/toolRunner.js';
import { toolJsonSchema } from './jsonSchema.js';

/** The activation tool of progressive exposure (docs/tools.md#progressive-tools). */
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

/** computer_use_activate as MCP lists it (progressive exposure). */
export const activateTool: () => Tool = (() => {
  let tool: Tool | undefined;
  return () =>
    (tool ??= {
      name: ACTIVATE_TOOL,
      description:
        `Add desktop tools to your tools/list (it is sent again: tools/list_changed). Tier "accessibility" (default): ${TOOL_NAMES.join(', ')}. ` +
        `Tier "screen", when the person offers it: screenshots, pointer and keys (${SCREEN_TOOL_NAMES.length} tools) for what the accessibility tree cannot see. ` +
        `Tier "connections": other desktops (${CONNECTION_TOOL_NAMES.join(', ')}).`,
      inputSchema: toolJsonSchema(ActivateArgs, 'input'),
      outputSchema: toolJsonSchema(ActivateAnswer, 'output'),
      annotations: { title: 'Activate desktop tools', readOnlyHint: true, openWorldHint: false },
    });
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

/** The tools that talk to the person (docs/tools.md#computer_ask): every agent lists them, idle or not. */
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

const CONNECTION_DESCRIPTIONS: Record<ConnectionToolName, string> = {
  list_connections:
    'The desktops this supervisor reaches (local, ssh, OSWorld VMs): name, kind, host or URL, enabled, status with the last error, and which one is active for you.',
  test_connection:
    'Reach a connection and ask its helper who it is (platform, session type, capabilities); on failure a typed error says what to fix. Read-only.',
  activate_connection:
    'Make your desktop tools act on this connection from now on. Ids (windows, targets, observations, screenshots) from another connection answer wrong_connection there: read again after switching.',
  use_local: 'Make your desktop tools act on the local desktop again (the one the supervisor runs on).',
  add_connection:
    'Ask the person to add a connection (kind "ssh" with host, user?, port?… or "osworld_http" with url): a card shows exactly the entry; never passwords, keys or an ssh_config file (only the person names one).',
  remote_exec:
    'Run a shell command on your active connection (never local), after the person approves the exact command. Answers exit_code, bounded stdout/stderr with truncated flags, duration_ms; ok only on exit 0.',
};

const CONNECTION_ANNOTATIONS: Record<ConnectionToolName, Tool['annotations']> = {
  list_connections: readOnly('List connections'),
  test_connection: readOnly('Test a connection'),
  activate_connection: { title: 'Activate a connection', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  use_local: { title: 'Use the local desktop', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  add_connection: { title: 'Add a connection (approval)', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  remote_exec: { title: 'Run a command remotely (approval)', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
};

/**
 * MCP lists an input schema as one object: add_connection's kinds (a union) are listed as one object
 * with every kind's fields and `name`, `kind` required; the runner still validates the exact union.
 */
function oneObject(schema: Tool['inputSchema']): Tool['inputSchema'] {
  const variants = ((schema as { anyOf?: { properties?: Record<string, object> }[] }).anyOf ?? []).map((v) => v.properties ?? {});
  const properties: Record<string, object> = {};
  for (const v of variants)
    for (const [k, p] of Object.entries(v))
      properties[k] =
        k === 'kind'
          ? { type: 'string', enum: ['ssh', 'osworld_http'], description: 'ssh or osworld_http' }
          : { ...p, description: ADD_FIELDS[k] ?? (p as { description?: string }).description ?? k };
  return { type: 'object', properties, required: ['name', 'kind'], additionalProperties: false };
}

/** What each field of add_connection is, as the agent reads it. */
const ADD_FIELDS: Record<string, string> = {
  name: 'Its name (a-z, 0-9, _ and -; not "local")',
  host: 'ssh: an ssh_config alias or host name',
  user: 'ssh: the remote user',
  port: 'ssh: the port',
  display: 'ssh: the remote X display, e.g. ":0" (found in the remote session when absent)',
  bus: 'ssh: the remote session bus address (found in the remote session when absent)',
  node: 'ssh: the remote node executable (absolute path; default node on the PATH)',
  url: 'osworld_http: the in-VM server URL, e.g. http://192.168.122.10:5000',
  timeout_ms: 'osworld_http: per-request timeout in ms (1000–300000)',
};

/** The connections tier's tools as MCP lists them (docs/tools.md#connections-tier). */
export const connectionToolList: () => Tool[] = (() => {
  let tools: Tool[] | undefined;
  return () =>
    (tools ??= CONNECTION_TOOL_NAMES.map((name) => ({
      name,
      description: CONNECTION_DESCRIPTIONS[name],
      inputSchema:
        name === 'add_connection' ? oneObject(toolJsonSchema(CONNECTION_TOOL_ARGS[name], 'input')) : toolJsonSchema(CONNECTION_TOOL_ARGS[name], 'input'),
      outputSchema: toolJsonSchema(CONNECTION_TOOL_ANSWERS[name], 'output'),
      annotations: CONNECTION_ANNOTATIONS[name],
    })));
})();
