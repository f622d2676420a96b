// One tools/call handler for both protocol eras (docs/tools.md#protocol-eras): the 2025-11-25
// session server (mcpSession.ts, SDK 1.x) and the 2026-07-28 stateless server (modernServer.ts,
// SDK 2.x) both hand the call here with the agent's session (its context) and what their
// transport can do; every tool then runs through the one ToolRunner and its specs.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_TOOL_NAME, errorInfo, type ErrorInfo } from '../../../protocol/index.js';
import { phase, profileTool } from '../runtime/callProfile.js';
import type { AgentSession } from '../session/agentSession.js';
import type { ToolResult, ToolRunner } from '../tools/toolRunner.js';
import { logEntry, type LogEntry } from './mcpLogging.js';
import { answerInSession } from './toolTiers.js';

/**
 * tools/call params as they arrive, before we judge them: an SDK's own schema would answer a
 * wrong-typed `arguments` with −32603 and a raw validation dump before our handler ran; we validate
 * them ourselves, journal the call, and answer −32602 with an `invalid_argument` that says what is wrong.
 */
export const CallParams = z
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

/** A JSON-RPC error an SDK passes through as it is (code, message, data). */
export function rpcError(code: number, message: string, data: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/** JSON-RPC's invalid-params code, the same in both eras. */
export const INVALID_PARAMS = -32602;

/** What the transport of one call can do for it. */
export interface CallIo {
  /** Aborted when the agent cancels the call or its request closes before the answer. */
  signal: AbortSignal;
  /** Sends one notification related to this call (progress), when the transport can. */
  notify(notification: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
  /** Says that this agent's tools/list changed, as its era allows. */
  listChanged(): void;
  /** Tells the person's UI that the agent changed (its calls, its tiers). */
  onChange(): void;
  /** Logs the call's outcome to the agent host, where its era has MCP logging (docs/tools.md#logging). */
  log?(entry: LogEntry): void;
}

/** The answer to malformed tools/call params: journaled like every call, then thrown as the JSON-RPC error it is. */
export async function refuseMalformed(runner: ToolRunner, session: AgentSession, raw: unknown, error: z.ZodError): Promise<never> {
  const params = raw as { name?: unknown; arguments?: unknown } | undefined;
  const name = typeof params?.name === 'string' ? params.name.slice(0, MAX_TOOL_NAME) : '(no tool name)';
  const issues = error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
  const where = issues[0]?.path ?? 'params';
  const detail =
    where === 'arguments'
      ? "tools/call arguments must be a JSON object of the tool's fields"
      : `tools/call params are malformed at ${where}: give name (a string) and arguments (an object)`;
  const info: ErrorInfo = errorInfo('invalid_argument', detail, { issues });
  await runner.refuse(session, name, params?.arguments, info);
  throw rpcError(INVALID_PARAMS, `invalid_argument: ${detail}`, { code: info.code, issues });
}

/** Runs one well-formed tools/call for an agent: the session's own calls (computer_use_activate) here, every other tool through the runner. */
export async function runToolCall(runner: ToolRunner, session: AgentSession, call: z.infer<typeof CallParams>, io: CallIo): Promise<CallToolResult> {
  const { name, arguments: args } = call;
  // A call that changes only what this agent lists is answered here, never by the runner (toolTiers.ts says why).
  const own = answerInSession(session, name, args, runner.screenTools);
  if (own !== undefined) {
    if (own.ok) io.onChange();
    if (own.listChanged) io.listChanged();
    return own.result;
  }
  const token = call._meta?.progressToken;
  const progress =
    token === undefined
      ? undefined
      : (done: number, total: number | undefined, message: string): void => {
          void io
            .notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), message },
            })
            .catch(() => {});
        };
  profileTool(name);
  const handled = phase('handler');
  const result = await runner.run(session, name, args, io.signal, progress);
  io.onChange();
  io.log?.(logEntry(name, result));
  const answer = toolAnswer(result);
  handled();
  return answer;
}
