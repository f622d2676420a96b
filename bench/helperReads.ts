// The helper's side of the read bench: fresh helpers, timed window_read calls per lane, the
// helper's own profile of a read, and the first read of a window the helper has had for a while.
//
// Every read is timed by the client around the request and the result's schema check, as
// helper.call does. The cold lanes run with OVERSEER_PREFETCH=0 (a helper that had prefetched the
// window would not be cold); the warm lane runs with prefetching on, as the helper ships.

import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { spawnHelper, type HelperProcess } from '../main/core/helperLink/helperProcess.js';
import { HELPER_METHODS, type Element, type HelperResult, type ReadProfile } from '../protocol/index.js';

const run = promisify(execFile);

export const MAX_NODES = 5000;
/** The reader's ceilings: a large window's cold read must be measured to its end, not cut by the default 5 s budget. */
export const READ_PARAMS = { max_nodes: MAX_NODES, max_children_per_node: 5000, max_tokens: 200_000, timeout_ms: 20_000 } as const;
/** Helper reads after the cold one. */
export const HELPER_REPEATS = 10;
export const HELPER_CALL_TIMEOUT_MS = 60_000;
/** How long the helper has the focused window before the warm lane's first read. */
export const WARM_WAIT_MS = 1500;

/** The two lanes: `text` = the supervisor's default text answer (no rectangles), `rects` = JSON output. */
export type Lane = 'text' | 'rects';
export const LANES: readonly Lane[] = ['text', 'rects'];

/** One read asked with `profile`: client round trip, helper read_ms, and the profile (null: the helper gave none). */
export interface ProfiledRead {
  ms: number;
  read_ms: number;
  node_count: number;
  profile: ReadProfile | null;
}

/** A lane's figures from one fresh helper. */
export interface LaneFigures {
  cold_ms: number;
  cold_read_ms: number;
  repeated_ms: number[];
  repeated_read_ms: number[];
  repeated_ms_median: number;
  repeated_read_ms_median: number;
  node_count: number;
  /** Elements counted in the answer's tree (should equal node_count). */
  elements_counted: number;
  /** node_count of the repeated reads when it differed from the cold read's. */
  repeated_node_counts: number[];
  truncated_by: string[];
  repeated_truncated_by: string[];
  notes: string[];
  hello_ms: number;
  /** The cold read's profile (it was asked with `profile`). */
  profile_cold: ProfiledRead;
  /** One more read after the repeated ones, with `profile`; not in the median. */
  profile_repeated: ProfiledRead;
}

/** The warm lane: a fresh helper, the window activated, WARM_WAIT_MS, then the first read. */
export interface WarmFirstRead {
  ms: number;
  read_ms: number;
  node_count: number;
  xid: string;
  profile: ReadProfile | null;
}

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
export const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

function countElements(elements: readonly Element[]): number {
  let n = 0;
  const stack = [...elements];
  while (stack.length > 0) {
    const e = stack.pop();
    if (e === undefined) continue;
    n++;
    if (e.children !== undefined) stack.push(...e.children);
  }
  return n;
}

/** Helpers started by this run, closed at the end whatever happens. */
export const liveHelpers = new Set<HelperProcess>();

export function startHelper(env: Record<string, string>): HelperProcess {
  const helper = spawnHelper(env);
  liveHelpers.add(helper);
  return helper;
}

export async function closeHelper(helper: HelperProcess): Promise<void> {
  liveHelpers.delete(helper);
  const timer = setTimeout(() => {
    // The helper exits when stdin closes; if it does not, end it by its pid.
    if (helper.child.exitCode === null && helper.child.signalCode === null) helper.child.kill('SIGKILL');
  }, 5000);
  try {
    await helper.close();
  } finally {
    clearTimeout(timer);
  }
}

export async function hello(helper: HelperProcess, client: string): Promise<number> {
  const t0 = performance.now();
  await helper.call('hello', { client }, { timeoutMs: HELPER_CALL_TIMEOUT_MS });
  return performance.now() - t0;
}

/** What one read asks beyond the budgets: its lane's rectangles, and the helper's profile. */
export interface ReadAsk {
  lane: Lane;
  profile: boolean;
}

function extraParams(ask: ReadAsk): Record<string, boolean> {
  return { rects: ask.lane === 'rects', ...(ask.profile ? { profile: true } : {}) };
}

/** Without prefetching: the cold lanes' helpers (see the top of this file). */
const coldEnv = (env: Record<string, string>): Record<string, string> => ({ ...env, OVERSEER_PREFETCH: '0' });

/** One window_read, timed by the client around the request and the result's schema check. */
export async function timedRead(
  helper: HelperProcess,
  window: string,
  extra: Record<string, boolean> = {},
): Promise<{ ms: number; result: HelperResult<'window_read'>; profile: ReadProfile | null }> {
  const t0 = performance.now();
  const raw = await helper.peer.request('window_read', { window, ...READ_PARAMS, ...extra }, { timeoutMs: HELPER_CALL_TIMEOUT_MS });
  const parsed = HELPER_METHODS.window_read.result.safeParse(raw);
  const ms = performance.now() - t0;
  if (!parsed.success) throw new Error(`helper answer to window_read broke its schema: ${parsed.error.message.slice(0, 500)}`);
  return { ms, result: parsed.data, profile: parsed.data.profile ?? null };
}

const profiled = (r: Awaited<ReturnType<typeof timedRead>>): ProfiledRead => ({
  ms: round(r.ms, 2),
  read_ms: r.result.read_ms,
  node_count: r.result.node_count,
  profile: r.profile,
});

/** A fresh helper: the first read is cold (empty per-application cache), then repeated reads. */
export async function measureLane(env: Record<string, string>, window: string, lane: Lane): Promise<LaneFigures> {
  const helper = startHelper(coldEnv(env));
  try {
    const helloMs = await hello(helper, `bench-${lane}`);
    const cold = await timedRead(helper, window, extraParams({ lane, profile: true }));
    const repeated: Array<Awaited<ReturnType<typeof timedRead>>> = [];
    const plain = extraParams({ lane, profile: false });
    for (let i = 0; i < HELPER_REPEATS; i++) repeated.push(await timedRead(helper, window, plain));
    const lastProfiled = await timedRead(helper, window, extraParams({ lane, profile: true }));
    const repeatedTruncations = new Set(repeated.flatMap((r) => r.result.truncated_by));
    return {
      cold_ms: round(cold.ms, 2),
      cold_read_ms: cold.result.read_ms,
      repeated_ms: repeated.map((r) => round(r.ms, 2)),
      repeated_read_ms: repeated.map((r) => r.result.read_ms),
      repeated_ms_median: round(median(repeated.map((r) => r.ms)), 2),
      repeated_read_ms_median: median(repeated.map((r) => r.result.read_ms)),
      node_count: cold.result.node_count,
      elements_counted: countElements(cold.result.elements),
      repeated_node_counts: [...new Set(repeated.map((r) => r.result.node_count))].filter((n) => n !== cold.result.node_count),
      truncated_by: cold.result.truncated_by,
      repeated_truncated_by: [...repeatedTruncations],
      notes: [...new Set([...cold.result.notes, ...repeated.flatMap((r) => r.result.notes)])].slice(0, 10),
      hello_ms: round(helloMs, 2),
      profile_cold: profiled(cold),
      profile_repeated: profiled(lastProfiled),
    };
  } finally {
    await closeHelper(helper);
  }
}

/**
 * The X window of a process that the window manager manages (it has _NET_WM_DESKTOP; galculator
 * also maps an unmanaged window of the same name, which windowactivate refuses), the one whose
 * name equals `title` first.
 */
export async function findXid(env: Record<string, string>, pid: number, title: string): Promise<string | undefined> {
  const xdotool = (...args: string[]): Promise<string | undefined> =>
    run('xdotool', args, { env, timeout: 10_000 }).then(
      (r) => r.stdout.trim(),
      () => undefined,
    );
  const xids = ((await xdotool('search', '--onlyvisible', '--pid', String(pid))) ?? '').split('\n').filter((s) => /^\d+$/.test(s));
  const managed: string[] = [];
  for (const xid of xids) if ((await xdotool('get_desktop_for_window', xid)) !== undefined) managed.push(xid);
  for (const xid of managed) if ((await xdotool('getwindowname', xid)) === title) return xid;
  return managed[0];
}

/** Activates an X window through the window manager and waits until it is active. */
export async function activate(env: Record<string, string>, xid: string): Promise<void> {
  await run('xdotool', ['windowactivate', '--sync', xid], { env, timeout: 10_000 });
}

/**
 * The first read of a window the helper has had for WARM_WAIT_MS: another window is activated
 * first (so the target's activation is a change the helper hears of: window:activate), then a
 * fresh helper, hello, the target activated, the wait, the timed read (text lane).
 * Measured under openbox: GTK3 frames send window:activate/deactivate and
 * object:state-changed:active; GTK4 frames (gnome-calculator) send only state-changed:active.
 */
export async function measureWarmFirstRead(env: Record<string, string>, window: string, xid: string, otherXid: string | undefined): Promise<WarmFirstRead> {
  if (otherXid !== undefined) await activate(env, otherXid);
  const helper = startHelper(env);
  try {
    await hello(helper, 'bench-warm');
    await activate(env, xid);
    await sleep(WARM_WAIT_MS);
    const r = await timedRead(helper, window, extraParams({ lane: 'text', profile: true }));
    return { ms: round(r.ms, 2), read_ms: r.result.read_ms, node_count: r.result.node_count, xid, profile: r.profile };
  } finally {
    await closeHelper(helper);
  }
}

/** First read of an app by a helper process that has already read another app. */
export interface WarmProcessCold {
  ms: number;
  read_ms: number;
  node_count: number;
  truncated_by: string[];
}

/**
 * Cold-cache reads in a warm helper process (text lane): helper A reads the last app (untimed),
 * then each other app once (timed); helper B reads the first app, then the last one.
 */
export async function measureWarmProcessCold(
  env: Record<string, string>,
  targets: ReadonlyArray<{ label: string; window: string }>,
): Promise<Map<string, WarmProcessCold>> {
  const out = new Map<string, WarmProcessCold>();
  const first = targets[0];
  const last = targets[targets.length - 1];
  if (first === undefined || last === undefined || targets.length < 2) return out;
  const plans: Array<{ warm: string; measure: ReadonlyArray<{ label: string; window: string }> }> = [
    { warm: last.window, measure: targets.slice(0, -1) },
    { warm: first.window, measure: [last] },
  ];
  const text = extraParams({ lane: 'text', profile: false });
  for (const plan of plans) {
    const helper = startHelper(coldEnv(env));
    try {
      await hello(helper, 'bench-warm-process');
      await timedRead(helper, plan.warm, text);
      for (const target of plan.measure) {
        const { ms, result } = await timedRead(helper, target.window, text);
        out.set(target.label, { ms: round(ms, 2), read_ms: result.read_ms, node_count: result.node_count, truncated_by: result.truncated_by });
      }
    } finally {
      await closeHelper(helper);
    }
  }
  return out;
}
