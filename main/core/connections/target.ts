// A connection's transport (docs/connections.md): where its helper runs and how its stream
// travels, how a command runs there (remote_exec), and how it is tested. The supervisor holds one
// HelperSupervisor per connection, started through `spawnHelper`; nothing here ever falls back to
// another connection.
import type { ConnectionKind, ConnectionTest } from '../../../protocol/index.js';
import type { HelperProcess } from '../helperLink/helperProcess.js';

/** How a remote_exec ended. `exit_code` is null when it was ended by its timeout or a signal. */
export interface ExecOutcome {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  duration_ms: number;
  timed_out?: boolean;
  /**
   * Set when the caller's signal ended it before it finished: `ended` when its processes on the
   * remote were ended too, `unknown` when the transport cannot tell or cannot end them there.
   */
  stopped?: 'ended' | 'unknown';
}

/** What remote_exec asks of a transport. */
export interface ExecOptions {
  timeoutMs: number;
  /** Most bytes kept of stdout, and of stderr. */
  maxBytes: number;
  signal?: AbortSignal;
}

/**
 * One connection's transport. Every failure to reach it is an OverseerError `connection_unavailable`
 * with `data: {connection, reason, hint}`; a transport that broke in the middle of a mutating call
 * leaves that call's outcome `unknown` (the caller never retries it).
 */
export interface ConnectionTarget {
  readonly name: string;
  readonly kind: ConnectionKind;
  /** Where it goes, as people read it (user@host:port, the URL). */
  readonly where: string;
  /**
   * Makes the helper ready to start (ssh: the bundle installed on the remote under its hash).
   * Called before the first spawn and again when a spawn found the helper missing.
   */
  prepare?(signal?: AbortSignal): Promise<void>;
  /** Starts this connection's helper; the connection's HelperSupervisor calls it on every (re)start. */
  spawnHelper(env: Record<string, string | undefined>): HelperProcess;
  /**
   * Runs a shell command there (never on local: the local target refuses). The signal (the agent
   * left, a brake) ends it there too where the transport can (ssh: its process group), and answers
   * with `stopped`.
   */
  exec(command: string, options: ExecOptions): Promise<ExecOutcome>;
  /** Ends every command it runs now, on the remote too where it can (the emergency stop, before `close`). */
  endCommands?(why: string): Promise<void>;
  /** Reaches it, authenticates, and asks its helper who it is (read-only). */
  test(signal?: AbortSignal): Promise<ConnectionTest>;
  /** Ends what it holds open (the ssh master connection); its helper is stopped by its supervisor first. */
  close(): Promise<void>;
}
