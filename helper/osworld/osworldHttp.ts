// The helper's HTTP client of an OSWorld in-VM server (docs/connections.md#osworld). It holds the
// honesty rules every backend of an osworld_http connection relies on: a call succeeded only when
// the server answered 200 (and, for /execute, status "success" and return code 0); a server that
// answered otherwise is a typed failure of the call; a server that could not be reached, or that
// stopped answering, is `connection_unavailable`, and a command whose answer never came has an
// unknown outcome. Nothing here ever retries a request.

import http from 'node:http';
import https from 'node:https';
import { boundedRequest, HttpFailure, type HttpAnswer } from '../../base/boundedHttp.js';
import { BAD_ANSWER_HINT, OSWORLD_TIMEOUT_MS, osworldDown, readExecute } from '../../base/osworldApi.js';
import { fail, type OverseerError } from '../../protocol/index.js';

/** Where the connection's server is and how long one call may take (from the helper's environment). */
export interface OsworldSettings {
  /** The server's base URL, without a trailing slash. */
  url: string;
  timeoutMs: number;
  /** The connection's name, for error data. */
  connection: string;
}

/** Default budget of one call. */
export const DEFAULT_TIMEOUT_MS = OSWORLD_TIMEOUT_MS;
/** Most bytes of one answer read (screenshots: docs/connections.md#osworld caps them at 20 MB). */
export const MAX_ANSWER_BYTES = 20 * 1024 * 1024;

/** The settings from OVERSEER_OSWORLD_URL, OVERSEER_OSWORLD_TIMEOUT_MS and OVERSEER_CONNECTION. */
export function osworldSettings(env: Record<string, string | undefined>): OsworldSettings {
  const connection = env['OVERSEER_CONNECTION'] ?? 'osworld';
  const url = (env['OVERSEER_OSWORLD_URL'] ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url))
    throw fail('connection_unavailable', 'the osworld connection has no server URL (OVERSEER_OSWORLD_URL)', {
      connection,
      reason: 'down',
      hint: 'set the connection’s url to the VM server, e.g. http://192.168.122.10:5000',
    });
  const timeout = Number(env['OVERSEER_OSWORLD_TIMEOUT_MS'] ?? DEFAULT_TIMEOUT_MS);
  return { url, timeoutMs: Number.isFinite(timeout) && timeout >= 100 ? timeout : DEFAULT_TIMEOUT_MS, connection };
}

export type { HttpAnswer };

/** What /execute answered when it ran the command. */
export interface ExecuteAnswer {
  output: string;
  error: string;
  returncode: number;
}

// One kept-alive socket pool per process: every screen call is a request, and a new TCP connection each
// time would double the round trips.
const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 4 }), https: new https.Agent({ keepAlive: true, maxSockets: 4 }) };

/** The HTTP side of one connection. */
export class OsworldHttp {
  constructor(readonly settings: OsworldSettings) {}

  /** A failure to reach the server as the typed error; `sent` tells whether the server may have acted on it. */
  private down(why: { reason: string; detail: string; hint: string }, sent: boolean, mutating: boolean): OverseerError {
    return fail('connection_unavailable', `${this.settings.connection}: ${why.detail}`, {
      connection: this.settings.connection,
      reason: why.reason,
      hint: why.hint,
      ...(mutating ? { outcome: sent ? 'unknown' : 'not_done' } : {}),
    });
  }

  /** One request, never retried. `mutating`: a failure after the request left says the outcome is unknown. */
  async request(
    method: 'GET' | 'POST',
    path: string,
    options: { json?: unknown; mutating?: boolean; timeoutMs?: number; maxBytes?: number; signal?: AbortSignal } = {},
  ): Promise<HttpAnswer> {
    const mutating = options.mutating === true;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    try {
      return await boundedRequest(new URL(this.settings.url + path), {
        method,
        json: options.json,
        timeoutMs,
        maxBytes: options.maxBytes ?? MAX_ANSWER_BYTES,
        signal: options.signal,
        agents,
      });
    } catch (error) {
      if (!(error instanceof HttpFailure)) throw error;
      if (error.kind === 'cancelled')
        throw fail('timeout', error.message, { connection: this.settings.connection, ...(mutating ? { outcome: error.sent ? 'unknown' : 'not_done' } : {}) });
      // `timeoutMs` is the call's own budget, which may differ from the connection's.
      throw this.down(osworldDown(error, this.settings.url, timeoutMs, this.settings.timeoutMs), error.sent, mutating);
    }
  }

  /** An answer parsed as JSON, or `bad_answer`. */
  json(answer: HttpAnswer, what: string): unknown {
    try {
      return JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw this.down({ reason: 'bad_answer', detail: `${what} answered ${answer.status} with a body that is not JSON`, hint: BAD_ANSWER_HINT }, false, false);
    }
  }

  /**
   * Runs a command through POST /execute. Success is HTTP 200 with status "success" and returncode 0;
   * anything else the server answered is `failCode` (reason server_error or command_failed) with its
   * message; transport failures are connection_unavailable (outcome unknown when it may have run).
   */
  async execute(
    command: readonly string[] | string,
    failCode: 'input_unavailable' | 'capture_unavailable',
    options: { timeoutMs?: number } = {},
  ): Promise<ExecuteAnswer> {
    const shell = typeof command === 'string';
    const answer = await this.request('POST', '/execute', {
      json: { command, shell },
      mutating: true,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    const read = readExecute(answer);
    if (!read.json)
      throw this.down(
        { reason: 'bad_answer', detail: `POST /execute answered ${answer.status} with a body that is not JSON`, hint: BAD_ANSWER_HINT },
        false,
        false,
      );
    const data = { connection: this.settings.connection };
    if (read.http !== 200)
      throw fail(failCode, `the OSWorld server could not run the command: ${read.message || `HTTP ${answer.status}`}`, {
        ...data,
        reason: 'server_error',
        status: answer.status,
      });
    // A command this helper runs must succeed: any return code but 0 fails the call.
    if (!read.ran || read.returncode !== 0) {
      const why = read.error.trim().split('\n').slice(-3).join(' ').slice(0, 500);
      throw fail(failCode, `the command failed in the VM (status ${String(read.status)}, return code ${String(read.returncode ?? NaN)}): ${why}`, {
        ...data,
        reason: 'command_failed',
        returncode: read.returncode ?? null,
      });
    }
    return { output: read.output, error: read.error, returncode: read.returncode };
  }
}
