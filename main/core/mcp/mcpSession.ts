import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { agentName, type AgentSession } from '../session/agentSession.js';
import type { ToolRunner } from '../tools/toolRunner.js';
import { sessionLogging } from './mcpLogging.js';
import { CallParams, refuseMalformed, runToolCall } from './toolCall.js';
import { listedTools } from './toolTiers.js';

/** tools/call as it arrives, before we judge it (toolCall.ts's CallParams says why). */
const RawCallTool = z.object({ method: z.literal('tools/call'), params: z.unknown() });

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

/** What every agent reads first, in both eras. */
export const INSTRUCTIONS =
  'Overseer: read and operate desktop applications through their accessibility tree. Reads run at once; actions that change an application wait for a person to approve them.';

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
      instructions: INSTRUCTIONS,
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
    if (!parsed.success) return refuseMalformed(runner, session, request.params, parsed.error);
    return runToolCall(runner, session, parsed.data, {
      signal: extra.signal,
      notify: (notification) => extra.sendNotification(notification),
      listChanged: () => void server.sendToolListChanged().catch(() => {}),
      onChange: options.onChange,
      log: (entry) => logging.log(entry),
    });
  };
  Protocol.prototype.setRequestHandler.call(server, RawCallTool, callTool as never);
  return server;
}
