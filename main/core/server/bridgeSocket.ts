import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { OVERSEER_VERSION, type Supervisor } from '../supervisor.js';
import { AgentSession } from '../tools/agentSession.js';
import { createMcpServer } from '../mcp/mcpSession.js';
import { tokenMatches } from './auth.js';

/** The first line a bridge sends: its token and the pid of the agent host that launched it. */
export const BridgeHello = z.strictObject({ token: z.string().max(200), host_pid: z.number().int().positive().optional(), client: z.string().max(200).optional() });
export type BridgeHello = z.infer<typeof BridgeHello>;
const MAX_HELLO = 4096;

/** Reads the first line of a socket (at most MAX_HELLO bytes) and puts any rest back. */
function firstLine(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl >= 0) {
        socket.off('data', onData);
        socket.pause();
        const rest = buf.subarray(nl + 1);
        if (rest.length > 0) socket.unshift(rest);
        resolve(buf.subarray(0, nl).toString('utf8'));
      } else if (buf.length > MAX_HELLO) {
        socket.off('data', onData);
        reject(new Error('hello too long'));
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error('closed')));
  });
}

/**
 * The local socket `overseer mcp` connects to (a Unix domain socket, mode 0600): a token line,
 * then MCP over the same stream, one JSON message a line, as one agent session.
 */
export async function startBridgeSocket(supervisor: Supervisor, options: { path: string; token: string; log: (line: string) => void }): Promise<Server> {
  await unlink(options.path).catch(() => {});
  const server = createServer((socket) => {
    void (async () => {
      let hello: BridgeHello;
      try {
        const parsed = BridgeHello.safeParse(JSON.parse(await firstLine(socket)));
        if (!parsed.success || !tokenMatches(parsed.data.token, options.token)) throw new Error('bad token');
        hello = parsed.data;
      } catch {
        socket.end(`${JSON.stringify({ ok: false, error: 'the token does not match this supervisor' })}\n`);
        return;
      }
      socket.write(`${JSON.stringify({ ok: true, version: OVERSEER_VERSION })}\n`);
      const session = new AgentSession('stdio', supervisor.settings.settings.progressive_tools, hello.host_pid !== undefined ? [hello.host_pid] : []);
      if (hello.client !== undefined) session.client = hello.client;
      const server = createMcpServer({ runner: supervisor.runner, session, version: OVERSEER_VERSION, onChange: () => supervisor.emitAgents() });
      const transport = new StdioServerTransport(socket, socket);
      transport.onclose = () => supervisor.removeSession(session.id);
      socket.once('close', () => void transport.close());
      await server.connect(transport);
      socket.resume();
      await supervisor.addSession(session, () => socket.destroy());
    })().catch((error: unknown) => options.log(`[bridge] connection failed: ${error instanceof Error ? error.message : String(error)}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.path, () => resolve());
  });
  await chmod(options.path, 0o600);
  return server;
}
