import { homedir } from 'node:os';
import { join } from 'node:path';

/** Flags of a command line: `--name value` and bare `--flag`. */
export function parseFlags(argv: readonly string[], booleans: readonly string[]): { flags: Map<string, string | true>; rest: string[] } {
  const flags = new Map<string, string | true>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
    if (inline !== undefined) flags.set(name, inline);
    else if (booleans.includes(name)) flags.set(name, true);
    else {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value`);
      flags.set(name, v);
      i++;
    }
  }
  return { flags, rest };
}

/** The user's data folder for Overseer (journal, settings, token, socket). */
export function defaultDataDir(): string {
  if (process.platform === 'win32') return join(process.env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), 'Overseer');
  return join(process.env['XDG_DATA_HOME'] ?? join(homedir(), '.local', 'share'), 'overseer');
}

/** True for loopback addresses only: listeners never face the network. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The local socket path of a data folder (a named pipe on Windows). */
export function socketPath(dataDir: string): string {
  return process.platform === 'win32' ? `\\\\.\\pipe\\overseer-${Buffer.from(dataDir).toString('base64url').slice(0, 40)}` : join(dataDir, 'overseer.sock');
}
