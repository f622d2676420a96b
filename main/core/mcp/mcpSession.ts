import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolName } from '../../../protocol/index.js';
import type { AgentSession } from '../tools/agentSession.js';
import { TOOL_ARGS, type ToolRunner } from '../tools/toolRunner.js';

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

const ANNOTATIONS: Record<ToolName, Tool['annotations']> = {
  window_list: { title: 'List windows', readOnlyHint: true, openWorldHint: false },
  window_read: { title: 'Read a window', readOnlyHint: true, openWorldHint: false },
  element_find: { title: 'Find elements', readOnlyHint: true, openWorldHint: false },
  element_act: { title: 'Act on an element (supervised)', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  action_wait: { title: 'Wait for an approval', readOnlyHint: true, openWorldHint: false },
};

/** The five tools as MCP lists them, with JSON Schemas generated from the protocol's zod schemas. */
export function toolList(): Tool[] {
  return (Object.keys(TOOL_ARGS) as ToolName[]).map((name) => {
    const schema = z.toJSONSchema(TOOL_ARGS[name], { io: 'input', unrepresentable: 'any' }) as Tool['inputSchema'];
    delete (schema as Record<string, unknown>)['$schema'];
    return { name, description: DESCRIPTIONS[name], inputSchema: { ...schema, type: 'object' }, annotations: ANNOTATIONS[name] };
  });
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
      instructions: 'Overseer: read and operate desktop applications through their accessibility tree. Reads run at once; actions that change an application wait for a person to approve them.',
    },
  );
  server.oninitialized = () => {
    session.client = server.getClientVersion()?.name ?? session.client;
    options.onChange();
  };
  server.setRequestHandler(ListToolsRequestSchema, () => {
    if (!session.activated) return { tools: [{ name: ACTIVATE_TOOL, description: 'Activate the desktop tools (window_list, window_read, element_find, element_act, action_wait) for this agent.', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, annotations: { readOnlyHint: true } }] };
    return { tools: toolList() };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (name === ACTIVATE_TOOL) {
      session.activated = true;
      options.onChange();
      void server.sendToolListChanged().catch(() => {});
      return { content: [{ type: 'text', text: 'activated: window_list, window_read, element_find, element_act, action_wait' }] };
    }
    if (!session.activated) return { isError: true, content: [{ type: 'text', text: `error invalid_argument: call ${ACTIVATE_TOOL} first` }] };
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (done: number, total: number | undefined, message: string): void => {
            void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), message } }).catch(() => {});
          };
    const result = await runner.run(session, name, args, extra.signal, progress);
    options.onChange();
    const out: CallToolResult = { content: [{ type: 'text', text: result.text }] };
    if (result.isError) out.isError = true;
    return out;
  });
  return server;
}
