import { z } from 'zod';

/** The closed set of error codes (docs/tools.md#errors), used in refusals and tool errors alike. */
export const ERROR_CODES = [
  'invalid_argument',
  'not_found',
  'ambiguous',
  'unreadable',
  'incomplete_scan',
  'pattern_unsupported',
  'not_enabled',
  'stale_process',
  'stale_window',
  'stale_element',
  'snapshot_unknown',
  'snapshot_expired',
  'snapshot_spent',
  'snapshot_superseded',
  'snapshot_evicted',
  'excluded_target',
  'target_elevated',
  'accessibility_unavailable',
  'no_interactive_desktop',
  'timeout',
  'helper_unavailable',
  'denied',
  'expired',
  'braked',
  'withdrawn',
  'stale_screen',
  'capture_unavailable',
  'input_unavailable',
  'connection_unavailable',
  'wrong_connection',
  'application_unresponsive',
  'window_gone',
  'internal',
] as const;

/** One of the error codes of docs/tools.md#errors. */
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** What each code means, and which `data` fields it carries. Shown to agents and people. */
export const ERROR_DOCS: Record<ErrorCode, string> = {
  invalid_argument:
    'The request is malformed: wrong type, unknown field, blank or oversized text. data.issues lists each problem with its path (the first 20; data.issue_count says how many there were when there were more). A tool of a tier not activated: data.reason "tier_inactive" and data.activate, the call to make.',
  not_found: 'No element or window matched after the whole window was searched. data.searched_whole_window is true.',
  ambiguous:
    'A selector matched several elements and no nth was given; nothing was picked. data.match_count, data.candidates (the first 10, each with its nth and, when window was given, a target) and data.truncated.',
  unreadable: 'An element or window did not answer a field the request needs. data.fields names them.',
  incomplete_scan: 'The scan was cut (timeout, budget or provider error) before a decision could be made. data.truncated_by.',
  pattern_unsupported: 'The element does not support the action. data.supported lists the patterns it does support.',
  not_enabled: 'The element is disabled (state.enabled is false); nothing was dispatched.',
  stale_process: 'The process behind the target exited or its pid was recycled (pid + start time differ).',
  stale_window: 'The window is gone or is no longer the one observed.',
  stale_element: 'The element is gone, or no longer matches what was observed (identity or digest differs).',
  snapshot_unknown:
    'The target or observation id was never issued to this agent; or (data.handle "context") the context handle is unknown, foreign or its context ended: call without it to start a new one.',
  snapshot_expired: 'The target is older than its 5-minute lifetime.',
  snapshot_spent: 'A mutating action already used this observation; read again.',
  snapshot_superseded: 'A newer observation of the same window replaced this one for acting; use its targets.',
  snapshot_evicted: 'The observation fell out of the retained set (64 observations, 512 identities).',
  excluded_target: 'The window or process is excluded from reading and acting (the supervisor itself, the agent host, or configured exclusions).',
  target_elevated: 'The target runs with higher privileges than the helper and cannot be read or driven.',
  accessibility_unavailable:
    'No accessibility tree: the bus is down, the application exports no tree, or (Chromium/Electron) renderer accessibility is off. data.reason.',
  no_interactive_desktop: 'There is no desktop session to read (no DISPLAY / session bus).',
  timeout:
    'The operation did not finish within its time budget; with data.reason "busy", the screen tier was too busy to start it (nothing was captured): wait for your other screen calls to be answered, then retry.',
  helper_unavailable: 'The accessibility helper is not running or was restarted while the call was in flight.',
  denied: 'A person or a policy rule denied the action. detail carries the reason when one was given.',
  expired: 'Nobody answered the approval request in time.',
  braked:
    'A brake (stop or emergency stop) answered the call: it was refused before dispatch, or (emergency stop) answered while in flight; during an emergency stop every call is answered so until a person re-arms, and your session stays open. data.brake names the brake.',
  withdrawn:
    'The agent that asked went away (its session ended, expired while idle, its connection closed before the answer, or its bridge closed), or it cancelled the call: the pending action left the queue and can never run. data.reason: agent_disconnected or call_cancelled.',
  stale_screen: 'The screen where an input lands changed since the screenshot it was planned on (region, window position or monitors); nothing was dispatched.',
  capture_unavailable: 'No screenshot of that window or screen can be taken here, and no other rectangle stands in for it. data.reason.',
  input_unavailable: 'Pointer and keyboard input cannot be synthesized in this session (e.g. Wayland without a portal). data.reason.',
  connection_unavailable:
    'The connection the call aims at is down, disabled, removed or unauthenticated; nothing fell back to another desktop. data.connection, data.reason (down, disabled, removed, unauthenticated, host_key_unknown, host_key_changed, unsupported_session, no_session, helper_missing), data.hint: what to fix.',
  wrong_connection:
    'The id (window, target, observation or screenshot) came from another connection than the one active for you now: nothing was read or done. data.connection (where the id came from) and data.active.',
  application_unresponsive:
    'An application stopped answering its accessibility calls: Overseer leaves it alone (no call is sent to it) and asks again later, while every other application stays fast. data.app, data.pid, data.since_ms (how long it has not answered), data.retry_after_ms (when Overseer asks it again). Wait, or work with another window.',
  window_gone: 'The window, or the application it belonged to, no longer exists. data.window. List the windows again.',
  internal: 'A bug. It was logged; the process keeps running.',
};

/** A typed error as it crosses every boundary: code, human-readable detail, documented data. */
export const ErrorInfo = z.object({
  /** The error code (docs/tools.md#errors). */
  code: ErrorCode,
  /** A sentence for a person or an agent. */
  detail: z.string(),
  /** Structured context documented per code in ERROR_DOCS. */
  data: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfo>;

/** Builds an ErrorInfo; the one place error values are made. */
export function errorInfo(code: ErrorCode, detail: string, data?: Record<string, unknown>): ErrorInfo {
  return data === undefined ? { code, detail } : { code, detail, data };
}

/** Most issues an invalid_argument error lists; `data.issue_count` says how many there were. */
export const MAX_LISTED_ISSUES = 20;
/** Longest issue message, and most unknown fields one issue names. */
const MAX_ISSUE_MESSAGE = 300;
const MAX_LISTED_KEYS = 10;
/** Longest path segment kept (a key is the agent's to choose). */
const MAX_PATH_SEGMENT = 100;

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** One issue as a sentence of bounded length: an agent's 200,000 unknown keys are named ten at a time, with the count. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const named = issue.keys.slice(0, MAX_LISTED_KEYS).map((k) => JSON.stringify(cut(k, MAX_PATH_SEGMENT)));
    const more = issue.keys.length - named.length;
    return `unknown field${issue.keys.length === 1 ? '' : 's'} ${named.join(', ')}${more > 0 ? ` and ${more.toLocaleString('en-US')} more` : ''}`;
  }
  return cut(issue.message, MAX_ISSUE_MESSAGE);
}

/** Turns zod issues into the `data.issues` of an invalid_argument error: the first MAX_LISTED_ISSUES, each bounded, and how many there were. */
export function invalidArgument(error: z.ZodError, what: string): ErrorInfo {
  const issues = error.issues.slice(0, MAX_LISTED_ISSUES).map((issue) => ({
    path: issue.path.map((p) => cut(String(p), MAX_PATH_SEGMENT)).join('.') || '(root)',
    message: issueMessage(issue),
  }));
  const first = issues[0];
  const summary = first === undefined ? 'invalid' : `${first.path}: ${first.message}`;
  const count = error.issues.length;
  return errorInfo('invalid_argument', `${what}: ${summary}${count > 1 ? ` (+${count - 1} more)` : ''}`, {
    issues,
    ...(count > issues.length ? { issue_count: count } : {}),
  });
}

/** An expected failure carried as an exception inside one process; crosses boundaries only as ErrorInfo. */
export class OverseerError extends Error {
  constructor(readonly info: ErrorInfo) {
    super(`${info.code}: ${info.detail}`);
    this.name = 'OverseerError';
  }

  get code(): ErrorCode {
    return this.info.code;
  }
}

/** Throws nothing; returns an OverseerError to `throw` at the call site (keeps control flow visible). */
export function fail(code: ErrorCode, detail: string, data?: Record<string, unknown>): OverseerError {
  return new OverseerError(errorInfo(code, detail, data));
}
