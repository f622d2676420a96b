import { spawnHelper } from '../core/helperLink/helperProcess.js';
import { socketPath } from '../cliArgs.js';
import { startBridgeSocket } from '../core/server/bridgeSocket.js';
import { startHttpServer, type HttpHandle } from '../core/server/httpServer.js';
import { loadOrCreateToken } from '../core/server/tokenFile.js';
import { Supervisor } from '../core/supervisor.js';
import { desktopStdioConnection, type DesktopLayout } from './desktopLayout.js';

/** The port MCP over HTTP listens on unless it is taken. */
export const DEFAULT_PORT = 7300;

/** The supervisor as the desktop app runs it, without Electron (so it is tested under plain Node). */
export interface DesktopCore {
  supervisor: Supervisor;
  mcpUrl: string;
  token: string;
  stop(): Promise<void>;
}

/**
 * Starts what the desktop app supervises with: the core with the bundled helper on the app's own
 * Node, MCP over loopback HTTP, and the local socket `overseer mcp` connects to, with a token kept
 * in the data folder across launches. The connection snippet names the installed app's CLI.
 */
export async function startDesktopCore(options: {
  layout: DesktopLayout;
  dataDir: string;
  port: number | undefined;
  execPath: string;
  env: Record<string, string | undefined>;
  log: (line: string) => void;
}): Promise<DesktopCore> {
  const { layout, dataDir, log } = options;
  const stdio = desktopStdioConnection(layout, options.execPath, dataDir);
  const supervisor = await Supervisor.start({
    dataDir,
    helperEnv: options.env,
    log,
    connection: { mcp_url: '', ...stdio },
    spawnHelper: (env) => spawnHelper(env, layout.helper),
  });
  try {
    const token = await loadOrCreateToken(dataDir);
    const http = await listen(supervisor, options.port, token, log);
    const mcpUrl = `http://127.0.0.1:${http.port}/mcp`;
    supervisor.setConnection({ mcp_url: mcpUrl, ...stdio, mcp_token: token });
    const bridge = await startBridgeSocket(supervisor, { path: socketPath(dataDir), token, log });
    return {
      supervisor,
      mcpUrl,
      token,
      async stop() {
        bridge.close();
        await http.close().catch(() => {});
        await supervisor.stop().catch((error: unknown) => log(`[desktop] stopping the supervisor: ${String(error)}`));
      },
    };
  } catch (error) {
    await supervisor.stop().catch(() => {});
    throw error;
  }
}

/** Listens on loopback: the usual port, or any free one when it is taken (Settings shows which). */
async function listen(supervisor: Supervisor, port: number | undefined, token: string, log: (line: string) => void): Promise<HttpHandle> {
  try {
    return await startHttpServer(supervisor, { host: '127.0.0.1', port: port ?? DEFAULT_PORT, token, log });
  } catch (error) {
    if (port !== undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    log(`[desktop] port ${DEFAULT_PORT} is taken; MCP listens on another port (see Settings)`);
    return startHttpServer(supervisor, { host: '127.0.0.1', port: 0, token, log });
  }
}
