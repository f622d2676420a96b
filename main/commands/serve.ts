import { join } from 'node:path';
import { startBridgeSocket } from '../core/server/bridgeSocket.js';
import { startHttpServer } from '../core/server/httpServer.js';
import { staticFiles } from '../core/server/staticFiles.js';
import { MIN_TOKEN_LENGTH, UI_SECRET_FILE, loadOrCreateSecret, newToken, writeTokenFile } from '../core/server/tokenFile.js';
import { PAIR_LINK_TTL_MS, PAIR_PATH, UiAuth } from '../core/server/uiAuth.js';
import { REPO_ROOT } from '../core/paths.js';
import { Supervisor } from '../core/supervisor.js';
import { defaultDataDir, isLoopback, parseFlags, socketPath } from '../cliArgs.js';
import { startDemoDesktop } from '../../desktop/demoDesktop.js';

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** `overseer serve`: the headless supervisor with the browser UI. */
export async function serve(argv: readonly string[]): Promise<void> {
  const { flags } = parseFlags(argv, ['demo']);
  const host = String(flags.get('host') ?? '127.0.0.1');
  if (!isLoopback(host)) throw new Error(`--host ${host} is not a loopback address: Overseer never listens on the network`);
  const port = Number(flags.get('port') ?? 7300);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${String(flags.get('port'))} is not a port number`);
  const token = String(flags.get('token') ?? process.env['OVERSEER_TOKEN'] ?? newToken());
  if (token.length < MIN_TOKEN_LENGTH) throw new Error('the token must be at least 16 characters');
  const dataDir = String(flags.get('data-dir') ?? defaultDataDir());
  const demo = flags.get('demo') === true ? await startDemoDesktop(log) : undefined;
  const helperEnv = demo?.env ?? process.env;
  const stdioCommand = ['npx', 'overseer', 'mcp', ...(flags.has('data-dir') ? ['--data-dir', dataDir] : [])];
  let supervisor: Supervisor | undefined;
  try {
    // OVERSEER_PROGRESS_INTERVAL_MS: how often a waiting call reports progress (tests shorten it; default 5 s).
    const progress = Number(process.env['OVERSEER_PROGRESS_INTERVAL_MS']);
    supervisor = await Supervisor.start({ dataDir, helperEnv, log, connection: { mcp_url: '', stdio_command: stdioCommand }, ...(Number.isInteger(progress) && progress > 0 ? { progressIntervalMs: progress } : {}) });
    // Two credentials (docs/security.md): the agent token opens /mcp and the bridge; the UI secret, never given to an agent, opens the UI.
    const ui = new UiAuth(await loadOrCreateSecret(dataDir, UI_SECRET_FILE));
    const http = await startHttpServer(supervisor, { host, port, token, ui, log, staticHandler: staticFiles(join(REPO_ROOT, 'dist', 'renderer')) });
    const base = `http://${host.includes(':') ? `[${host}]` : host}:${http.port}`;
    const link = (ttlMs?: number): { url: string; expires_at: string } => {
      const { code, expiresAt } = ui.issueCode(ttlMs);
      return { url: `${base}${PAIR_PATH}?code=${code}`, expires_at: Number.isFinite(expiresAt) ? new Date(expiresAt).toISOString() : 'when used' };
    };
    supervisor.pairLink = () => link(PAIR_LINK_TTL_MS);
    supervisor.setConnection({ mcp_url: `${base}/mcp`, stdio_command: stdioCommand });
    await writeTokenFile(dataDir, token);
    const bridge = await startBridgeSocket(supervisor, { path: socketPath(dataDir), token, log });
    process.stdout.write(`Overseer UI: ${link().url}\nMCP: ${base}/mcp\n`);
    const s = supervisor;
    let stopping = false;
    const stop = async (): Promise<void> => {
      if (stopping) return;
      stopping = true;
      bridge.close();
      await http.close();
      await s.stop();
      await demo?.stop();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  } catch (error) {
    await supervisor?.stop().catch(() => {});
    await demo?.stop();
    throw error;
  }
}
