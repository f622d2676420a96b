// What the helper's and the supervisor's clients of an OSWorld in-VM server agree on
// (docs/connections.md#osworld): the default budget of a call, how a failed request is told to the
// person, and how an answer of POST /execute reads. Each client wraps these in its own typed errors.

import type { HttpAnswer, HttpFailure } from './boundedHttp.js';

/** Default budget of one call (the real server's own /execute timeout is 120 s; ours is shorter). */
export const OSWORLD_TIMEOUT_MS = 30_000;

/** Why an OSWorld server was not reached as the connection error's `reason` says it. */
export type OsworldDownReason = 'down' | 'connection_lost' | 'timeout' | 'bad_answer';

/**
 * A failed request (not cancelled by the caller) as the connection error says it: its reason, and
 * what the person can do. `timeoutMs` is the call's budget, `configuredMs` the connection's.
 */
export function osworldDown(
  failure: Pick<HttpFailure, 'kind' | 'message'>,
  url: string,
  timeoutMs: number,
  configuredMs: number,
): { reason: OsworldDownReason; detail: string; hint: string } {
  switch (failure.kind) {
    case 'timeout':
      return {
        reason: 'timeout',
        detail: failure.message,
        hint: `the server did not answer within ${timeoutMs} ms; check the VM, or raise the connection's timeout_ms (now ${configuredMs} ms)`,
      };
    case 'too_big':
      return { reason: 'bad_answer', detail: failure.message, hint: BAD_ANSWER_HINT };
    case 'connection_lost':
      return {
        reason: 'connection_lost',
        detail: failure.message,
        hint: 'the server stopped answering in the middle of the call; check the VM, then test the connection',
      };
    case 'down':
    case 'cancelled':
      return {
        reason: 'down',
        detail: `${url} is not reachable (${failure.message})`,
        hint: `start the OSWorld server in the VM and check that ${url} is reachable from this machine`,
      };
  }
}

/** What the person can do about a server that does not answer as an OSWorld server does. */
export const BAD_ANSWER_HINT = 'the server at this URL does not answer as an OSWorld server does; check the URL and the server version';

/** An answer of POST /execute as both clients read it. */
export interface ExecuteRead {
  /** The server ran the command: HTTP 200, status "success" and a numeric return code. */
  ran: boolean;
  /** HTTP status of the answer. */
  http: number;
  /** Whether the body was a JSON object (else every field below is empty). */
  json: boolean;
  /** The answer's own `status` ("success", "error", …). */
  status: unknown;
  returncode: number | undefined;
  output: string;
  error: string;
  /** The server's own `message` (at most 500 characters); empty when it gave none. */
  message: string;
}

/** Reads an /execute answer, whatever it is: what to make of it is the caller's. */
export function readExecute(answer: HttpAnswer): ExecuteRead {
  let parsed: Record<string, unknown> | undefined;
  try {
    const value: unknown = JSON.parse(answer.body.toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) parsed = value as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
  const returncode = typeof parsed?.['returncode'] === 'number' ? parsed['returncode'] : undefined;
  return {
    ran: answer.status === 200 && parsed?.['status'] === 'success' && returncode !== undefined,
    http: answer.status,
    json: parsed !== undefined,
    status: parsed?.['status'],
    returncode,
    output: typeof parsed?.['output'] === 'string' ? parsed['output'] : '',
    error: typeof parsed?.['error'] === 'string' ? parsed['error'] : '',
    message: typeof parsed?.['message'] === 'string' ? parsed['message'].slice(0, 500) : '',
  };
}
