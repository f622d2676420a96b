// The 2026-07-28 era over the bridge socket (`overseer mcp` stdio, docs/tools.md#protocol-eras):
// a bridge whose first message is a `server/discover` probe or carries the `_meta` envelope is
// served by SDK 2.x's stdio entry, with the same tools and handler as the 2025-11-25 session
// server. Its contexts are the bridge's own: a handle counts on the connection that minted it, and
// every context ends when the bridge closes.
import type { Socket } from 'node:net';
import type { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { GrantIdentity } from '../grants/grantStore.js';
import { ContextHandles } from '../mcp/contextHandles.js';
import { createModernServer } from '../mcp/modernServer.js';
import { OVERSEER_VERSION } from '../runtime/version.js';
import { AgentSession } from '../session/agentSession.js';
import { MAX_LINE, holdWhileAnswered, lineLimit } from './bridgeSocket.js';
import type { SessionHost } from './sessionHost.js';

/** Every handle of a bridge is minted on it, so one principal per connection's registry. */
const THIS_BRIDGE = 'this-bridge';

/** Serves one bridge connection in the 2026-07-28 era until it closes. */
export function serveModernBridge(
  supervisor: SessionHost,
  socket: Socket,
  options: { hostPids: readonly number[]; client: string | undefined; grant: GrantIdentity | undefined; log: (line: string) => void },
): void {
  const contexts = new ContextHandles({
    admit: () => supervisor.admit(),
    async open(client, ended) {
      const session = new AgentSession({
        transport: 'stdio',
        progressiveTools: supervisor.settings.settings.progressive_tools,
        hostPids: options.hostPids,
        now: () => supervisor.clock.now(),
        ...(options.grant !== undefined ? { grant: options.grant } : {}),
      });
      session.client = client;
      await supervisor.addSession(session, { close: ended, drain: () => Promise.resolve() });
      if (socket.destroyed) supervisor.endSession(session.id, 'its bridge closed');
      return session;
    },
  });
  const input = socket.pipe(
    lineLimit(MAX_LINE, () => {
      options.log(`[bridge] a 2026-07-28 bridge sent a message longer than ${MAX_LINE} bytes; its connection was closed`);
      socket.destroy();
    }),
  );
  const transport = new StdioServerTransport(input, socket);
  let server: Server | undefined;
  const served = serveStdio(
    () =>
      (server = createModernServer({
        runner: supervisor.runner,
        contexts,
        principal: () => THIS_BRIDGE,
        progressive: () => supervisor.settings.settings.progressive_tools,
        version: OVERSEER_VERSION,
        onChange: () => supervisor.emitAgents(),
        listChanged: () => void server?.sendToolListChanged().catch(() => {}),
      })),
    { transport, legacy: 'reject', onerror: (error) => options.log(`[bridge] 2026-07-28: ${error.message}`) },
  );
  // After serveStdio, which set the transport's message handler this wraps.
  holdWhileAnswered(transport, socket, supervisor.requestBytes);
  socket.once('close', () => {
    for (const session of contexts.sessions()) supervisor.endSession(session.id, 'its bridge closed');
    void served.close().catch(() => {});
  });
}
