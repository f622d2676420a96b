import { request, type Agent, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import WebSocket from 'ws';

/** How a raw WebSocket attempt ended: refused at the handshake, or opened and then closed. */
export interface WsOutcome {
  /** HTTP status of a refused handshake. */
  status?: number;
  opened: boolean;
  closeCode?: number;
  closeReason?: string;
  /** Frames the server sent before closing. */
  frames: string[];
}

/**
 * Opens a WebSocket with exactly these headers (as a hostile local program could), sends `send`
 * once open, and reports what the server did within `ms`.
 */
export function rawWs(url: string, headers: Record<string, string>, send: (ws: WebSocket) => void = () => {}, ms = 3000): Promise<WsOutcome> {
  return new Promise((resolve) => {
    const out: WsOutcome = { opened: false, frames: [] };
    const ws = new WebSocket(url, { headers, handshakeTimeout: ms });
    const timer = setTimeout(() => {
      ws.terminate();
      resolve(out);
    }, ms);
    ws.on('unexpected-response', (_req, res) => {
      if (res.statusCode !== undefined) out.status = res.statusCode;
      clearTimeout(timer);
      res.resume();
      resolve(out);
    });
    ws.on('open', () => {
      out.opened = true;
      try {
        send(ws);
      } catch {
        // the server may close before we send; the outcome says so
      }
    });
    ws.on('message', (data: Buffer) => out.frames.push(data.toString('utf8')));
    ws.on('error', () => {});
    ws.on('close', (code, reason) => {
      out.closeCode = code;
      out.closeReason = reason.toString('utf8');
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** One HTTP exchange's answer. */
export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends a request with a raw body through `agent` (keep-alive when given), exactly as written. */
export function rawHttp(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent; timeoutMs?: number },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: options.method ?? 'POST',
        headers: options.headers,
        ...(options.agent !== undefined ? { agent: options.agent } : {}),
      },
      (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        res.on('end', done);
        // A server that answers before reading the whole body (413) may close while this side still writes.
        res.on('close', done);
        res.on('error', reject);
      },
    );
    let answered = false;
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)));
    // Writing into a connection the server closed after it answered (EPIPE) is not a failure of that answer.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(options.body);
  });
}

/** Writes raw bytes to a Unix socket (then half-closes it unless `keepOpen`) and collects what comes back until it closes or `ms` pass. */
export function rawSocket(path: string, chunks: (string | Buffer)[], ms = 2000, keepOpen = false): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let answer = '';
    let closed = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed });
    }, ms);
    socket.on('data', (b: Buffer) => (answer += b.toString('utf8')));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ answer, closed });
    });
    socket.on('connect', () => {
      for (const c of chunks) if (!socket.destroyed) socket.write(c);
      if (!keepOpen && !socket.destroyed) socket.end();
    });
  });
}

/** The JSON-RPC message in an MCP HTTP answer (plain JSON, or the first `data:` of an event stream). */
export function mcpMessage(answer: HttpAnswer): Record<string, unknown> | undefined {
  const text =
    answer.headers['content-type']?.includes('text/event-stream') === true
      ? answer.body
          .split('\n')
          .find((l) => l.startsWith('data: '))
          ?.slice(6)
      : answer.body;
  try {
    return text === undefined || text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

/**
 * An MCP session driven by hand over HTTP, for bodies no SDK would send (raw JSON text such as
 * 5,000 levels of nesting), with every tier activated. `post` sends one raw body in the session and returns the answer.
 */
export async function rawMcpSession(mcpUrl: string, token: string): Promise<{ id: string; post(body: string): Promise<HttpAnswer> }> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
  const init = await rawHttp(mcpUrl, {
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw-agent', version: '1' } },
    }),
  });
  const id = init.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error(`initialize answered ${init.status}: ${init.body.slice(0, 200)}`);
  const inSession = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' };
  await rawHttp(mcpUrl, { headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  // Every tier, so what the session sends reaches the tools (progressive exposure is on by default).
  const activated = await rawHttp(mcpUrl, {
    headers: inSession,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'computer_use_activate', arguments: { tiers: ['accessibility', 'screen'] } },
    }),
  });
  if (activated.status !== 200) throw new Error(`computer_use_activate answered ${activated.status}: ${activated.body.slice(0, 200)}`);
  return { id, post: (body) => rawHttp(mcpUrl, { headers: inSession, body }) };
}
