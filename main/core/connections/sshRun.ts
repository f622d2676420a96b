// One run of the system's ssh with bounded output (docs/connections.md#remote_exec-over-ssh): whatever the
// remote prints, the supervisor keeps at most `maxBytes` of each stream (and the last bytes of
// stderr, where remote_exec's exit marker is), and a run past its deadline is ended.
import { spawn } from 'node:child_process';
import { SSH } from './sshArgs.js';

/** How one ssh run ended. */
export interface SshRun {
  /** ssh's exit code (null when a signal ended it). */
  code: number | null;
  stdout: Buffer;
  /** The first bytes of stderr, up to maxBytes + the room the exit marker needs. */
  stderr: Buffer;
  /** The last bytes of stderr (the exit marker). */
  stderrTail: Buffer;
  stdoutBytes: number;
  stderrBytes: number;
  durationMs: number;
  /** Why ssh was ended before it finished: its deadline passed, or the caller aborted. */
  killed: 'timeout' | 'aborted' | undefined;
}

/** Options of runSsh. */
export interface SshRunOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Bytes written to ssh's stdin, then closed (else stdin is empty). */
  input?: Buffer;
  signal?: AbortSignal;
  /** Sees each chunk of stderr as it comes (remote_exec learns its command's process group there). */
  onStderr?: (chunk: Buffer) => void;
}

/** Bytes of stderr's end kept for the exit marker. */
const TAIL_BYTES = 512;

/** Runs `ssh args…` to its end, keeping at most maxBytes of each stream. */
export function runSsh(args: readonly string[], options: SshRunOptions): Promise<SshRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(SSH, [...args], { stdio: [options.input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const out = bounded(options.maxBytes);
    const err = bounded(options.maxBytes + TAIL_BYTES);
    let tail = Buffer.alloc(0);
    child.stdout?.on('data', (chunk: Buffer) => out.add(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      options.onStderr?.(chunk);
      err.add(chunk);
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
    });
    let killed: SshRun['killed'];
    const end = (why: 'timeout' | 'aborted'): void => {
      killed ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => end('timeout'), options.timeoutMs);
    const abort = (): void => end('aborted');
    if (options.signal?.aborted === true) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    if (options.input !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => {});
      child.stdin.end(options.input);
    }
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      resolve({
        code,
        stdout: out.bytes(),
        stderr: err.bytes(),
        stderrTail: tail,
        stdoutBytes: out.total,
        stderrBytes: err.total,
        durationMs: performance.now() - started,
        killed,
      });
    });
  });
}

/** A byte sink that keeps the first `max` bytes and counts the rest. */
function bounded(max: number): { add(chunk: Buffer): void; bytes(): Buffer; total: number } {
  const kept: Buffer[] = [];
  let size = 0;
  const sink = {
    total: 0,
    add(chunk: Buffer): void {
      sink.total += chunk.length;
      if (size >= max) return;
      const part = chunk.subarray(0, max - size);
      kept.push(part);
      size += part.length;
    },
    bytes: (): Buffer => Buffer.concat(kept),
  };
  return sink;
}
