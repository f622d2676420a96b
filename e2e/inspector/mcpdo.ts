import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { PinnedTool } from '../thirdParty/install.js';

/** One server entry of an Inspector catalog (the `mcpServers` shape every MCP client reads). */
export type CatalogEntry =
  | { type: 'http'; url: string; headers?: Record<string, string>; protocolEra: 'legacy' | 'modern' }
  | { command: string; args: string[]; env?: Record<string, string>; protocolEra: 'legacy' | 'modern' };

const COMMAND_MS = 60_000;

/**
 * The MCP Inspector's CLI (`mcpdo`, pinned in e2e/thirdParty/inspector) as an agent shell runs it:
 * one command a process, against connections its daemon keeps open between commands. Everything
 * it keeps is in a folder of its own — its HOME, its catalog, its secrets file and a private,
 * token-gated daemon (`mcpdo private`) — so it touches nothing of the machine's user.
 */
export class Mcpdo {
  private constructor(
    private readonly tool: PinnedTool,
    private readonly home: string,
    private readonly env: Record<string, string>,
  ) {}

  /** A private Inspector with `entries` as its catalog; its OAuth sign-in takes the code at `callbackPort`. */
  static async start(tool: PinnedTool, entries: Record<string, CatalogEntry>, callbackPort: number): Promise<Mcpdo> {
    const home = await mkdtemp(join(tmpdir(), 'overseer-mcpdo-'));
    const catalog = join(home, 'catalog.json');
    await writeFile(catalog, JSON.stringify({ mcpServers: entries }, null, 2));
    const base: Record<string, string> = {
      ...(Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0]))) as Record<
        string,
        string
      >),
      HOME: home,
      // No keychain on a test machine: secrets go to a file in its HOME, encrypted with a key of this run.
      MCP_INSPECTOR_SECRET_STORE: 'file',
      MCP_INSPECTOR_SECRET_KEY: randomBytes(32).toString('base64url'),
      MCP_CATALOG_PATH: catalog,
      // Its sign-in helper listens here for the browser's redirect (6276 unless told).
      MCP_OAUTH_CALLBACK_URL: `http://127.0.0.1:${callbackPort}/oauth/callback`,
      // The daemon it starts runs on the same Node.
      PATH: `${dirname(tool.node)}${delimiter}${process.env.PATH ?? ''}`,
    };
    const inspector = new Mcpdo(tool, home, base);
    const exports = await inspector.run(['private']);
    for (const [, key, value] of exports.stdout.matchAll(/^export (\w+)='([^']*)'$/gm)) if (key !== undefined && value !== undefined) base[key] = value;
    if (base.MCP_INSPECTOR_DAEMON_DIR === undefined) throw new Error(`mcpdo private printed no daemon folder: ${exports.stdout}${exports.stderr}`);
    return inspector;
  }

  /** Runs one command (stdin closed, as from an agent's shell); resolves with its exit code and output, whatever the code. */
  run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = execFile(
        this.tool.node,
        [this.tool.cli, ...args],
        { env: this.env, timeout: COMMAND_MS, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
      child.stdin?.end();
    });
  }

  /** Runs one command with `--format json` and parses its answer; throws with its words when it failed. */
  async json<T = Record<string, unknown>>(args: string[]): Promise<T> {
    const r = await this.run(['--format', 'json', ...args]);
    if (r.code !== 0) throw new Error(`mcpdo ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
    try {
      return JSON.parse(r.stdout) as T;
    } catch {
      throw new Error(`mcpdo ${args.join(' ')} printed no JSON: ${r.stdout}${r.stderr}`);
    }
  }

  /**
   * Stops its daemon (every connection with it) and any sign-in helper still waiting for a browser
   * (each leaves a marker with its pid in the daemon's folder), then removes its folders.
   */
  async stop(): Promise<void> {
    await this.run(['daemon', 'stop']);
    const daemonDir = this.env.MCP_INSPECTOR_DAEMON_DIR;
    if (daemonDir !== undefined) {
      for (const name of await readdir(daemonDir).catch(() => [] as string[])) {
        if (!/^pending-auth-.*\.json$/.test(name)) continue;
        const marker = JSON.parse(await readFile(join(daemonDir, name), 'utf8').catch(() => '{}')) as { pid?: unknown };
        if (typeof marker.pid === 'number') {
          try {
            process.kill(marker.pid);
          } catch {
            // Gone already.
          }
        }
      }
      await rm(daemonDir, { recursive: true, force: true });
    }
    await rm(this.home, { recursive: true, force: true });
  }
}
