// Picking a free X display number and starting the desktop's Xvfb on it.
//
// Numbers are tried from a random start in DISPLAY_MIN..DISPLAY_MAX, so that
// private desktops started in parallel (and real X servers on :0, :1...) rarely
// collide. A number that looks free can still be taken between our check and
// Xvfb's bind: Xvfb then exits and the next number is tried.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { signal } from './procs.js';
import { logTail, spawnLogged } from './spawnLogged.js';

const DISPLAY_MIN = 50;
const DISPLAY_MAX = 399;
const MAX_ATTEMPTS = 12;

/** What startXvfb needs from the desktop being assembled. */
export interface XvfbOptions {
  width: number;
  height: number;
  /** Environment for Xvfb itself. */
  env: Record<string, string>;
  /** Folder for the Xvfb-<N>.{out,err}.log files. */
  logs: string;
  detached: boolean;
  /** Record a spawned process as the desktop's. */
  track: (pid: number, role: string) => void;
  /** How long one Xvfb gets to take its display. */
  timeoutMs: number;
}

function displayCandidates(): number[] {
  const span = DISPLAY_MAX - DISPLAY_MIN + 1;
  const base = Math.floor(Math.random() * span);
  const result: number[] = [];
  for (let i = 0; i < span; i += 1) result.push(DISPLAY_MIN + ((base + i) % span));
  return result;
}

function displayLooksFree(n: number): boolean {
  return !existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`);
}

function lockOwner(n: number): number | null {
  try {
    const pid = Number(readFileSync(`/tmp/.X${n}-lock`, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Start Xvfb on a free display; resolves with the display (":N") and Xvfb's pid once it serves it. */
export async function startXvfb(options: XvfbOptions): Promise<{ display: string; pid: number }> {
  let lastError = 'no free display number';
  let attempts = 0;
  for (const n of displayCandidates()) {
    if (attempts >= MAX_ATTEMPTS) break;
    if (!displayLooksFree(n)) continue;
    attempts += 1;
    const xvfb = await spawnLogged(
      'Xvfb',
      [`:${n}`, '-screen', '0', `${options.width}x${options.height}x24`, '-nolisten', 'tcp', '-noreset'],
      options.env,
      path.join(options.logs, `Xvfb-${n}`),
      options.detached,
    );
    options.track(xvfb.pid, 'Xvfb');
    const deadline = Date.now() + options.timeoutMs;
    let ok = false;
    while (Date.now() < deadline) {
      if (xvfb.hasExited()) break;
      // The socket alone could be another server's that appeared meanwhile:
      // the lock file names the server that owns the display.
      if (existsSync(`/tmp/.X11-unix/X${n}`) && lockOwner(n) === xvfb.pid) {
        ok = true;
        break;
      }
      await sleep(5);
    }
    if (ok) return { display: `:${n}`, pid: xvfb.pid };
    lastError = `Xvfb :${n} failed: ${logTail(xvfb.logFiles, 500)}`;
    signal(xvfb.pid, 'SIGKILL');
    await xvfb.exited;
  }
  throw new Error(`startPrivateDesktop: could not start Xvfb (${lastError})`);
}
