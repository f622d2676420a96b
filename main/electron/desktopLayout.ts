import { join } from 'node:path';
import type { HelperCommand } from '../core/helperLink/helperProcess.js';
import type { AgentConnectInfo } from '../../protocol/index.js';

/** Where the desktop app finds what it runs, from Electron's app path. */
export interface DesktopLayout {
  /** The built renderer (read through the app's own scheme). */
  rendererRoot: string;
  /** The sandboxed preload bundle. */
  preload: string;
  /** The helper, run by Electron's own Node (ELECTRON_RUN_AS_NODE). */
  helper: HelperCommand;
  /** The CLI bundle agents run for `overseer mcp`. */
  cli: string;
  /** Tray and window icons. */
  icons: { app: string; idle: string; pending: string; braked: string };
}

/**
 * Lays out the app. Packaged, the helper and CLI run from `app.asar.unpacked` (a child process
 * started with a path inside an archive would depend on asar support in Node mode; unpacked, it
 * is an ordinary file); the renderer, preload and icons are read from the archive by Electron.
 */
export function desktopLayout(options: { appPath: string; packaged: boolean; execPath: string }): DesktopLayout {
  const app = options.appPath;
  const unpacked = options.packaged ? app.replace(/app\.asar$/, 'app.asar.unpacked') : app;
  const helperEntry = join(unpacked, 'dist', 'helper', 'main.mjs');
  const assets = join(app, 'assets');
  return {
    rendererRoot: join(app, 'dist', 'renderer'),
    preload: join(app, 'dist', 'electron', 'preload.cjs'),
    helper: { file: options.execPath, args: [helperEntry], cwd: join(unpacked, 'dist', 'helper'), env: { ELECTRON_RUN_AS_NODE: '1' } },
    cli: join(unpacked, 'dist', 'cli', 'overseer.mjs'),
    icons: {
      app: join(assets, 'icon.png'),
      idle: join(assets, 'tray.png'),
      pending: join(assets, 'tray-pending.png'),
      braked: join(assets, 'tray-braked.png'),
    },
  };
}

/** How an agent's MCP client launches `overseer mcp` against this installed app. */
export function desktopStdioConnection(layout: DesktopLayout, execPath: string, dataDir: string): Pick<AgentConnectInfo, 'stdio_command' | 'stdio_env'> {
  return { stdio_command: [execPath, layout.cli, 'mcp', '--data-dir', dataDir], stdio_env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** The desktop app's own flags; anything else on its command line (Chromium switches…) is ignored. */
export interface DesktopFlags {
  dataDir?: string;
  port?: number;
  /** Start in the tray without showing the window (login items). */
  hidden: boolean;
}

/** Reads `--data-dir DIR`, `--port N` (also `--name=value`) and `--hidden`; a bad port is an error. */
export function desktopFlags(argv: readonly string[]): DesktopFlags {
  const flags: DesktopFlags = { hidden: false };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = (argv[i] as string).split('=', 2) as [string, string | undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${name} needs a value`);
      return v;
    };
    if (name === '--hidden') flags.hidden = true;
    else if (name === '--data-dir') flags.dataDir = value();
    else if (name === '--port') {
      const v = value();
      const port = Number(v);
      if (!/^\d+$/.test(v) || port > 65535) throw new Error(`--port ${v} is not a port number`);
      flags.port = port;
    }
  }
  return flags;
}
