import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Supervisor } from '../supervisor.js';
import { sameOrigin } from './auth.js';
import { mcpHttp, reply } from './mcpHttp.js';
import { PAIR_PATH, type UiAuth } from './uiAuth.js';
import { uiSocket } from './uiSocket.js';

/** A running HTTP server: its address and how to stop it. */
export interface HttpHandle {
  server: HttpServer;
  port: number;
  host: string;
  close(): Promise<void>;
}

/** Options of the loopback HTTP server. */
export interface HttpOptions {
  host: string;
  port: number;
  /** The agent credential: opens `/mcp` only. */
  token: string;
  /** The person's credential (browser mode); without it there is no `/ui` and no `/pair`. */
  ui?: UiAuth;
  staticHandler?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  log: (line: string) => void;
}

const page = (res: ServerResponse, status: number, title: string, body: string): void => {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'",
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  res.end(`<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1>${body}`);
};

/**
 * Loopback HTTP (docs/security.md): `/mcp` for agents (bearer token, DNS-rebinding protection),
 * `/pair` and `/ui` for the person (one-time link → cookie → WebSocket UI channel), `/health`, and
 * the built UI at `/`. No request, frame or dropped connection can take the process down: every
 * socket and stream has its error path.
 */
export async function startHttpServer(supervisor: Supervisor, options: HttpOptions): Promise<HttpHandle> {
  let port = options.port;
  const mcp = mcpHttp(supervisor, { token: options.token, log: options.log });
  const ui = uiSocket(supervisor, options.ui, options.log);

  const pair = (url: URL, req: IncomingMessage, res: ServerResponse): void => {
    const auth = options.ui;
    if (auth === undefined) return reply(res, 404, { error: 'not found' });
    if (req.method !== 'GET') return reply(res, 405, { error: 'GET only' });
    if (auth.redeem(url.searchParams.get('code')) || auth.signedIn(req, port)) {
      // The secret travels as an HttpOnly cookie only; the address bar is left clean.
      res.writeHead(303, { location: '/', 'set-cookie': auth.setCookie(port), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end();
      return;
    }
    page(
      res,
      403,
      'This sign-in link does not work',
      '<p>Each link that signs a browser in to Overseer works once. This one was already used, has expired, or was never issued.</p><p>Use the link <code>overseer serve</code> printed when it started, or, in a browser that is signed in, Settings → “Link another browser”.</p>',
    );
  };

  const server = createServer((req, res) => {
    req.on('error', () => res.destroy());
    res.on('error', (error) => options.log(`[http] response failed: ${error.message}`));
    const origin = sameOrigin(req, port);
    if (!origin.ok) return reply(res, 403, { error: origin.why });
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return reply(res, 400, { error: 'malformed request target' });
    }
    if (url.pathname === '/mcp') {
      mcp.handle(req, res).catch((error: unknown) => {
        options.log(`[http] /mcp failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        reply(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error; it was logged' } });
      });
      return;
    }
    if (url.pathname === PAIR_PATH) return pair(url, req, res);
    if (url.pathname === '/health') return reply(res, 200, { ok: true, helper: supervisor.helper.health.state, brake: supervisor.brakes.state });
    void (options.staticHandler?.(req, res) ?? Promise.resolve(false)).then(
      (served) => {
        if (!served) fallback(url, req, res);
      },
      (error: unknown) => {
        options.log(`[http] static file failed: ${error instanceof Error ? error.message : String(error)}`);
        reply(res, 500, { error: 'internal' });
      },
    );
  });
  // A malformed request line or header ends that connection only.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  server.on('error', (error) => options.log(`[http] server: ${error.message}`));

  const fallback = (url: URL, req: IncomingMessage, res: ServerResponse): void => {
    if (url.pathname === '/' && req.method === 'GET') {
      // When the renderer is not built, say plainly what runs.
      page(
        res,
        200,
        'Overseer supervisor is running',
        `<p>Helper: ${supervisor.helper.health.state}. Brake: ${supervisor.brakes.state}.</p><p>Agents connect at <code>/mcp</code>. The browser UI is not built (run <code>npm run build</code>).</p>`,
      );
      return;
    }
    reply(res, 404, { error: 'not found' });
  };

  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    let path = '';
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      path = '';
    }
    if (path !== '/ui') {
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    ui.upgrade(req, socket, head, port);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    host: options.host,
    async close() {
      await mcp.closeAll();
      ui.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
