// Typed wrappers of peer.py, the independent pyatspi reader: what an app shows over AT-SPI,
// read without any of the product's code. Each call runs Debian's /usr/bin/python3 with the
// desktop's environment, bounded by a timeout after which that child alone is killed.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type PrivateDesktop } from '../../desktop/privateDesktop.js';

const PEER = fileURLToPath(new URL('./peer.py', import.meta.url));

/** Debian's Python, which has pyatspi (a `python3` on PATH may be another one). */
const PYTHON = '/usr/bin/python3';

/** One element as the peer reads it. */
export interface PeerElement {
  /** pyatspi's role name, e.g. "push button", "entry", "table". */
  role: string;
  name: string;
  /** The Text interface's text, when it has one. */
  text?: string;
  /** The Value interface's current value, when it has one. */
  value?: number;
  /** State names, e.g. "focusable", "checked", "manages descendants". */
  states: string[];
  /** Depth under the window (the frame is 0). */
  depth: number;
  /** Children it claims: given for MANAGES_DESCENDANTS containers only. */
  children?: number;
  /** Table size of a MANAGES_DESCENDANTS table (its children are never listed). */
  rows?: number;
  columns?: number;
  /** A MANAGES_DESCENDANTS container small enough that its children were listed. */
  managed?: boolean;
}

/** Which window: the application's registry name and the window's exact title. */
export interface PeerWindow {
  app: string;
  title: string;
}

/** The answer of a ping. */
export type PeerPing = { ok: true; ms: number } | { ok: false; error: string };

/** The answer of a watch. */
export interface PeerWatch {
  pings: number;
  failures: number;
  /** Slowest and 95th percentile of the answered pings, ms (null when none answered). */
  max_ms: number | null;
  p95_ms: number | null;
  /** Longest wait for a ping that went unanswered past its timeout, ms. */
  max_stall_ms: number;
  errors: string[];
}

/** Run peer.py with `args`; resolves with its JSON, rejects with its error or when it overruns `timeoutMs`. */
async function runPeer(desktop: PrivateDesktop, args: string[], timeoutMs: number): Promise<unknown> {
  const child = spawn(PYTHON, [PEER, ...args], { env: desktop.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL'); // this child only, by its pid
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).finally(() => clearTimeout(timer));
  const what = `[peer] ${args.slice(0, 5).join(' ')}`;
  if (timedOut) throw new Error(`${what}: no answer within ${timeoutMs} ms ${stderr.trim()}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`${what}: exit ${String(code)}, not JSON: ${stdout.slice(0, 500)} ${stderr.slice(-1500)}`);
  }
  if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) throw new Error(`${what}: ${JSON.stringify(parsed)}`);
  return parsed;
}

/** Options of peerRead and peerFind. */
export interface PeerReadOptions {
  /** Stop after this many elements (default 5000). */
  maxNodes?: number;
  /** Look again every 100 ms until the window (find: the element) is there, this long. */
  waitMs?: number;
  /** Kill the peer after this long (default waitMs + 30 s). */
  timeoutMs?: number;
}

const readArgs = (w: PeerWindow, o: PeerReadOptions): string[] => [
  '--app',
  w.app,
  '--title',
  w.title,
  ...(o.maxNodes !== undefined ? ['--max-nodes', String(o.maxNodes)] : []),
  ...(o.waitMs !== undefined ? ['--wait-ms', String(o.waitMs)] : []),
];

/** The window's elements in document order, never entering a MANAGES_DESCENDANTS table. */
export async function peerRead(desktop: PrivateDesktop, window: PeerWindow, options: PeerReadOptions = {}): Promise<PeerElement[]> {
  const answer = (await runPeer(desktop, ['read', ...readArgs(window, options)], options.timeoutMs ?? (options.waitMs ?? 0) + 30_000)) as {
    elements: PeerElement[];
  };
  return answer.elements;
}

/** The nth (from 0) element of the window with this role (and name); rejects when there is none. */
export async function peerFind(
  desktop: PrivateDesktop,
  query: PeerWindow & { role: string; name?: string; nth?: number },
  options: PeerReadOptions = {},
): Promise<Omit<PeerElement, 'depth'>> {
  const args = [
    'find',
    ...readArgs(query, options),
    '--role',
    query.role,
    ...(query.name !== undefined ? ['--name', query.name] : []),
    ...(query.nth !== undefined ? ['--nth', String(query.nth)] : []),
  ];
  return (await runPeer(desktop, args, options.timeoutMs ?? (options.waitMs ?? 0) + 30_000)) as Omit<PeerElement, 'depth'>;
}

/** One cell of the window's first table by row and column (0-based), asked for alone (Table.getAccessibleAt): its name and text. */
export async function peerCell(
  desktop: PrivateDesktop,
  window: PeerWindow,
  row: number,
  column: number,
  options: PeerReadOptions = {},
): Promise<{ name: string; text?: string }> {
  const args = [
    'cell',
    '--app',
    window.app,
    '--title',
    window.title,
    '--row',
    String(row),
    '--column',
    String(column),
    ...(options.waitMs !== undefined ? ['--wait-ms', String(options.waitMs)] : []),
  ];
  return (await runPeer(desktop, args, options.timeoutMs ?? (options.waitMs ?? 0) + 30_000)) as { name: string; text?: string };
}

/** One cheap round trip to the app, answered within `timeoutMs` even when the app is frozen. */
export async function peerPing(desktop: PrivateDesktop, app: string, timeoutMs = 2000): Promise<PeerPing> {
  return (await runPeer(desktop, ['ping', '--app', app, '--timeout-ms', String(timeoutMs)], timeoutMs + 5000)) as PeerPing;
}

/**
 * Ping the app every `intervalMs` for `forMs` (each ping bounded by `timeoutMs`): does it keep
 * answering another client, e.g. while the product reads a large sheet?
 */
export async function peerWatch(desktop: PrivateDesktop, app: string, options: { forMs: number; intervalMs?: number; timeoutMs?: number }): Promise<PeerWatch> {
  const timeoutMs = options.timeoutMs ?? 2000;
  const args = [
    'watch',
    '--app',
    app,
    '--for-ms',
    String(options.forMs),
    '--interval-ms',
    String(options.intervalMs ?? 200),
    '--timeout-ms',
    String(timeoutMs),
  ];
  return (await runPeer(desktop, args, options.forMs + 2 * timeoutMs + 5000)) as PeerWatch;
}
