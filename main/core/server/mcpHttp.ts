import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { OVERSEER_VERSION, type Supervisor } from '../supervisor.js';
import { AgentSession } from '../tools/agentSession.js';
import { createMcpServer, trackSends } from '../mcp/mcpSession.js';
import { profileFinisher, profiled } from '../callProfile.js';
import { bearer, tokenMatches } from './auth.js';
import { allowPlainJson, asksNoProgress, withAnswerMode } from './jsonResponses.js';
import { discardBody } from './lingeringClose.js';

/** Largest MCP request body accepted. */
export const MAX_BODY = 8 * 1024 * 1024;

/** A JSON answer that ends the request. */
export function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

const rpcError = (code: number, message: string): unknown => ({ jsonrpc: '2.0', id: null, error: { code, message } });

type Body = { ok: true; body: unknown } | { ok: false; status: number; error: unknown };

/**
 * Reads a request body within MAX_BODY; says exactly what is wrong with one that is not JSON. A
 * body past the bound is answered 413 while its rest is read and dropped (discardBody), so the
 * agent reads its answer instead of a reset.
 */
function readBody(req: IncomingMessage): Promise<Body> {
  const tooLarge = (what: string): Body => {
    discardBody(req);
    return { ok: false, status: 413, error: rpcError(-32600, `${what} is larger than ${MAX_BODY} bytes`) };
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY) return Promise.resolve(tooLarge(`the request body (${declared} bytes)`));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_BODY) return void chunks.push(chunk);
      finish(tooLarge('the request body'));
    };
    const onEnd = (): void => {
      if (size === 0) return finish({ ok: true, body: undefined });
      try {
        finish({ ok: true, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      } catch {
        finish({ ok: false, status: 400, error: rpcError(-32700, 'parse error: the request body is not valid JSON') });
      }
    };
    const onCut = (): void => finish({ ok: false, status: 400, error: rpcError(-32700, 'the request body was cut off') });
    const finish = (body: Body): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onCut);
      req.off('close', onCut);
      chunks.length = 0;
      resolve(body);
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onCut);
    req.once('close', onCut);
  });
}

/**
 * MCP over Streamable HTTP at `/mcp`: the agent credential (bearer token) opens it and nothing
 * else. One agent session per MCP session, admitted within the supervisor's bound (never during an
 * emergency stop), kept busy by its open requests and ended by DELETE, idle expiry or a brake.
 */
export function mcpHttp(
  supervisor: Supervisor,
  options: { token: string; log: (line: string) => void },
): { handle(req: IncomingMessage, res: ServerResponse): Promise<void>; closeAll(): Promise<void> } {
  const transports = new Map<string, { transport: StreamableHTTPServerTransport; session: AgentSession }>();

  const handleRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!tokenMatches(bearer(req), options.token)) return reply(res, 401, { error: 'a valid bearer token is required' });
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
    // Busy while any of its requests is open: a call in flight, or the event stream.
    const leave = existing?.session.enter();
    if (leave !== undefined) res.once('close', leave);
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req);
      if (!read.ok) return reply(res, read.status, read.error);
      body = read.body;
    }
    // A call that asked for no progress gets its answer as one JSON body, not an SSE stream.
    const json = req.method === 'POST' && asksNoProgress(body);
    if (existing !== undefined) return withAnswerMode(json, () => existing.transport.handleRequest(req, res, body));
    if (typeof sid === 'string') return reply(res, 404, rpcError(-32001, 'unknown or closed session: start a new one with initialize'));
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, rpcError(-32000, 'start a session with an initialize request'));
    const admitted = supervisor.admit();
    if (!admitted.ok) return reply(res, 503, rpcError(-32000, admitted.why));
    const session = new AgentSession({
      transport: 'http',
      progressiveTools: supervisor.settings.settings.progressive_tools,
      now: () => supervisor.clock.now(),
    });
    const server = createMcpServer({ runner: supervisor.runner, session, version: OVERSEER_VERSION, onChange: () => supervisor.emitAgents() });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, { transport, session });
        void supervisor.addSession(session, {
          close: () => {
            transports.delete(id);
            void transport.close().catch(() => {});
          },
          drain: () => sends.drain(),
        });
      },
    });
    allowPlainJson(transport, options.log);
    const sends = trackSends(transport);
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
      supervisor.endSession(session.id, 'the agent ended its session');
      void server.close().catch(() => {});
    };
    transport.onerror = (error) => options.log(`[mcp] ${session.id}: ${error.message}`);
    await server.connect(transport);
    const leaveFirst = session.enter();
    res.once('close', leaveFirst);
    return withAnswerMode(json, () => transport.handleRequest(req, res, body));
  };

  // OVERSEER_PROF=1: a call's profile runs from the request's arrival until its answer is written.
  const handle = (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    profiled('http', options.log, () => {
      res.once('finish', profileFinisher());
      return handleRequest(req, res);
    });

  return {
    handle,
    async closeAll() {
      for (const { transport } of [...transports.values()]) await transport.close().catch(() => {});
    },
  };
}
