import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentCredential, hostCredentials } from './agentAuth.js';
import { bearer, sameOrigin } from './auth.js';
import { ConnectionGuard, type ConnectionCounts } from './connectionGuard.js';
import { discardBody, lingeringClose } from './lingeringClose.js';
import { htmlPage } from './htmlPage.js';
import { mcpHttp, reply } from './mcpHttp.js';
import { oauthHttp } from './oauthHttp.js';
import type { ServerHost } from './sessionHost.js';
import { PAIR_PATH, type UiAuth } from './uiAuth.js';
import { uiSocket } from './uiSocket.js';

/*
 * The server's bounds (docs/security.md#connections). The supervisor serves one person and at most
 * 64 agent sessions on loopback: a real client sends its request headers in its first packet and a
 * whole 8 MiB body within milliseconds, so every timeout below is generous for it and short for a
 * connection that only holds a slot.
 */
/** Open connections at most (the process may hold 20,000 files here; the helper, journal and bridge need few). Eight listen backlogs (511): a real client's new connection survives eight whole accept rounds of a flood before it could be the oldest waiting one. */
export const MAX_CONNECTIONS = 4096;
/** Agent requests in flight at most (64 sessions × 16 calls waiting for the person): the rest of MAX_CONNECTIONS stays for the person, `/health` and new connections. */
export const MAX_AGENT_REQUESTS = 1024;
/** A request's headers must be complete this long after its first byte (or its connection's start). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A request (headers and body) must be received within this; the response is not counted, so an SSE stream or a call waiting ~45 s for the person is not cut. */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long a connection is kept between requests. Node arms this timer when an answer is written,
 * and after an event-loop stall timers run before pending reads: a stall longer than the timeout
 * closes a socket on which the agent's next request is already waiting unread, and the agent's
 * POST fails with "other side closed" (the SDK does not retry it). With 5 s this happened on a
 * machine at load 20 while card pictures were made; 30.9 s leaves stalls far behind. Node announces
 * it in whole seconds (`Keep-Alive: timeout=30`) and undici stops reusing a socket a second before
 * that. Idle connections are the second to go when the cap is reached, so holding them longer
 * costs a flood nothing.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 30_900;
/** Requests one connection serves before it is closed (the client reconnects), so no connection lives on without end. */
export const MAX_REQUESTS_PER_SOCKET = 1000;
/** How often header and request timeouts are checked (Node's default, 30 s, would let a slowloris hold a slot three times as long). */
const TIMEOUT_CHECK_MS = 1000;

/** A running HTTP server: its address and how to stop it. */
export interface HttpHandle {
  server: HttpServer;
  port: number;
  host: string;
  /** What its connections are doing now. */
  connections(): ConnectionCounts;
  close(): Promise<void>;
}

/** Options of the loopback HTTP server. */
export interface HttpOptions {
  host: string;
  port: number;
  /** The shared agent credential: opens `/mcp` only, while the person keeps it (Settings → Agents). */
  token: string;
  /** The person's credential (browser mode); without it there is no `/ui` and no `/pair`. */
  ui?: UiAuth;
  staticHandler?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  log: (line: string) => void;
}

/**
 * Loopback HTTP (docs/security.md): `/mcp` for agents (bearer token, DNS-rebinding protection), the
 * authorization server that grants each agent its own token (docs/agents.md),
 * `/pair` and `/ui` for the person (one-time link → cookie → WebSocket UI channel), `/health`, and
 * the built UI at `/`. No request, frame or dropped connection can take the process down: every
 * socket and stream has its error path.
 */
export async function startHttpServer(supervisor: ServerHost, options: HttpOptions): Promise<HttpHandle> {
  let port = options.port;
  const credentials = hostCredentials(options.token, supervisor);
  const mcp = mcpHttp(supervisor, { credentials, log: options.log });
  const oauth = oauthHttp(supervisor, { log: options.log });
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
    htmlPage(
      res,
      403,
      'This sign-in link does not work',
      '<p>Each link that signs a browser in to Overseer works once. This one was already used, has expired, or was never issued.</p><p>Use the link <code>overseer serve</code> printed when it started, or, in a browser that is signed in, Settings → “Link another browser”.</p>',
    );
  };

  let agentRequests = 0;
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    (req, res) => {
      req.on('error', () => res.destroy());
      res.on('error', (error) => options.log(`[http] response failed: ${error.message}`));
      let url: URL | undefined;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        url = undefined;
      }
      // Only a credential makes a request one that is never closed to make room.
      const agent = url?.pathname === '/mcp' && agentCredential(bearer(req), credentials) !== undefined;
      const tooMany = agent && agentRequests >= MAX_AGENT_REQUESTS;
      guard.request(req, res, (agent && !tooMany) || options.ui?.signedIn(req, port) === true);
      if (agent && !tooMany) {
        agentRequests++;
        res.once('close', () => agentRequests--);
      }
      route(req, res, url, agent, tooMany);
    },
  );
  server.maxRequestsPerSocket = MAX_REQUESTS_PER_SOCKET;
  const guard = new ConnectionGuard(server, MAX_CONNECTIONS, options.log);

  const route = (req: IncomingMessage, res: ServerResponse, url: URL | undefined, agent: boolean, tooMany: boolean): void => {
    const origin = sameOrigin(req, port);
    if (!origin.ok) {
      // A page on another loopback port (a browser-based MCP client) is told what /mcp lacks: without
      // the agent credential it is 401, as a request without an Origin is. With the credential it is
      // still 403, as is every foreign Host and Origin, before any credential is looked at
      // (docs/security.md#listeners-and-files).
      if (url?.pathname === '/mcp' && origin.loopbackPage && !agent) return reply(res, 401, { error: 'a valid bearer token is required' });
      return reply(res, 403, { error: origin.why });
    }
    if (url === undefined) return reply(res, 400, { error: 'malformed request target' });
    if (tooMany) {
      discardBody(req);
      res.setHeader('retry-after', '1');
      return reply(res, 503, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: `${MAX_AGENT_REQUESTS} agent requests are in flight already; retry when one has been answered` },
      });
    }
    if (url.pathname === '/mcp') {
      mcp.handle(req, res).catch((error: unknown) => {
        options.log(`[http] /mcp failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        reply(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error; it was logged' } });
      });
      return;
    }
    if (url.pathname === PAIR_PATH) return pair(url, req, res);
    if (oauth.handle(url, req, res)) return;
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
  };
  // A malformed request line or header, or a request too slow to arrive, ends that connection only.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
    // Mid-response, a status line would be read as part of the answer: the connection just ends.
    const answer = socket.writable && !guard.answering(socket) ? `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n` : undefined;
    lingeringClose(socket, answer);
  });
  server.on('error', (error) => options.log(`[http] server: ${error.message}`));

  const fallback = (url: URL, req: IncomingMessage, res: ServerResponse): void => {
    if (url.pathname === '/' && req.method === 'GET') {
      // When the renderer is not built, say plainly what runs.
      htmlPage(
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
      guard.upgraded(socket, 'refused');
      lingeringClose(socket, 'HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    guard.upgraded(socket, ui.upgrade(req, socket, head, port));
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
    connections: () => guard.counts(),
    async close() {
      await mcp.closeAll();
      ui.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
