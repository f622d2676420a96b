import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_TOOL_NAME, errorInfo } from '../../../protocol/index.js';
import { phase, profileTool } from '../runtime/callProfile.js';
import { agentName, type AgentSession } from '../session/agentSession.js';
import type { ToolResult, ToolRunner } from '../tools/toolRunner.js';
import { logEntry, sessionLogging } from './mcpLogging.js';
import { answerInSession, listedTools } from './toolTiers.js';

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
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions:
        'Overseer: read and operate desktop applications through their accessibility tree. Reads run at once; actions that change an application wait for a person to approve them.',
    },
  );
  server.oninitialized = () => {
    session.client = agentName(server.getClientVersion()?.name, session.client);
    options.onChange();
  };
  const logging = sessionLogging(server);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(session, runner.screenTools) }));
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
    // A call that changes only what this session lists is answered here, never by the runner (toolTiers.ts says why).
    const own = answerInSession(session, name, args, runner.screenTools);
    if (own !== undefined) {
      if (own.ok) options.onChange();
      if (own.listChanged) void server.sendToolListChanged().catch(() => {});
      return own.result;
    }
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
    logging.log(logEntry(name, result));
    const answer = toolAnswer(result);
    handled();
    return answer;
  };
  Protocol.prototype.setRequestHandler.call(server, RawCallTool, callTool as never);
  return server;
}
