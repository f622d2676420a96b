import { MAX_FRAME_BYTES, OverseerError } from '../protocol/index.js';
import { createBackend, wantedBackend } from './backendChoice.js';
import { Prefetcher } from './core/prefetch.js';
import { HelperService } from './core/service.js';
import { screenMethods } from './screenWiring.js';
import { findSession } from './session/findSession.js';
import { FdTransport } from './rpc/fdTransport.js';
import { RpcPeer } from '../rpc/rpcPeer.js';
import { StreamTransport } from '../rpc/stdioTransport.js';

/**
 * The accessibility helper: JSON-RPC 2.0 over stdio, one frame a line. stdout carries frames
 * only; logs go to stderr; the process exits when stdin closes (parent death).
 */
let stderrGone = false;
// When the parent dies, stderr and stdout are dead pipes. A failed write must never become an
// uncaught error whose log line fails again: that loop starves the timers and keeps the helper alive.
process.stderr.on('error', () => {
  stderrGone = true;
});
const log = (line: string): void => {
  if (stderrGone || !process.stderr.writable) return;
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    stderrGone = true;
  }
};

/** Frames over stdin/stdout (never touched under the fd transport: Wine's node has no pipe streams). */
function streamTransport(): StreamTransport {
  // The transport learns from stdin that the parent is gone; a failed write to the dead pipe must not become uncaught.
  process.stdout.on('error', () => {});
  return new StreamTransport(process.stdin, process.stdout, MAX_FRAME_BYTES);
}

/**
 * A helper started over ssh (OVERSEER_FIND_SESSION=1) finds the user's graphical session itself when
 * the connection gave no display or bus (docs/connections.md#finding-the-desktop). None found: every
 * call, hello included, answers connection_unavailable with what was tried.
 */
function sessionError(): OverseerError | undefined {
  if (process.env['OVERSEER_FIND_SESSION'] !== '1' || process.platform !== 'linux') return undefined;
  try {
    const session = findSession(process.env);
    Object.assign(process.env, session.env);
    log(`[helper] session: ${session.tried.join('; ')}`);
    return undefined;
  } catch (error) {
    if (!(error instanceof OverseerError)) throw error;
    log(`[helper] no session: ${error.info.detail}`);
    return error;
  }
}

async function main(): Promise<void> {
  const noSession = sessionError();
  const backend = await createBackend(wantedBackend(process.env, process.platform), log);
  let startError: OverseerError | undefined = noSession;
  try {
    if (noSession === undefined) await backend.start();
  } catch (error) {
    // Keep serving: every call answers the typed reason (accessibility_unavailable, no_interactive_desktop).
    startError = error instanceof OverseerError ? error : undefined;
    log(`[helper] backend ${backend.name} did not start: ${error instanceof Error ? error.message : String(error)}`);
    if (startError === undefined) throw error;
  }
  // The screen tier makes no new pictures while the supervisor has not read the last ones (the transport is made below).
  const screen = screenMethods(backend, log, () => transport.backlog);
  const service = new HelperService(backend, log, screen);
  // On by default; OVERSEER_PREFETCH=0 measures (and runs) without it (docs/performance.md#prefetch).
  const prefetcher =
    startError === undefined && backend.onWindowShown !== undefined && process.env['OVERSEER_PREFETCH'] !== '0' ? new Prefetcher(backend, log) : undefined;
  if (prefetcher !== undefined) backend.onWindowShown?.((window) => prefetcher.shown(window));
  let greeted = false;
  // OVERSEER_HELPER_STDIO=fd: raw descriptors, for Windows builds of Node under Wine (no pipe streams there).
  const transport = process.env['OVERSEER_HELPER_STDIO'] === 'fd' ? new FdTransport(MAX_FRAME_BYTES, log) : streamTransport();
  const peer = new RpcPeer(
    transport,
    async (method, params, signal) => {
      if (startError !== undefined && (method !== 'hello' || startError === noSession)) throw startError;
      const done = prefetcher?.busy();
      try {
        return await service.handle(method, params, signal);
      } finally {
        done?.();
        // The supervisor's exclusions arrive with hello: only then is the foreground window prefetched.
        if (method === 'hello' && !greeted) {
          greeted = true;
          prefetcher?.foreground();
        }
      }
    },
    log,
  );
  backend.onChange?.((pids) => peer.notify('desktop_changed', { pids }));
  peer.onclose = () => {
    // The parent is gone: release what the screen tier holds (keys, the keymap) if it answers at once, then exit regardless.
    const bounded = new Promise((resolve) => setTimeout(resolve, 500).unref());
    prefetcher?.stop();
    void Promise.race([Promise.allSettled([screen.close(), backend.stop()]), bounded]).finally(() => process.exit(0));
  };
  peer.start();
  log(`[helper] ready: backend ${backend.name}, pid ${process.pid}`);
}

process.on('uncaughtException', (error) => {
  // A write to the dead parent's pipes: it is going away; nothing to report, and reporting would fail again.
  if ((error as NodeJS.ErrnoException).code === 'EPIPE') {
    stderrGone = true;
    return;
  }
  log(`[helper] uncaught: ${error.stack ?? error.message}`);
});
process.on('unhandledRejection', (reason) => log(`[helper] unhandled rejection: ${String(reason)}`));
main().catch((error: unknown) => {
  log(`[helper] fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
