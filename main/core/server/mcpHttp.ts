import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorInfo } from '../../../protocol/index.js';
import { AgentSession } from '../session/agentSession.js';
import { createMcpServer, trackSends } from '../mcp/mcpSession.js';
import { profileFinisher, profiled } from '../runtime/callProfile.js';
import { OVERSEER_VERSION } from '../runtime/version.js';
import { CALL_DEPARTED } from '../tools/supervisedFlow.js';
import { agentCredential, credentialOwns, type AgentCredentials } from './agentAuth.js';
import { bearer } from './auth.js';
import { allowPlainJson, asksNoProgress, withAnswerMode } from './jsonResponses.js';
import { discardBody } from './lingeringClose.js';
import { modernMcpHttp } from './mcpModernHttp.js';
import { bearerChallenge } from './oauthHttp.js';
import type { SessionHost } from './sessionHost.js';

/** Largest MCP request body accepted. */
export const MAX_BODY = 8 * 1024 * 1024;
/** How long a session ended by DELETE waits for its calls in flight to be answered, first by themselves, then `withdrawn`. */
const DEPART_ANSWER_MS = 2000;
/**
 * How long a session whose last open request closed unanswered waits for another request before it
 * counts as gone (docs/supervision.md#when-an-agent-has-gone): short enough that its pending items
 * are withdrawn within 2 s, long enough for a client that closed its event stream and opens the next
 * request at once.
 */
export const DEPART_GRACE_MS = 1000;

/** A JSON answer that ends the request. */
export function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

const rpcError = (code: number, message: string): unknown => ({ jsonrpc: '2.0', id: null, error: { code, message } });

type Body = { ok: true; body: unknown } | { ok: false; status: number; error: unknown };

/**
 * Reads a request body within MAX_BODY; says exactly what is wrong with one that is not JSON. A
 * body past the bound is answered 413 while its rest is read and dropped (discardBody), so the
 * agent reads its answer instead of a reset.
 */
function readBody(req: IncomingMessage, hold: (bytes: number) => boolean): Promise<Body> {
  const tooLarge = (what: string): Body => {
    discardBody(req);
    return { ok: false, status: 413, error: rpcError(-32600, `${what} is larger than ${MAX_BODY} bytes`) };
  };
  const busy = (): Body => {
    discardBody(req);
    return {
      ok: false,
      status: 503,
      error: rpcError(-32000, 'the supervisor holds as much of agents’ requests as it can right now; try again when your calls are answered'),
    };
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY) return Promise.resolve(tooLarge(`the request body (${declared} bytes)`));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY) return finish(tooLarge('the request body'));
      if (!hold(chunk.length)) return finish(busy());
      chunks.push(chunk);
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

/** One MCP session over HTTP: its transport, its agent session and its requests still open. */
interface Entry {
  transport: StreamableHTTPServerTransport;
  session: AgentSession;
  open: Set<ServerResponse>;
  /** Requests it sent so far: a departure's grace ends without effect when one more came. */
  requests: number;
}

/** The ids of the JSON-RPC requests in a body (one message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const m of Array.isArray(body) ? (body as unknown[]) : [body]) {
    if (typeof m !== 'object' || m === null) continue;
    const { id, method } = m as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  }
  return ids;
}

/**
 * What a request that closes before its answer was written says (docs/supervision.md#when-an-agent-has-gone):
 * the calls it carried departed — each is cancelled as the agent's own `notifications/cancelled`
 * would, so its card is withdrawn at once — and when no request of the session is open a moment
 * later, nor came since, the agent is gone: its process died, or it closed its client.
 */
function departOnClose(supervisor: SessionHost, entry: Entry, res: ServerResponse, body: unknown): void {
  const ids = requestIds(body);
  res.once('close', () => {
    if (res.writableFinished || entry.session.ended !== undefined) return;
    for (const requestId of ids)
      void entry.transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: CALL_DEPARTED } });
    const seen = entry.requests;
    const timer = setTimeout(() => {
      if (entry.session.busy || entry.requests !== seen || entry.session.ended !== undefined) return;
      supervisor.endSession(entry.session.id, 'its connections closed: the agent process ended or closed its client');
    }, DEPART_GRACE_MS);
    timer.unref();
  });
}

function opened(entry: Entry, res: ServerResponse): void {
  entry.open.add(res);
  res.once('close', () => entry.open.delete(res));
}

/** True when every promise settled within `ms`. */
async function settledWithin(work: Promise<unknown>[], ms: number): Promise<boolean> {
  if (work.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const done = await Promise.race([Promise.allSettled(work).then(() => true as const), late]);
  clearTimeout(timer);
  return done;
}

/**
 * An agent that ends its session and still listens (DELETE) is answered before its transport
 * closes (docs/supervision.md#agents-that-leave): its pending actions are withdrawn, which answers
 * the calls waiting for the person; a call still running after DEPART_ANSWER_MS is answered
 * `withdrawn`; each answer is journaled before it is handed to the transport.
 */
async function answerBeforeLeaving(supervisor: SessionHost, session: AgentSession, reason: string): Promise<void> {
  const running = session.callsRunning();
  supervisor.endSession(session.id, reason);
  if (!(await settledWithin(running, DEPART_ANSWER_MS)))
    await settledWithin(session.brakeCalls(errorInfo('withdrawn', `the agent ended its session while this call ran (${reason})`)), DEPART_ANSWER_MS);
  // The SDK sends an answer a few turns after the runner returns it.
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Ends the requests of a closed session that were never answered: the SDK forgets a plain-JSON
 * call's pending answer when it closes, and its HTTP response would stay open for good. An SSE
 * answer is ended by the SDK itself.
 */
function endUnanswered(entry: Entry): void {
  const timer = setTimeout(() => {
    for (const res of entry.open) if (!res.headersSent) reply(res, 404, rpcError(-32001, 'the session ended before this request was answered'));
  }, 250);
  timer.unref();
}

/**
 * MCP over Streamable HTTP at `/mcp`: an agent credential (a grant's access token, or the shared
 * token while the person keeps it) opens it and nothing else; a request without one is answered 401
 * with where to get one (docs/agents.md#the-authorization-flow), and a session answers only the
 * credential that opened it. One agent session per MCP session, admitted within the supervisor's bound (never during an
 * emergency stop), kept busy by its open requests and ended by DELETE, idle expiry or a brake.
 */
export function mcpHttp(
  supervisor: SessionHost,
  options: { credentials: AgentCredentials; log: (line: string) => void },
): { handle(req: IncomingMessage, res: ServerResponse): Promise<void>; closeAll(): Promise<void> } {
  const transports = new Map<string, Entry>();
  // The 2026-07-28 era: stateless requests that carry their protocol version in `_meta`.
  const modern = modernMcpHttp(supervisor, { log: options.log, maxBody: MAX_BODY });

  const handleRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const presented = bearer(req);
    const credential = agentCredential(presented, options.credentials);
    if (credential === undefined) {
      discardBody(req);
      return reply(res, 401, { error: 'a valid bearer token is required' }, { 'www-authenticate': bearerChallenge(req, presented !== undefined) });
    }
    const sid = req.headers['mcp-session-id'];
    const found = typeof sid === 'string' ? transports.get(sid) : undefined;
    // Another agent's session is not this one's to drive: it is answered as unknown.
    const existing = found !== undefined && credentialOwns(credential, found.session.grant) ? found : undefined;
    // Busy while any of its requests is open: a call in flight, or the event stream.
    const leave = existing?.session.enter();
    if (leave !== undefined) res.once('close', leave);
    if (existing !== undefined && req.method !== 'DELETE') {
      existing.requests++;
      opened(existing, res);
    }
    let body: unknown;
    if (req.method === 'POST') {
      // The body counts against what agents may make the supervisor hold until its answer is out.
      let held = 0;
      res.once('close', () => supervisor.requestBytes.release(held));
      const read = await readBody(req, (bytes) => {
        if (!supervisor.requestBytes.take(bytes)) return false;
        held += bytes;
        return true;
      });
      if (!read.ok) return reply(res, read.status, read.error);
      body = read.body;
    }
    if (existing === undefined && sid === undefined && req.method === 'POST' && (await modern.claims(req, body)))
      return modern.handle(req, res, body, credential);
    // A call that asked for no progress gets its answer as one JSON body, not an SSE stream.
    const json = req.method === 'POST' && asksNoProgress(body);
    if (existing !== undefined) {
      if (req.method !== 'DELETE') departOnClose(supervisor, existing, res, body);
      return withAnswerMode(json, () => existing.transport.handleRequest(req, res, body));
    }
    if (typeof sid === 'string') return reply(res, 404, rpcError(-32001, 'unknown or closed session: start a new one with initialize'));
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, rpcError(-32000, 'start a session with an initialize request'));
    const admitted = supervisor.admit();
    if (!admitted.ok) return reply(res, 503, rpcError(-32000, admitted.why));
    const session = new AgentSession({
      transport: 'http',
      progressiveTools: supervisor.settings.settings.progressive_tools,
      now: () => supervisor.clock.now(),
      ...(credential.kind === 'grant' ? { grant: credential.grant } : {}),
    });
    const server = createMcpServer({ runner: supervisor.runner, session, version: OVERSEER_VERSION, onChange: () => supervisor.emitAgents() });
    // Set while a DELETE answers the calls in flight: the SDK closes the transport itself afterwards.
    let departing = false;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, entry);
        void supervisor.addSession(session, {
          close: () => {
            transports.delete(id);
            if (!departing) void transport.close().catch(() => {});
          },
          drain: () => sends.drain(),
        });
      },
      // Runs before the SDK closes the transport, which forgets every call it has not answered yet.
      onsessionclosed: async () => {
        departing = true;
        await answerBeforeLeaving(supervisor, session, 'the agent ended its session');
        await sends.drain();
      },
    });
    const entry: Entry = { transport, session, open: new Set(), requests: 1 };
    allowPlainJson(transport, options.log);
    const sends = trackSends(transport);
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
      supervisor.endSession(session.id, 'the agent ended its session');
      void server.close().catch(() => {});
      endUnanswered(entry);
    };
    transport.onerror = (error) => options.log(`[mcp] ${session.id}: ${error.message}`);
    await server.connect(transport);
    const leaveFirst = session.enter();
    res.once('close', leaveFirst);
    opened(entry, res);
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
      await modern.close().catch(() => {});
    },
  };
}
