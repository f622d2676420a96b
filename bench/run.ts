// `npm run bench`: the helper's window_read against a pyatspi walk of the same fields, on the
// project's private test desktop (with openbox, so windows can be activated), in one run. Prints
// figures and ratios; asserts nothing timed.
//
//   1. One test desktop and its window manager; launch the apps of bench/readApps.ts: the
//      fixtures and sample apps the helper is tested against, and real Debian apps it was never
//      tuned for (marked * in the table).
//   2. A "lister" helper finds every window (window_list) and reads each once (warm-up), so the
//      applications have created their accessibles (GTK3 tree-view cells are made on first
//      access) before anything is timed: whichever client came first would pay for that.
//   3. Per window, two lanes, each: a fresh helper without prefetching (hello, the first window_read = cold, asked
//      with `profile`; ten more = repeated, median; one more with `profile`), closed; then a fresh
//      python process running bench/pyatspiWalk.py (iteration 1 = cold, the rest = repeated,
//      median). Never both at once.
//        text:  the helper with `rects: false` (the supervisor's default text answer, which shows
//               no rectangles) vs the peer with `--fields text` (no extents).
//        rects: the helper with `rects: true` (JSON output) vs the peer with `--fields full`.
//   4. Warm lane, per window: another window activated, a fresh helper as shipped (prefetching), hello, the window
//      activated (xdotool windowactivate: window:activate on the a11y bus), 1.5 s, then the timed
//      first read: "the first read of a window the helper has had ≥ 1 s", against the peer's cold.
//   5. Informational: the first read of each app in a helper process that has already read
//      another app ("cold cache, warm process", text lane).
//   6. A table, the helper's profile of its reads, a summary line per app, and .artifacts/bench.json.
//
// Helper times are measured by this client around the JSON-RPC call (request, read, JSON over
// stdio, schema check); the helper's own read_ms is shown beside them, and their difference is
// "RPC framing". Ratios use the client-side figure. Exit code 0 unless something crashed.
//
// `--only a,b`: only the apps whose label contains one of these (for working on the bench).

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startPrivateDesktop, type LaunchedApp, type PrivateDesktop } from '../desktop/privateDesktop.js';
import { startWindowManager } from '../desktop/windowManager.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import type { WindowInfo } from '../protocol/index.js';
import { PEER_REPEAT_LARGE, PEER_REPEAT_SMALL, measurePeer, type PeerFields } from './atspiPeer.js';
import {
  HELPER_CALL_TIMEOUT_MS,
  HELPER_REPEATS,
  LANES,
  MAX_NODES,
  READ_PARAMS,
  WARM_WAIT_MS,
  closeHelper,
  findXid,
  hello,
  liveHelpers,
  measureLane,
  measureWarmFirstRead,
  measureWarmProcessCold,
  round,
  startHelper,
  timedRead,
  type Lane,
} from './helperReads.js';
import { APPS, type AppSpec } from './readApps.js';
import { TARGET_BIG_MS, TARGET_COLD, TARGET_REPEATED, report, summarize, type AppResult } from './readReport.js';

const ARTIFACTS = path.join(REPO_ROOT, '.artifacts');

/** The apps of this run: all, or those `--only` names. */
function selectedApps(argv: readonly string[]): readonly AppSpec[] {
  const i = argv.indexOf('--only');
  const only = i >= 0 ? (argv[i + 1] ?? '').split(',').filter((s) => s !== '') : [];
  return only.length === 0 ? APPS : APPS.filter((a) => only.some((o) => a.label.includes(o)));
}
const SELECTED = selectedApps(process.argv.slice(2));
const PEER_FIELDS: Record<Lane, PeerFields> = { text: 'text', rects: 'full' };

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const fmt = (n: number | null | undefined, digits = 1): string => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits));
const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

/** The window_list entry of a launched app: by the frame's title, else by pid. */
function pickWindow(windows: readonly WindowInfo[], spec: AppSpec, pid: number): WindowInfo | undefined {
  if (spec.frameName !== null) {
    const byTitle = windows.filter((w) => w.title === spec.frameName);
    return byTitle.find((w) => w.pid === pid) ?? byTitle[0];
  }
  return windows.find((w) => w.pid === pid);
}

/** Finds every window and reads each once (warm-up). */
async function listAndWarmUp(env: Record<string, string>, pids: ReadonlyMap<AppSpec, number>, results: AppResult[]): Promise<Map<AppSpec, WindowInfo>> {
  const lister = startHelper(env);
  const windows = new Map<AppSpec, WindowInfo>();
  try {
    await hello(lister, 'bench-lister');
    let listed: WindowInfo[] = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      listed = (await lister.call('window_list', {}, { timeoutMs: HELPER_CALL_TIMEOUT_MS })).windows;
      if ([...pids].every(([spec, pid]) => pickWindow(listed, spec, pid) !== undefined)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const [spec, pid] of pids) {
      const w = pickWindow(listed, spec, pid);
      if (w === undefined) {
        results.push({
          label: spec.label,
          seen: spec.seen,
          status: 'failed',
          pid,
          lanes: {},
          error: `launched, but window_list did not list its window (listed: ${listed.map((x) => `${x.title}/${x.pid}`).join(', ')})`,
        });
        continue;
      }
      windows.set(spec, w);
      const warm = await timedRead(lister, w.window);
      log(`warm-up ${spec.label}: ${warm.result.node_count} nodes in ${fmt(warm.ms)} ms`);
    }
  } finally {
    await closeHelper(lister);
  }
  return windows;
}

/** Both lanes of one app: helper, then peer, never both at once. */
async function measureApp(
  env: Record<string, string>,
  spec: AppSpec,
  window: WindowInfo,
  result: AppResult,
  mark: (name: string, since: number) => void,
): Promise<void> {
  for (const lane of LANES) {
    let t = performance.now();
    const helper = await measureLane(env, window.window, lane);
    mark(`helper ${lane} ${spec.label}`, t);
    log(`helper ${lane} ${spec.label}: cold ${fmt(helper.cold_ms)} ms, repeated ${fmt(helper.repeated_ms_median)} ms, ${helper.node_count} nodes`);
    t = performance.now();
    const peer = await measurePeer(env, spec, window.pid, PEER_FIELDS[lane], MAX_NODES);
    mark(`peer ${lane} ${spec.label}`, t);
    log(`pyatspi ${PEER_FIELDS[lane]} ${spec.label}: cold ${fmt(peer.cold_ms)} ms, repeated ${fmt(peer.repeated_ms_median)} ms, ${peer.node_count} nodes`);
    result.lanes[lane] = {
      helper,
      peer,
      ratio_cold: round(peer.cold_ms / helper.cold_ms, 2),
      ...(peer.repeated_ms_median !== null ? { ratio_repeated: round(peer.repeated_ms_median / helper.repeated_ms_median, 2) } : {}),
    };
  }
}

/** The warm lane of every measured app; the activation before each is of another app's window. */
async function measureWarmLane(env: Record<string, string>, measured: readonly AppResult[]): Promise<void> {
  const xids = new Map<AppResult, string>();
  for (const r of measured) {
    if (r.window === undefined) continue;
    const xid = await findXid(env, r.window.pid, r.window.title);
    if (xid === undefined) r.warm_error = `no visible X window of pid ${r.window.pid}`;
    else xids.set(r, xid);
  }
  const all = [...xids];
  for (const [i, [r, xid]] of all.entries()) {
    const other = all[(i + 1) % all.length]?.[1];
    try {
      r.warm = await measureWarmFirstRead(env, r.window?.window ?? '', xid, other === xid ? undefined : other);
      const peerCold = r.lanes.text?.peer.cold_ms;
      if (peerCold !== undefined) r.ratio_warm = round(peerCold / r.warm.ms, 2);
      log(`warm first read ${r.label}: ${fmt(r.warm.ms)} ms`);
    } catch (error) {
      r.warm_error = errorText(error);
      log(`warm first read ${r.label} failed: ${r.warm_error}`);
    }
  }
}

async function main(): Promise<void> {
  const wallStart = performance.now();
  const loadAtStart = os.loadavg().map((n) => round(n, 2));
  const phases: Record<string, number> = {};
  const mark = (name: string, since: number): void => {
    phases[name] = round(performance.now() - since, 0);
  };
  let desktop: PrivateDesktop | undefined;
  const launched: LaunchedApp[] = [];
  const results: AppResult[] = [];
  let crashed = false;
  try {
    let t = performance.now();
    desktop = await startPrivateDesktop();
    // Windows get activated in the warm lane: that needs a window manager (_NET_ACTIVE_WINDOW).
    await startWindowManager(desktop, []);
    mark('desktop_start_ms', t);
    log(`test desktop ${desktop.display} up, openbox running`);
    const env = desktop.env;

    t = performance.now();
    const pids = new Map<AppSpec, number>();
    for (const spec of SELECTED) {
      try {
        const app =
          spec.launch !== undefined
            ? await spec.launch(desktop)
            : await desktop.launch(spec.command, spec.args(desktop.dir), { waitForWindow: spec.waitForWindow, timeoutMs: 30_000 });
        if (!launched.includes(app)) launched.push(app);
        pids.set(spec, app.pid);
        log(`launched ${spec.label} (pid ${app.pid})`);
      } catch (error) {
        results.push({ label: spec.label, seen: spec.seen, status: 'failed', lanes: {}, error: `did not appear: ${errorText(error)}` });
        log(`FAILED to launch ${spec.label}: ${errorText(error)}`);
      }
    }
    mark('launch_ms', t);

    t = performance.now();
    const windows = await listAndWarmUp(env, pids, results);
    mark('list_and_warmup_ms', t);

    for (const spec of SELECTED) {
      const window = windows.get(spec);
      if (window === undefined) continue;
      const result: AppResult = { label: spec.label, seen: spec.seen, status: 'ok', pid: window.pid, window, lanes: {} };
      results.push(result);
      try {
        await measureApp(env, spec, window, result, mark);
      } catch (error) {
        result.status = 'failed';
        result.error = errorText(error);
        log(`FAILED ${spec.label}: ${result.error}`);
      }
    }
    const measured = results.filter((r) => r.status === 'ok' && r.window !== undefined);

    t = performance.now();
    await measureWarmLane(env, measured);
    mark('warm_lane_ms', t);

    t = performance.now();
    try {
      const warm = await measureWarmProcessCold(
        env,
        measured.map((r) => ({ label: r.label, window: r.window?.window ?? '' })),
      );
      for (const r of measured) {
        const w = warm.get(r.label);
        const peerCold = r.lanes.text?.peer.cold_ms;
        if (w === undefined || peerCold === undefined) continue;
        r.warm_process_cold = w;
        r.ratio_warm_process_cold = round(peerCold / w.ms, 2);
      }
    } catch (error) {
      log(`warm-process cold reads failed: ${errorText(error)}`);
    }
    mark('warm_process_cold_ms', t);
    // Keep the launch order in the table.
    results.sort((a, b) => SELECTED.findIndex((s) => s.label === a.label) - SELECTED.findIndex((s) => s.label === b.label));
  } catch (error) {
    crashed = true;
    log(`crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    for (const helper of [...liveHelpers]) await closeHelper(helper).catch(() => undefined);
    const t = performance.now();
    if (desktop !== undefined) await desktop.stop().catch((error: unknown) => log(`desktop stop failed: ${errorText(error)}`));
    mark('desktop_stop_ms', t);
  }

  const wallMs = round(performance.now() - wallStart, 0);
  const loadAtEnd = os.loadavg().map((n) => round(n, 2));
  const machine = `${os.cpus().length} CPUs; load average (1/5/15 min) ${loadAtStart.join('/')} at start, ${loadAtEnd.join('/')} at end`;
  const bigLabel = SELECTED.find((a) => a.big)?.label;
  const summary = summarize(results, bigLabel);
  process.stdout.write(`${report(results, summary, bigLabel).join('\n')}\n`);
  process.stdout.write(
    `wall time ${fmt(wallMs / 1000)} s; ${machine}${Math.max(loadAtStart[0] ?? 0, loadAtEnd[0] ?? 0) > os.cpus().length ? ' (busy machine: figures are noisy)' : ''}\n`,
  );

  try {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, 'bench.json');
    const json = {
      created_at: new Date().toISOString(),
      node: process.version,
      machine: { cpus: os.cpus().length, loadavg_start: loadAtStart, loadavg_end: loadAtEnd },
      params: {
        ...READ_PARAMS,
        helper_repeats: HELPER_REPEATS,
        peer_repeat_small: PEER_REPEAT_SMALL,
        peer_repeat_large: PEER_REPEAT_LARGE,
        warm_wait_ms: WARM_WAIT_MS,
      },
      method: {
        lanes: 'text: helper rects:false vs peer --fields text (no extents); rects: helper rects:true vs peer --fields full',
        helper:
          'per lane a fresh helper per app; hello, window_read (cold, with profile), 10 repeated (median), 1 more with profile; ms = client round trip, read_ms = helper-internal',
        peer: 'bench/pyatspiWalk.py, fresh process per app and lane; iteration 1 cold, rest repeated; breadth-first; pyatspi defaults',
        warmup: 'one throwaway helper window_read per app before timing',
        warm: `another window activated; fresh helper; hello; xdotool windowactivate --sync; ${WARM_WAIT_MS} ms; first window_read (text lane); ratio vs peer cold (text)`,
        warm_process_cold: 'informational: first window_read of an app by a helper that already read another app (cold cache, warm process), text lane',
      },
      targets: { cold_ratio: TARGET_COLD, repeated_ratio: TARGET_REPEATED, big_ms: TARGET_BIG_MS },
      results,
      summary,
      phases_ms: phases,
      wall_ms: wallMs,
      crashed,
    };
    writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
    process.stdout.write(`results written to ${path.relative(REPO_ROOT, file)}\n`);
  } catch (error) {
    log(`could not write .artifacts/bench.json: ${errorText(error)}`);
  }
  if (crashed) process.exitCode = 1;
}

await main();
