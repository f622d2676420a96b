import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { WebSocketServer, type WebSocket } from 'ws';
import { OVERSEER_VERSION, type Supervisor } from '../supervisor.js';
import { AgentSession } from '../tools/agentSession.js';
import { createMcpServer } from '../mcp/mcpSession.js';
import { bearer, sameOrigin, tokenMatches } from './auth.js';

/** Largest MCP request body accepted. */
const MAX_BODY = 8 * 1024 * 1024;

/** A running HTTP server: its address and how to stop it. */
export interface HttpHandle {
  server: HttpServer;
  port: number;
  host: string;
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error('too large');
    chunks.push(chunk);
  }
  return size === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
}

/**
 * Loopback HTTP: `/mcp` (Streamable HTTP, bearer token, DNS-rebinding protection), `/ui`
 * (WebSocket UI channel, token in the query), `/health`, and the built UI at `/`.
 */
export async function startHttpServer(supervisor: Supervisor, options: { host: string; port: number; token: string; staticHandler?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>; log: (line: string) => void }): Promise<HttpHandle> {
  const transports = new Map<string, { transport: StreamableHTTPServerTransport; session: AgentSession }>();
  let port = options.port;

  const mcp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!tokenMatches(bearer(req), options.token)) return reply(res, 401, { error: 'a valid bearer token is required' });
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readBody(req);
      } catch {
        return reply(res, 413, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the request body is not JSON or is too large' } });
      }
    }
    if (existing !== undefined) return existing.transport.handleRequest(req, res, body);
    if (typeof sid === 'string') return reply(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'unknown or closed session' } });
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'start a session with an initialize request' } });
    const session = new AgentSession('http', supervisor.settings.settings.progressive_tools);
    const server = createMcpServer({ runner: supervisor.runner, session, version: OVERSEER_VERSION, onChange: () => supervisor.emitAgents() });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, { transport, session });
        void supervisor.addSession(session, () => {
          transports.delete(id);
          void transport.close();
        });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
      supervisor.removeSession(session.id);
    };
    await server.connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    const origin = sameOrigin(req, port);
    if (!origin.ok) return reply(res, 403, { error: origin.why });
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/mcp') {
      mcp(req, res).catch((error: unknown) => {
        options.log(`[http] /mcp failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        if (!res.headersSent) reply(res, 500, { error: 'internal' });
      });
      return;
    }
    if (url.pathname === '/health') return reply(res, 200, { ok: true, helper: supervisor.helper.health.state, brake: supervisor.brakes.state });
    void (options.staticHandler?.(req, res) ?? Promise.resolve(false)).then((served) => {
      if (!served) fallback(url, req, res);
    });
  });

  const fallback = (url: URL, req: IncomingMessage, res: ServerResponse): void => {
    if (url.pathname === '/' && req.method === 'GET') {
      // When the renderer is not built, say plainly what runs.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'", 'cache-control': 'no-store' });
      res.end(`<!doctype html><meta charset="utf-8"><title>Overseer</title><h1>Overseer supervisor is running</h1><p>Helper: ${supervisor.helper.health.state}. Brake: ${supervisor.brakes.state}. Agents connected: ${supervisor.sessions.size}. Pending approvals: ${supervisor.approvals.list().length}.</p><p>Agents connect at <code>/mcp</code>. The browser UI is not built (run <code>npm run build</code>); approvals and brakes are available on the UI channel at <code>/ui</code>.</p>`);
      return;
    }
    reply(res, 404, { error: 'not found' });
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const origin = sameOrigin(req, port);
    if (url.pathname !== '/ui' || !origin.ok || !tokenMatches(url.searchParams.get('token') ?? undefined, options.token)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const client = { send: (frame: unknown) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame)) };
      let detach: (() => void) | undefined;
      void supervisor.ui.attach(client).then((d) => (detach = d));
      ws.on('message', (data) => {
        let raw: unknown;
        try {
          raw = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8'));
        } catch {
          raw = undefined;
        }
        void supervisor.ui.receive(client, raw);
      });
      ws.on('close', () => detach?.());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    host: options.host,
    async close() {
      for (const { transport } of transports.values()) await transport.close().catch(() => {});
      for (const ws of wss.clients) ws.terminate();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
