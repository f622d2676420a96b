// One HTTP request with a deadline, a cap on the answer's size and cancellation, never retried: the
// one copy the OSWorld clients of the helper and of the supervisor share (docs/connections.md#osworld).
// Failures are typed by what happened, so each caller words them for its own reader.

import http from 'node:http';
import https from 'node:https';

export interface HttpAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/**
 * Why a request failed: `down` (refused or unresolvable: it never left), `connection_lost` (cut in
 * the middle), `timeout`, `too_big` (the answer passed `maxBytes`), `cancelled` (the caller's signal).
 */
export type HttpFailureKind = 'down' | 'connection_lost' | 'timeout' | 'too_big' | 'cancelled';

/** A failed request: what happened, and whether the request may have reached the server (which may then have acted on it). */
export class HttpFailure extends Error {
  override readonly name = 'HttpFailure';
  constructor(
    readonly kind: HttpFailureKind,
    readonly sent: boolean,
    message: string,
  ) {
    super(message);
  }
}

export interface BoundedRequest {
  method: 'GET' | 'POST';
  /** A body sent as JSON. */
  json?: unknown;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal | undefined;
  /** Keep-alive agents, one per protocol; Node's global agents otherwise. */
  agents?: { http: http.Agent; https: https.Agent };
}

const NEVER_LEFT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/** One request to `url`; rejects with an HttpFailure for every transport failure, answers any status. */
export function boundedRequest(url: URL, options: BoundedRequest): Promise<HttpAnswer> {
  const { method, timeoutMs, maxBytes, signal } = options;
  const what = `${method} ${url.pathname}`;
  const body = options.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json), 'utf8');
  const secure = url.protocol === 'https:';
  // Cancelled before it started: nothing is sent.
  if (signal?.aborted === true) return Promise.reject(new HttpFailure('cancelled', false, `${what} was cancelled`));
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    let sent = false;
    const settle = (error: HttpFailure | undefined, answer?: HttpAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error !== undefined) {
        req.destroy();
        reject(error);
      } else resolve(answer as HttpAnswer);
    };
    const req = (secure ? https : http).request(
      url,
      {
        method,
        ...(options.agents !== undefined ? { agent: secure ? options.agents.https : options.agents.http } : {}),
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) settle(new HttpFailure('too_big', sent, `${what} answered more than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          settle(undefined, { status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }),
        );
        res.on('error', (e) => settle(new HttpFailure('connection_lost', sent, `${what}: ${e.message}`)));
        res.on('aborted', () => settle(new HttpFailure('connection_lost', sent, `${what}: the answer was cut off`)));
      },
    );
    const timer = setTimeout(() => settle(new HttpFailure('timeout', sent, `${what} got no answer within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = (): void => settle(new HttpFailure('cancelled', sent, `${what} was cancelled`));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e: NodeJS.ErrnoException) => {
      // Refused or unresolvable: the request never left, so nothing was done there.
      const never = NEVER_LEFT.has(e.code ?? '');
      settle(new HttpFailure(never ? 'down' : 'connection_lost', never ? false : sent, `${what}: ${e.code ?? e.message}`));
    });
    req.on('socket', (socket) => {
      // A fresh socket: the request can leave once it connects. A kept-alive one is connected already.
      if (socket.connecting) socket.once('connect', () => (sent = true));
      else sent = true;
    });
    req.on('finish', () => (sent = true));
    req.end(body);
  });
}
