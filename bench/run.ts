// `npm run bench`: the helper's window_read against a pyatspi walk of the same fields, on the
// project's private test desktop, in one run. Prints figures and ratios; asserts nothing timed.
//
//   1. One test desktop; launch the fixture (--rows 3000), gtk3-widget-factory, mousepad,
//      gnome-calculator and the big fixture (--big 10000).
//   2. A "lister" helper finds every window (window_list) and reads each once (warm-up), so the
//      applications have created their accessibles (GTK3 tree-view cells are made on first
//      access) before anything is timed: whichever client came first would pay for that.
//   3. Per window: a fresh helper (hello, then the first window_read = cold; ten more = repeated,
//      median), closed; then a fresh python process running bench/pyatspiWalk.py (iteration 1 =
//      cold, the rest = repeated, median). Never both at once.
//   4. Extra, informational: the first read of each app in a helper process that has already
//      read another app ("cold cache, warm process": the usual case for the long-lived helper,
//      without the JIT warm-up of a fresh process).
//   5. A table, a summary line per target (informational), and .artifacts/bench.json.
//
// Helper times are measured by this client around the JSON-RPC call (request, read, JSON over
// stdio, schema checks on both sides); the helper's own read_ms is shown beside them. Ratios use
// the client-side figure. Exit code 0 unless something crashed.

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startPrivateDesktop, type LaunchedApp, type PrivateDesktop } from '../desktop/privateDesktop.js';
import { spawnHelper, type HelperProcess } from '../main/core/helperProcess.js';
import { REPO_ROOT } from '../main/core/paths.js';
import type { Element, HelperResult, WindowInfo } from '../protocol/index.js';

const PYTHON = '/usr/bin/python3';
const PEER_SCRIPT = path.join(REPO_ROOT, 'bench', 'pyatspiWalk.py');
const ARTIFACTS = path.join(REPO_ROOT, '.artifacts');

const MAX_NODES = 5000;
const READ_PARAMS = { max_nodes: MAX_NODES, max_children_per_node: 5000, max_tokens: 200_000 } as const;
/** Helper reads after the cold one. */
const HELPER_REPEATS = 10;
/** pyatspi walks in one process: 1 cold + the rest repeated. Fewer for the large windows (a walk takes seconds). */
const PEER_REPEAT_SMALL = 11;
const PEER_REPEAT_LARGE = 6;
const HELPER_CALL_TIMEOUT_MS = 60_000;
const PEER_TIMEOUT_MS = 15 * 60_000;

const TARGET_COLD = 5;
const TARGET_REPEATED = 20;
const TARGET_BIG_MS = 1000;

interface AppSpec {
  label: string;
  command: string;
  args: string[];
  /** What launch() waits for on the a11y bus. */
  waitForWindow: string | RegExp;
  /** Accessible name of the frame (the peer finds it by name); null: it has none, find it by pid. */
  frameName: string | null;
  large: boolean;
  big: boolean;
}

const APPS: AppSpec[] = [
  {
    label: 'fixture (--rows 3000)',
    command: PYTHON,
    args: ['desktop/apps/fixtureApp.py', '--rows', '3000'],
    waitForWindow: 'Overseer Fixture',
    frameName: 'Overseer Fixture',
    large: true,
    big: false,
  },
  // Its header-bar frame has no accessible name.
  { label: 'gtk3-widget-factory', command: 'gtk3-widget-factory', args: [], waitForWindow: /.*/, frameName: null, large: false, big: false },
  { label: 'mousepad', command: 'mousepad', args: [], waitForWindow: 'Untitled 1 - Mousepad', frameName: 'Untitled 1 - Mousepad', large: false, big: false },
  { label: 'gnome-calculator (GTK4)', command: 'gnome-calculator', args: [], waitForWindow: 'Calculator', frameName: 'Calculator', large: false, big: false },
  {
    label: 'big fixture (--big 10000)',
    command: PYTHON,
    args: ['desktop/apps/fixtureApp.py', '--big', '10000'],
    waitForWindow: 'Overseer Big',
    frameName: 'Overseer Big',
    large: true,
    big: true,
  },
];

interface HelperFigures {
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
}

interface PeerIteration {
  ms: number;
  nodes: number;
  errors: Record<string, number>;
}

interface PeerFigures {
  cold_ms: number;
  repeated_ms_median: number | null;
  node_count: number;
  find_ms: number;
  order: string;
  iterations: PeerIteration[];
  window: unknown;
  cache: string;
  note: string;
}

/** First read of an app by a helper process that has already read another app. */
interface WarmProcessCold {
  ms: number;
  read_ms: number;
  node_count: number;
  truncated_by: string[];
}

interface AppResult {
  label: string;
  status: 'ok' | 'failed';
  error?: string;
  pid?: number;
  window?: WindowInfo;
  helper?: HelperFigures;
  peer?: PeerFigures;
  ratio_cold?: number;
  ratio_repeated?: number;
  warm_process_cold?: WarmProcessCold;
  ratio_warm_process_cold?: number;
  big?: { cold_under_1s: boolean; repeated_under_1s: boolean };
}

const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));
const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

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
const liveHelpers = new Set<HelperProcess>();

function startHelper(env: Record<string, string>): HelperProcess {
  const helper = spawnHelper(env);
  liveHelpers.add(helper);
  return helper;
}

async function closeHelper(helper: HelperProcess): Promise<void> {
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

async function timedRead(helper: HelperProcess, window: string): Promise<{ ms: number; result: HelperResult<'window_read'> }> {
  const t0 = performance.now();
  const result = await helper.call('window_read', { window, ...READ_PARAMS }, { timeoutMs: HELPER_CALL_TIMEOUT_MS });
  return { ms: performance.now() - t0, result };
}

/** A fresh helper: the first read is cold (empty per-application cache), then repeated reads. */
async function measureHelper(env: Record<string, string>, window: string): Promise<HelperFigures> {
  const helper = startHelper(env);
  try {
    const h0 = performance.now();
    await helper.call('hello', { client: 'bench' }, { timeoutMs: HELPER_CALL_TIMEOUT_MS });
    const helloMs = performance.now() - h0;
    const cold = await timedRead(helper, window);
    const repeated: Array<{ ms: number; result: HelperResult<'window_read'> }> = [];
    for (let i = 0; i < HELPER_REPEATS; i++) repeated.push(await timedRead(helper, window));
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
    };
  } finally {
    await closeHelper(helper);
  }
}

/** A fresh python process running the pyatspi walk `repeat` times. */
function measurePeer(env: Record<string, string>, spec: AppSpec, pid: number): Promise<PeerFigures> {
  const args = [
    PEER_SCRIPT,
    '--max-nodes',
    String(MAX_NODES),
    '--max-children',
    '5000',
    '--repeat',
    String(spec.large ? PEER_REPEAT_LARGE : PEER_REPEAT_SMALL),
  ];
  if (spec.frameName !== null) args.push('--title', spec.frameName, '--pid', String(pid));
  else args.push('--pid', String(pid));
  return new Promise<PeerFigures>((resolve, reject) => {
    const child = spawn(PYTHON, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // this child only, by its pid
    }, PEER_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, sig) => {
      clearTimeout(timer);
      let parsed: unknown;
      try {
        parsed = JSON.parse(out.trim().split('\n').pop() ?? '');
      } catch {
        reject(new Error(`pyatspi walk exited (${sig ?? String(code)}) without a JSON answer: ${err.slice(-1500) || out.slice(-500)}`));
        return;
      }
      const answer = parsed as Partial<PeerFigures> & { error?: string };
      if (code !== 0 || answer.error !== undefined || answer.iterations === undefined) {
        reject(new Error(`pyatspi walk failed (exit ${sig ?? String(code)}): ${answer.error ?? ''} ${err.slice(-1500)}`));
        return;
      }
      resolve(answer as PeerFigures);
    });
  });
}

/**
 * Cold-cache reads in a warm helper process: helper A reads the last app (untimed), then each
 * other app once (timed); helper B reads the first app, then the last one.
 */
async function measureWarmProcessCold(
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
  for (const plan of plans) {
    const helper = startHelper(env);
    try {
      await helper.call('hello', { client: 'bench-warm-process' }, { timeoutMs: HELPER_CALL_TIMEOUT_MS });
      await timedRead(helper, plan.warm);
      for (const target of plan.measure) {
        const { ms, result } = await timedRead(helper, target.window);
        out.set(target.label, { ms: round(ms, 2), read_ms: result.read_ms, node_count: result.node_count, truncated_by: result.truncated_by });
      }
    } finally {
      await closeHelper(helper);
    }
  }
  return out;
}

/** The window_list entry of a launched app: by the frame's title, else by pid. */
function pickWindow(windows: readonly WindowInfo[], spec: AppSpec, pid: number): WindowInfo | undefined {
  if (spec.frameName !== null) {
    const byTitle = windows.filter((w) => w.title === spec.frameName);
    return byTitle.find((w) => w.pid === pid) ?? byTitle[0];
  }
  return windows.find((w) => w.pid === pid);
}

// ---------------------------------------------------------------------------
// output

const fmt = (n: number | null | undefined, digits = 1): string => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits));
const ratioText = (r: number | undefined): string => (r === undefined || !Number.isFinite(r) ? '–' : `${r.toFixed(1)}×`);

function table(results: readonly AppResult[]): string {
  const header = [
    'app',
    'nodes helper/peer',
    'cold ms helper (read_ms) / peer',
    'cold ratio',
    'repeated ms helper (read_ms) / peer',
    'rep. ratio',
    'truncated_by (cold; repeated)',
    'cold, warm helper proc. ms (ratio)',
  ];
  const rows = results.map((r): string[] => {
    if (r.status === 'failed' || r.helper === undefined) return [r.label, 'FAILED', r.error?.split('\n')[0]?.slice(0, 120) ?? '', '', '', '', '', ''];
    const h = r.helper;
    const p = r.peer;
    const nodes = `${h.node_count}${h.elements_counted !== h.node_count ? ` (tree ${h.elements_counted})` : ''}${h.repeated_node_counts.length > 0 ? ` (rep ${h.repeated_node_counts.join(',')})` : ''} / ${p?.node_count ?? '–'}`;
    const trunc = `${h.truncated_by.length > 0 ? h.truncated_by.join(',') : 'none'}; ${h.repeated_truncated_by.length > 0 ? h.repeated_truncated_by.join(',') : 'none'}`;
    return [
      r.label,
      nodes,
      `${fmt(h.cold_ms)} (${h.cold_read_ms}) / ${fmt(p?.cold_ms)}`,
      ratioText(r.ratio_cold),
      `${fmt(h.repeated_ms_median)} (${fmt(h.repeated_read_ms_median, 0)}) / ${fmt(p?.repeated_ms_median)}`,
      ratioText(r.ratio_repeated),
      trunc,
      r.warm_process_cold === undefined ? '–' : `${fmt(r.warm_process_cold.ms)} (${ratioText(r.ratio_warm_process_cold)})`,
    ];
  });
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

interface Summary {
  cold: { target: string; pass: boolean; worst: string; details: string[] };
  repeated: { target: string; pass: boolean; worst: string; details: string[] };
  big: { target: string; pass: boolean; details: string };
  failed_apps: string[];
}

function summarize(results: readonly AppResult[]): Summary {
  const ok = results.filter((r) => r.status === 'ok' && r.ratio_cold !== undefined);
  const judge = (pick: (r: AppResult) => number | undefined, target: number): { pass: boolean; worst: string; details: string[] } => {
    const values = ok.map((r) => ({ label: r.label, v: pick(r) ?? Number.NaN }));
    const worst = values.reduce<{ label: string; v: number } | undefined>((w, x) => (w === undefined || !(x.v >= w.v) ? x : w), undefined);
    return {
      pass: values.length > 0 && values.every((x) => x.v >= target),
      worst: worst === undefined ? '–' : `${worst.label} ${ratioText(worst.v)}`,
      details: values.map((x) => `${x.label}: ${ratioText(x.v)}`),
    };
  };
  const bigResult = results.find((r) => r.big !== undefined);
  const big = bigResult?.helper;
  return {
    cold: { target: `cold read ≥ ${TARGET_COLD}× faster than pyatspi (every app)`, ...judge((r) => r.ratio_cold, TARGET_COLD) },
    repeated: { target: `repeated read ≥ ${TARGET_REPEATED}× faster than pyatspi (every app)`, ...judge((r) => r.ratio_repeated, TARGET_REPEATED) },
    big: {
      target: `10,000-node window read with max_nodes ${MAX_NODES} < ${TARGET_BIG_MS} ms`,
      pass: big !== undefined && big.cold_ms < TARGET_BIG_MS && big.repeated_ms_median < TARGET_BIG_MS,
      details:
        big === undefined
          ? 'big window not measured'
          : `cold ${fmt(big.cold_ms)} ms, repeated ${fmt(big.repeated_ms_median)} ms (median), ${big.node_count} nodes`,
    },
    failed_apps: results.filter((r) => r.status === 'failed').map((r) => r.label),
  };
}

// ---------------------------------------------------------------------------

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
    mark('desktop_start_ms', t);
    log(`test desktop ${desktop.display} up`);
    const env = desktop.env;

    t = performance.now();
    const pids = new Map<AppSpec, number>();
    for (const spec of APPS) {
      try {
        const app = await desktop.launch(spec.command, spec.args, { waitForWindow: spec.waitForWindow, timeoutMs: 30_000 });
        launched.push(app);
        pids.set(spec, app.pid);
        log(`launched ${spec.label} (pid ${app.pid})`);
      } catch (error) {
        results.push({ label: spec.label, status: 'failed', error: `did not appear: ${errorText(error)}` });
        log(`FAILED to launch ${spec.label}: ${errorText(error)}`);
      }
    }
    mark('launch_ms', t);

    // Find each window and warm the applications up with a throwaway helper.
    t = performance.now();
    const lister = startHelper(env);
    const windows = new Map<AppSpec, WindowInfo>();
    try {
      await lister.call('hello', { client: 'bench-lister' }, { timeoutMs: HELPER_CALL_TIMEOUT_MS });
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
            status: 'failed',
            pid,
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
    mark('list_and_warmup_ms', t);

    for (const spec of APPS) {
      const window = windows.get(spec);
      const pid = pids.get(spec);
      if (window === undefined || pid === undefined) continue;
      const result: AppResult = { label: spec.label, status: 'ok', pid: window.pid, window };
      results.push(result);
      try {
        t = performance.now();
        result.helper = await measureHelper(env, window.window);
        mark(`helper ${spec.label}`, t);
        log(
          `helper ${spec.label}: cold ${fmt(result.helper.cold_ms)} ms, repeated ${fmt(result.helper.repeated_ms_median)} ms, ${result.helper.node_count} nodes`,
        );
        t = performance.now();
        result.peer = await measurePeer(env, spec, window.pid);
        mark(`peer ${spec.label}`, t);
        log(`pyatspi ${spec.label}: cold ${fmt(result.peer.cold_ms)} ms, repeated ${fmt(result.peer.repeated_ms_median)} ms, ${result.peer.node_count} nodes`);
        result.ratio_cold = round(result.peer.cold_ms / result.helper.cold_ms, 2);
        if (result.peer.repeated_ms_median !== null) result.ratio_repeated = round(result.peer.repeated_ms_median / result.helper.repeated_ms_median, 2);
        if (spec.big)
          result.big = { cold_under_1s: result.helper.cold_ms < TARGET_BIG_MS, repeated_under_1s: result.helper.repeated_ms_median < TARGET_BIG_MS };
      } catch (error) {
        result.status = 'failed';
        result.error = errorText(error);
        log(`FAILED ${spec.label}: ${result.error}`);
      }
    }
    t = performance.now();
    const measured = results.filter((r) => r.status === 'ok' && r.window !== undefined && r.peer !== undefined);
    try {
      const warm = await measureWarmProcessCold(
        env,
        measured.map((r) => ({ label: r.label, window: r.window?.window ?? '' })),
      );
      for (const r of measured) {
        const w = warm.get(r.label);
        if (w === undefined || r.peer === undefined) continue;
        r.warm_process_cold = w;
        r.ratio_warm_process_cold = round(r.peer.cold_ms / w.ms, 2);
      }
    } catch (error) {
      log(`warm-process cold reads failed: ${errorText(error)}`);
    }
    mark('warm_process_cold_ms', t);
    // Keep the launch order in the table.
    results.sort((a, b) => APPS.findIndex((s) => s.label === a.label) - APPS.findIndex((s) => s.label === b.label));
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
  const summary = summarize(results);
  const pf = (pass: boolean): string => (pass ? 'PASS' : 'MISS');
  const out: string[] = [];
  out.push('');
  out.push(`Overseer helper vs pyatspi walk (same fields), max_nodes ${MAX_NODES}, max_children_per_node 5000, max_tokens 200000`);
  out.push(
    `helper: fresh process per app; cold = first window_read, repeated = median of ${HELPER_REPEATS}; ms measured by the client around the call (helper's read_ms in parentheses)`,
  );
  out.push(
    `pyatspi: fresh python per app; cold = first walk, repeated = median of the rest (${PEER_REPEAT_SMALL - 1}, or ${PEER_REPEAT_LARGE - 1} on the large windows); breadth-first, default cache settings`,
  );
  out.push('apps warmed up by one throwaway helper read before anything is timed; ratio = pyatspi ms / helper ms');
  out.push(
    'last column (informational): first read of the app by a helper process that already read another app (cold cache, warm process), ratio vs pyatspi cold',
  );
  out.push('max_tokens cuts the answer after the walk and the detail pass: the helper still read up to max_nodes nodes; node_count is what the answer holds');
  out.push('');
  out.push(table(results));
  out.push('');
  for (const r of results) {
    if (r.status !== 'ok' || r.helper === undefined) continue;
    const extra: string[] = [];
    if (r.peer !== undefined) {
      const errs = r.peer.iterations
        .map((i) =>
          Object.entries(i.errors)
            .map(([k, v]) => `${k}:${v}`)
            .join(' '),
        )
        .filter((s) => s !== '');
      if (errs.length > 0) extra.push(`pyatspi read errors: ${[...new Set(errs)].join(' | ')}`);
      const peerNodes = new Set(r.peer.iterations.map((i) => i.nodes));
      if (peerNodes.size > 1) extra.push(`pyatspi node counts varied: ${[...peerNodes].join(',')}`);
    }
    if (r.helper.notes.length > 0) extra.push(`helper notes: ${r.helper.notes.join(' | ')}`);
    if (r.big !== undefined) {
      const w = r.warm_process_cold;
      extra.push(
        `big window < ${TARGET_BIG_MS} ms: cold ${r.big.cold_under_1s ? 'yes' : 'NO'}, repeated ${r.big.repeated_under_1s ? 'yes' : 'NO'}${w === undefined ? '' : `, cold in a warm helper process ${w.ms < TARGET_BIG_MS ? 'yes' : 'NO'} (${fmt(w.ms)} ms)`}`,
      );
    }
    if (extra.length > 0) out.push(`${r.label}: ${extra.join('; ')}`);
  }
  for (const r of results.filter((x) => x.status === 'failed')) out.push(`${r.label}: FAILED: ${r.error ?? ''}`);
  out.push('');
  out.push(
    `SUMMARY (informational): ${summary.cold.target}: ${pf(summary.cold.pass)} (worst ${summary.cold.worst}); ` +
      `${summary.repeated.target}: ${pf(summary.repeated.pass)} (worst ${summary.repeated.worst}); ` +
      `${summary.big.target}: ${pf(summary.big.pass)} (${summary.big.details})` +
      (summary.failed_apps.length > 0 ? `; FAILED apps: ${summary.failed_apps.join(', ')}` : ''),
  );
  out.push(
    `wall time ${fmt(wallMs / 1000)} s; ${machine}${Math.max(loadAtStart[0] ?? 0, loadAtEnd[0] ?? 0) > os.cpus().length ? ' (busy machine: figures are noisy)' : ''}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);

  try {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, 'bench.json');
    const json = {
      created_at: new Date().toISOString(),
      node: process.version,
      machine: { cpus: os.cpus().length, loadavg_start: loadAtStart, loadavg_end: loadAtEnd },
      params: { ...READ_PARAMS, helper_repeats: HELPER_REPEATS, peer_repeat_small: PEER_REPEAT_SMALL, peer_repeat_large: PEER_REPEAT_LARGE },
      method: {
        helper: 'fresh helper per app; hello, then window_read (cold), then repeated reads; ms = client round trip, read_ms = helper-internal',
        peer: 'bench/pyatspiWalk.py, fresh process per app; iteration 1 cold, rest repeated; breadth-first; pyatspi defaults',
        warmup: 'one throwaway helper window_read per app before timing',
        warm_process_cold: 'informational: first window_read of an app by a helper that already read another app (cold cache, warm process)',
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
