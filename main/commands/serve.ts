import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startBridgeSocket } from '../core/server/bridgeSocket.js';
import { startHttpServer } from '../core/server/httpServer.js';
import { staticFiles } from '../core/server/staticFiles.js';
import { MIN_TOKEN_LENGTH, UI_SECRET_FILE, loadOrCreateSecret, newToken, writeTokenFile } from '../core/server/tokenFile.js';
import { PAIR_LINK_TTL_MS, PAIR_PATH, UiAuth } from '../core/server/uiAuth.js';
import { REPO_ROOT } from '../core/runtime/paths.js';
import type { TargetFactory } from '../core/connections/makeTarget.js';
import { Supervisor } from '../core/supervisor.js';
import { defaultDataDir, isLoopback, parseFlags, socketPath } from '../cliArgs.js';
import { startDemoDesktop } from '../../desktop/demoDesktop.js';

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** What an entry point other than the command line may give serve. */
export interface ServeOptions {
  /** How connections reach their desktops; the real transports when absent. Only the test entry main/testing/serveWithTargets.ts passes one. */
  makeTarget?: TargetFactory;
}

/** `overseer serve`: the headless supervisor with the browser UI. */
export async function serve(argv: readonly string[], options: ServeOptions = {}): Promise<void> {
  const { flags } = parseFlags(argv, ['demo']);
  const host = String(flags.get('host') ?? '127.0.0.1');
  if (!isLoopback(host)) throw new Error(`--host ${host} is not a loopback address: Overseer never listens on the network`);
  const port = Number(flags.get('port') ?? 7300);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${String(flags.get('port'))} is not a port number`);
  const token = String(flags.get('token') ?? process.env['OVERSEER_TOKEN'] ?? newToken());
  if (token.length < MIN_TOKEN_LENGTH) throw new Error('the token must be at least 16 characters');
  const demoMode = flags.get('demo') === true;
  // Ctrl-C or SIGTERM while starting: remembered, and honoured as soon as there is something to stop.
  let stopRequested = false;
  let stopNow: (() => void) | undefined;
  const onSignal = (): void => {
    if (stopNow !== undefined) return stopNow();
    if (!stopRequested) log('[serve] stopping once started');
    stopRequested = true;
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
  // Under `npx`/`npm exec`, npm passes signals to the `sh -c` it started, not to us: Debian's dash
  // dies of SIGTERM and leaves us orphaned (a terminal's Ctrl-C reaches us directly). The shell
  // gone means npm is stopping: stop as if signalled.
  if (process.env['npm_command'] === 'exec') {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) onSignal();
    }, 250).unref();
  }
  const demo = demoMode ? await startDemoDesktop(log) : undefined;
  // The demo keeps nothing of the person's: its journal, token and settings live in a folder of its own.
  const tempData = demoMode && !flags.has('data-dir') ? await mkdtemp(join(tmpdir().length <= 60 ? tmpdir() : '/tmp', 'overseer-demo-')) : undefined;
  const dataDir = tempData ?? resolve(String(flags.get('data-dir') ?? defaultDataDir()));
  if (tempData !== undefined) log(`[demo] data dir ${tempData} (journal, token, settings), removed when the demo stops; --data-dir DIR keeps one`);
  const removeTempData = async (): Promise<void> => {
    if (tempData !== undefined) await rm(tempData, { recursive: true, force: true });
  };
  const helperEnv = demo?.env ?? process.env;
  // Absolute paths: the client may launch it from any folder, and never through npx (which could fetch a package of that name).
  const stdioCommand = [process.execPath, join(REPO_ROOT, 'bin', 'overseer.mjs'), 'mcp', '--data-dir', dataDir];
  let supervisor: Supervisor | undefined;
  try {
    // OVERSEER_PROGRESS_INTERVAL_MS: how often a waiting call reports progress (tests shorten it; default 5 s).
    const progress = Number(process.env['OVERSEER_PROGRESS_INTERVAL_MS']);
    supervisor = await Supervisor.start({
      dataDir,
      helperEnv,
      log,
      ...(options.makeTarget !== undefined ? { makeTarget: options.makeTarget } : {}),
      connection: { mcp_url: '', stdio_command: stdioCommand },
      ...(Number.isInteger(progress) && progress > 0 ? { progressIntervalMs: progress } : {}),
    });
    // Two credentials (docs/security.md): the agent token opens /mcp and the bridge; the UI secret, never given to an agent, opens the UI.
    const ui = new UiAuth(await loadOrCreateSecret(dataDir, UI_SECRET_FILE));
    const http = await startHttpServer(supervisor, { host, port, token, ui, log, staticHandler: staticFiles(join(REPO_ROOT, 'dist', 'renderer')) });
    const base = `http://${host.includes(':') ? `[${host}]` : host}:${http.port}`;
    const link = (ttlMs?: number): { url: string; expires_at: string } => {
      const { code, expiresAt } = ui.issueCode(ttlMs);
      return { url: `${base}${PAIR_PATH}?code=${code}`, expires_at: Number.isFinite(expiresAt) ? new Date(expiresAt).toISOString() : 'when used' };
    };
    supervisor.pairLink = () => link(PAIR_LINK_TTL_MS);
    supervisor.setConnection({ mcp_url: `${base}/mcp`, stdio_command: stdioCommand, mcp_token: token });
    await writeTokenFile(dataDir, token);
    const bridge = await startBridgeSocket(supervisor, { path: socketPath(dataDir), token, log });
    process.stdout.write(`Overseer UI: ${link().url}\nMCP: ${base}/mcp\n`);
    const s = supervisor;
    let stopping = false;
    stopNow = () => {
      if (stopping) return;
      stopping = true;
      void (async () => {
        bridge.close();
        await http.close();
        await s.stop();
        await demo?.stop();
        await removeTempData();
        log(demo === undefined ? '[serve] stopped' : `[demo] stopped: desktop, helper${tempData !== undefined ? ' and data dir' : ''} removed`);
        process.exit(0);
      })().catch((error: unknown) => {
        log(`[serve] stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      });
    };
    if (stopRequested) stopNow();
  } catch (error) {
    await supervisor?.stop().catch(() => {});
    await demo?.stop();
    await removeTempData();
    throw error;
  }
}
