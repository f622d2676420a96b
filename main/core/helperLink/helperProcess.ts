import { spawn, type ChildProcess } from 'node:child_process';
import { HELPER_METHODS, MAX_FRAME_BYTES, fail, isHelperReadResult, type HelperMethod, type HelperParams, type HelperResult } from '../../../protocol/index.js';
import { RpcPeer } from '../../../rpc/rpcPeer.js';
import { StreamTransport } from '../../../rpc/stdioTransport.js';
import { phase } from '../runtime/callProfile.js';
import { REPO_ROOT } from '../runtime/paths.js';

/**
 * Answers checked by hand before zod: a read's recursive tree is the costliest parse of all, and
 * the check passes only what the schema would accept unchanged (anything else still meets zod).
 */
const FAST_CHECKS: Partial<Record<HelperMethod, (value: unknown) => boolean>> = { window_read: isHelperReadResult };

/** How much of the helper's stderr is kept for `stderr()` (its lines are logged as they come anyway). */
const MAX_STDERR_KEPT = 64 * 1024;

/** A running helper process and a typed, validating client for it. */
export interface HelperProcess {
  child: ChildProcess;
  peer: RpcPeer;
  /** Calls a helper method; the answer is validated against the protocol table. */
  call<M extends HelperMethod>(method: M, params: HelperParams<M>, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<HelperResult<M>>;
  /** The last 64 KiB the helper wrote on stderr. */
  stderr(): string;
  /** Called with each whole line the helper writes on stderr (a line split across chunks comes once, whole). */
  onStderrLine: ((line: string) => void) | undefined;
  /** Closes stdin and waits for the exit code. */
  close(): Promise<number | null>;
  exited: Promise<number | null>;
}

/** How to start the helper: an executable, its arguments, and environment added to the caller's. */
export interface HelperCommand {
  file: string;
  args: readonly string[];
  cwd: string;
  env?: Record<string, string>;
}

/** From the sources: `node --import tsx helper/main.ts`. */
export const SOURCE_HELPER: HelperCommand = { file: process.execPath, args: ['--import', 'tsx', 'helper/main.ts'], cwd: REPO_ROOT };

/** Starts the helper with the given environment (from the sources unless told otherwise). */
export function spawnHelper(env: Record<string, string | undefined> = process.env, command: HelperCommand = SOURCE_HELPER): HelperProcess {
  const child = spawn(command.file, [...command.args], { cwd: command.cwd, env: { ...env, ...command.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  // The latest stderr only: a helper that runs for weeks must not grow the supervisor's memory.
  let err = '';
  // Decoded as a stream, so a character split across chunks stays whole.
  child.stderr.setEncoding('utf8');
  let partial = '';
  child.stderr.on('data', (text: string) => {
    err += text;
    if (err.length > MAX_STDERR_KEPT) err = err.slice(-MAX_STDERR_KEPT);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    // A line that never ends is still bounded: it comes out in pieces of the kept size.
    if (partial.length > MAX_STDERR_KEPT) {
      lines.push(partial);
      partial = '';
    }
    for (const line of lines) helper.onStderrLine?.(line);
  });
  child.stderr.once('end', () => {
    if (partial !== '') helper.onStderrLine?.(partial);
    partial = '';
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const peer = new RpcPeer(new StreamTransport(child.stdout, child.stdin, MAX_FRAME_BYTES * 8));
  peer.start();
  const helper: HelperProcess = {
    onStderrLine: undefined,
    child,
    peer,
    async call(method, params, options) {
      const result = await peer.request(method, params, options);
      const checked = phase('helper_check');
      if (FAST_CHECKS[method]?.(result) === true) {
        checked();
        return result as HelperResult<typeof method>;
      }
      const parsed = HELPER_METHODS[method].result.safeParse(result);
      checked();
      if (!parsed.success) throw fail('internal', `helper answer to ${method} broke its schema: ${parsed.error.message.slice(0, 500)}`);
      return parsed.data as HelperResult<typeof method>;
    },
    stderr: () => err,
    async close() {
      child.stdin.end();
      return exited;
    },
    exited,
  };
  return helper;
}
