// The 2026-07-28 era over Streamable HTTP at `/mcp` (docs/tools.md#protocol-eras): a request that
// carries the per-request `_meta` envelope (or probes with `server/discover`) is served by SDK 2.x's
// stateless handler; every other request stays with the 2025-11-25 session server of mcpHttp.ts.
// The bearer token was checked, and the body read within its bounds, before a request gets here.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { ContextHandles } from '../mcp/contextHandles.js';
import { createModernServer } from '../mcp/modernServer.js';
import { AgentSession } from '../session/agentSession.js';
import { OVERSEER_VERSION } from '../runtime/version.js';
import type { AgentCredential } from './agentAuth.js';
import type { SessionHost } from './sessionHost.js';

/**
 * Who a request's credential is, as the handles it mints are bound to: a grant (docs/agents.md#grants),
 * or the shared token while the person keeps it. A handle minted under one never answers another.
 */
function principalOf(credential: AgentCredential): string {
  return credential.kind === 'grant' ? `grant:${credential.grant.id}` : 'shared-token';
}

/** A Node request as the web Request the SDK serves (its body already parsed: passed beside it). */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/mcp'}`, { method: req.method ?? 'POST', headers, signal });
}

/** Writes a web Response to a Node response, streaming an event stream as it comes. */
function writeResponse(answer: Response, res: ServerResponse): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(answer.status, headers);
  if (answer.body === null) return void res.end();
  const body = Readable.fromWeb(answer.body as ReadableStream<Uint8Array>);
  res.once('close', () => body.destroy());
  body.once('error', () => res.destroy());
  body.pipe(res);
}

/** The 2026-07-28 side of `/mcp`: which requests are its own, serving them, and closing. */
export interface ModernMcpHttp {
  /** Whether a POST without a session id is a 2026-07-28 request. */
  claims(req: IncomingMessage, body: unknown): Promise<boolean>;
  /** Serves one request, made with `credential` (already verified). */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, credential: AgentCredential): Promise<void>;
  close(): Promise<void>;
}

/** The 2026-07-28 era at `/mcp`: contexts are agent sessions of the supervisor, over HTTP (idle expiry ends them). */
export function modernMcpHttp(supervisor: SessionHost, options: { log: (line: string) => void; maxBody: number }): ModernMcpHttp {
  // The credential of the request being served: the SDK's handler runs each request in its own async context.
  const current = new AsyncLocalStorage<AgentCredential>();
  const credential = (): AgentCredential => current.getStore() ?? { kind: 'shared' };
  const contexts = new ContextHandles({
    admit: () => supervisor.admit(),
    async open(client, ended) {
      const c = credential();
      const session = new AgentSession({
        transport: 'http',
        progressiveTools: supervisor.settings.settings.progressive_tools,
        now: () => supervisor.clock.now(),
        ...(c.kind === 'grant' ? { grant: c.grant } : {}),
      });
      session.client = client;
      await supervisor.addSession(session, { close: ended, drain: () => Promise.resolve() });
      return session;
    },
  });
  const handler = createMcpHandler(
    () =>
      createModernServer({
        runner: supervisor.runner,
        contexts,
        principal: () => principalOf(credential()),
        progressive: () => supervisor.settings.settings.progressive_tools,
        version: OVERSEER_VERSION,
        onChange: () => supervisor.emitAgents(),
        listChanged: () => handler.notify.toolsChanged(),
      }),
    {
      legacy: 'reject',
      maxRequestBodySize: options.maxBody,
      onerror: (error) => options.log(`[mcp] 2026-07-28: ${error.message}`),
    },
  );
  return {
    claims: async (req, body) => !(await isLegacyRequest(webRequest(req, new AbortController().signal), body, { maxRequestBodySize: options.maxBody })),
    async handle(req, res, body, made) {
      // A request that closes before its answer cancels its call: a card it waits on is withdrawn.
      const gone = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const answer = await current.run(made, () => handler.fetch(webRequest(req, gone.signal), { parsedBody: body }));
      writeResponse(answer, res);
    },
    close: () => handler.close(),
  };
}
