// Process bookkeeping for the private desktop (Linux /proc only).
//
// Everything here is synchronous on purpose: the same code runs inside a
// process 'exit' handler, where nothing asynchronous can happen any more.
//
// "Ours" is decided conservatively:
//   * a recorded pid counts only while /proc/<pid>/stat still shows the start
//     time recorded for it (a recycled pid is never touched);
//   * every process the desktop spawns gets its own session (setsid), so
//     everything those processes start later (the a11y dbus-daemon, the
//     at-spi2-registryd it activates, services the session bus activates,
//     children of launched apps) shares that session id, even after being
//     re-parented to init. A session id stays allocated while any member
//     lives, so it cannot be recycled underneath us;
//   * processes that left the session (setsid/daemonising) are found by the
//     OVERSEER_TEST_DESKTOP=<dir> marker in their initial environment;
//   * never this process or one of its ancestors, and never anything that
//     started before the desktop did.

import { readdirSync, readFileSync } from 'node:fs';

export const MARKER_VAR = 'OVERSEER_TEST_DESKTOP';

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot. Kept as a string (it can exceed 2^53 in theory). */
  startTime: string;
}

export function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state); field N is rest[N - 3].
  const state = rest[0];
  const ppid = rest[1];
  const pgrp = rest[2];
  const session = rest[3];
  const startTime = rest[19];
  if (state === undefined || ppid === undefined || pgrp === undefined || session === undefined || startTime === undefined) {
    return null;
  }
  return {
    pid,
    comm: text.slice(open + 1, close),
    state,
    ppid: Number(ppid),
    pgrp: Number(pgrp),
    session: Number(session),
    startTime,
  };
}

/** Alive = present in /proc and not a zombie (zombies are dead; only their parent can reap them). */
export function isAlive(pid: number, startTime?: string): boolean {
  const stat = readStat(pid);
  if (stat === null || stat.state === 'Z' || stat.state === 'X') return false;
  return startTime === undefined || stat.startTime === startTime;
}

export function listPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (/^\d+$/.test(name)) pids.push(Number(name));
  }
  return pids;
}

export function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((s) => s.length > 0)
      .join(' ');
  } catch {
    return '';
  }
}

function readMarker(pid: number): string | null {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return null;
  }
  const prefix = `${MARKER_VAR}=`;
  for (const entry of raw.split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  }
  return null;
}

/** This process and all its ancestors: never to be killed by a sweep. */
export function selfAndAncestors(): Set<number> {
  const result = new Set<number>();
  let pid = process.pid;
  for (let i = 0; i < 256 && pid > 0 && !result.has(pid); i += 1) {
    result.add(pid);
    const stat = readStat(pid);
    if (stat === null) break;
    pid = stat.ppid;
  }
  return result;
}

export interface RecordedProcess {
  pid: number;
  startTime: string;
  /** Session id at record time; equal to pid for the processes we spawned detached. */
  session: number;
  role: string;
  command: string;
}

export interface Ownership {
  /** Recorded processes (validated by start time before use). */
  recorded: readonly RecordedProcess[];
  /** Value of OVERSEER_TEST_DESKTOP in processes started inside this desktop (null: do not match by marker). */
  marker: string | null;
  /** Clock ticks after boot when the desktop's first process started. */
  startTicks: string;
}

function ticksAtLeast(a: string, b: string): boolean {
  return BigInt(a) >= BigInt(b);
}

/**
 * Every process that belongs to the desktop described by `own`. Zombies
 * (already dead, waiting for their parent to reap them) are left out unless
 * `includeZombies` is set.
 */
export function collectOwned(own: Ownership, includeZombies = false): ProcStat[] {
  const protectedPids = selfAndAncestors();
  const sessions = new Set<number>();
  const recordedValid = new Set<number>();
  for (const rec of own.recorded) {
    const stat = readStat(rec.pid);
    if (stat !== null && stat.startTime === rec.startTime) {
      recordedValid.add(rec.pid);
      if (rec.session === rec.pid) sessions.add(rec.pid);
    } else if (rec.session === rec.pid && stat === null) {
      // The leader is gone but its session may still have members; the
      // session id cannot be reused while any member is alive. (If the pid
      // now belongs to another process, the id may have been reused: skip.)
      sessions.add(rec.pid);
    }
  }
  const owned: ProcStat[] = [];
  for (const pid of listPids()) {
    if (protectedPids.has(pid)) continue;
    const stat = readStat(pid);
    if (stat === null) continue;
    if (!includeZombies && (stat.state === 'Z' || stat.state === 'X')) continue;
    if (recordedValid.has(pid)) {
      owned.push(stat);
      continue;
    }
    if (!ticksAtLeast(stat.startTime, own.startTicks)) continue;
    if (sessions.has(stat.session) || (own.marker !== null && readMarker(pid) === own.marker)) owned.push(stat);
  }
  return owned;
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Synchronous, best effort: SIGKILL everything the desktop owns. For 'exit' handlers. */
export function killOwnedSync(own: Ownership): void {
  for (let round = 0; round < 3; round += 1) {
    const owned = collectOwned(own);
    if (owned.length === 0) return;
    for (const p of owned) signal(p.pid, 'SIGKILL');
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Terminate everything owned, in three waves so that parents that are still
 * alive reap their children: first the session members we did not spawn
 * ourselves (a11y dbus-daemon, registryd, activated services, app children),
 * then the processes we spawned, then the `last` pids (e.g. Xvfb). Each wave:
 * SIGTERM, wait up to `graceMs`, then SIGKILL until /proc shows none alive.
 * Afterwards waits up to `reapMs` for zombies re-parented to init to be
 * reaped (only init can do that). Returns what is still alive (normally none).
 */
export async function terminateOwned(own: Ownership, options: { graceMs?: number; last?: readonly number[]; reapMs?: number } = {}): Promise<ProcStat[]> {
  const graceMs = options.graceMs ?? 2000;
  const reapMs = options.reapMs ?? 1000;
  const last = new Set(options.last ?? []);
  const spawned = new Set(own.recorded.filter((r) => r.session === r.pid).map((r) => r.pid));
  const wave = async (filter: (p: ProcStat) => boolean): Promise<void> => {
    const first = collectOwned(own).filter(filter);
    if (first.length === 0) return;
    for (const p of first) signal(p.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await sleep(10);
      if (collectOwned(own).filter(filter).length === 0) return;
    }
    for (let i = 0; i < 100; i += 1) {
      const left = collectOwned(own).filter(filter);
      if (left.length === 0) return;
      for (const p of left) signal(p.pid, 'SIGKILL');
      await sleep(20);
    }
  };
  await wave((p) => !spawned.has(p.pid) && !last.has(p.pid));
  await wave((p) => !last.has(p.pid));
  await wave(() => true);
  const reapDeadline = Date.now() + reapMs;
  while (Date.now() < reapDeadline && collectOwned(own, true).length > 0) await sleep(20);
  return collectOwned(own);
}
