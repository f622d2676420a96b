// What the read bench prints: the table, the helper's profile of its reads, and the summary
// against the read goals below. Informational: nothing here fails the run.

import type { WindowInfo } from '../protocol/index.js';
import type { PeerFigures } from './atspiPeer.js';
import type { Lane, LaneFigures, ProfiledRead, WarmFirstRead, WarmProcessCold } from './helperReads.js';

export const TARGET_COLD = 5;
export const TARGET_REPEATED = 20;
export const TARGET_BIG_MS = 1000;

/** One lane of one app: the helper's reads, the peer's walks of the same fields, and their ratios. */
export interface LaneResult {
  helper: LaneFigures;
  peer: PeerFigures;
  /** pyatspi cold ms / helper cold ms. */
  ratio_cold: number;
  ratio_repeated?: number;
}

/** Everything measured on one app. */
export interface AppResult {
  label: string;
  seen: boolean;
  status: 'ok' | 'failed';
  error?: string;
  pid?: number;
  window?: WindowInfo;
  lanes: Partial<Record<Lane, LaneResult>>;
  /** The first read of a window the helper has had for ≥ 1 s (text lane). */
  warm?: WarmFirstRead;
  warm_error?: string;
  /** pyatspi cold ms (text fields) / warm first read ms. */
  ratio_warm?: number;
  warm_process_cold?: WarmProcessCold;
  ratio_warm_process_cold?: number;
}

const fmt = (n: number | null | undefined, digits = 1): string => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits));
export const ratioText = (r: number | undefined): string => (r === undefined || !Number.isFinite(r) ? '–' : `${r.toFixed(1)}×`);
const pf = (pass: boolean): string => (pass ? 'PASS' : 'MISS');

function nodesCell(r: AppResult): string {
  const text = r.lanes.text;
  const rects = r.lanes.rects;
  if (text === undefined) return '–';
  const h = text.helper;
  const tree = h.elements_counted !== h.node_count ? ` (tree ${h.elements_counted})` : '';
  const rep = h.repeated_node_counts.length > 0 ? ` (rep ${h.repeated_node_counts.join(',')})` : '';
  const peerRects = rects !== undefined && rects.peer.node_count !== text.peer.node_count ? `,${rects.peer.node_count}` : '';
  return `${h.node_count}${tree}${rep} / ${text.peer.node_count}${peerRects}`;
}

const laneCells = (l: LaneResult | undefined): string[] =>
  l === undefined
    ? ['–', '–', '–', '–']
    : [
        `${fmt(l.helper.cold_ms)} (${fmt(l.helper.cold_read_ms, 0)}) / ${fmt(l.peer.cold_ms, 0)}`,
        ratioText(l.ratio_cold),
        `${fmt(l.helper.repeated_ms_median)} (${fmt(l.helper.repeated_read_ms_median, 0)}) / ${fmt(l.peer.repeated_ms_median, 0)}`,
        ratioText(l.ratio_repeated),
      ];

/** The main table: the text lane, the with-rects lane beside it, the warm first read, the warm-process cold read. */
export function table(results: readonly AppResult[]): string {
  const header = [
    'app',
    'nodes helper / peer',
    'text cold ms h (read_ms) / peer',
    '×',
    'text rep. ms h (read_ms) / peer',
    '×',
    'rects cold ms h (read_ms) / peer',
    '×',
    'rects rep. ms h (read_ms) / peer',
    '×',
    'warm 1st read ms (×)',
    'warm proc. cold ms (×)',
    'truncated_by (cold; rep.)',
  ];
  const rows = results.map((r): string[] => {
    const text = r.lanes.text;
    if (r.status === 'failed' && text === undefined) return [r.label, 'FAILED', r.error?.split('\n')[0]?.slice(0, 120) ?? '', ...header.slice(3).map(() => '')];
    const h = text?.helper;
    const trunc = h === undefined ? '–' : `${h.truncated_by.join(',') || 'none'}; ${h.repeated_truncated_by.join(',') || 'none'}`;
    return [
      `${r.label}${r.seen ? '' : ' *'}`,
      nodesCell(r),
      ...laneCells(text),
      ...laneCells(r.lanes.rects),
      r.warm === undefined ? (r.warm_error === undefined ? '–' : 'failed') : `${fmt(r.warm.ms)} (${ratioText(r.ratio_warm)})`,
      r.warm_process_cold === undefined ? '–' : `${fmt(r.warm_process_cold.ms)} (${ratioText(r.ratio_warm_process_cold)})`,
      trunc,
    ];
  });
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** `k v, k v`: phases in the helper's order (its pipeline), members largest first. */
const entries = (rec: Record<string, number>, digits: number, largestFirst: boolean): string =>
  (largestFirst ? Object.entries(rec).sort((a, b) => b[1] - a[1]) : Object.entries(rec)).map(([k, v]) => `${k} ${fmt(v, digits)}`).join(', ') || 'none';

/** One read's profile as a line: phases, D-Bus calls per node, calls by member, RPC framing. */
export function profileLine(what: string, read: ProfiledRead): string {
  const framing = `RPC framing ${fmt(read.ms - read.read_ms)} ms (round trip ${fmt(read.ms)} − read_ms ${fmt(read.read_ms)})`;
  const p = read.profile;
  if (p === null) return `    ${what}: profile n/a (the helper gives none); ${framing}`;
  const perNode = read.node_count > 0 ? p.calls / read.node_count : Number.NaN;
  const cache = p.loads_reloaded > 0 ? `structure read (${p.nodes_loaded} objects, ${fmt(p.load_ms)} ms)` : 'structure reused';
  const waiting = read.read_ms - p.cpu_ms;
  return (
    `    ${what}: phases ms: ${entries(p.phases_ms, 1, false)}; ${cache}; helper CPU ${fmt(p.cpu_ms)} ms, waiting for the application ${fmt(Math.max(0, waiting))} ms; ` +
    `D-Bus calls ${fmt(p.calls, 0)} (${fmt(perNode, 2)} per node of ${read.node_count}); by member: ${entries(p.calls_by_member, 0, true)}; max in flight ${fmt(p.max_in_flight, 0)}; ${framing}`
  );
}

/** The profile block of one app: the cold and one repeated read of each lane, and the warm first read. */
export function profileBlock(r: AppResult): string[] {
  const out: string[] = [];
  for (const [lane, l] of Object.entries(r.lanes)) {
    out.push(profileLine(`${lane} cold`, l.helper.profile_cold));
    out.push(profileLine(`${lane} repeated`, l.helper.profile_repeated));
  }
  if (r.warm !== undefined)
    out.push(profileLine('warm first read', { ms: r.warm.ms, read_ms: r.warm.read_ms, node_count: r.warm.node_count, profile: r.warm.profile }));
  return out.length === 0 ? [] : [`  ${r.label}:`, ...out];
}

/** Pass/miss of one goal over a set of apps, with the worst app. */
export interface GoalJudgement {
  target: string;
  pass: boolean;
  worst: string;
  details: string[];
}

function judge(results: readonly AppResult[], target: string, pick: (r: AppResult) => number | undefined, threshold: number): GoalJudgement {
  const values = results.map((r) => ({ label: r.label, v: pick(r) ?? Number.NaN }));
  const worst = values.reduce<{ label: string; v: number } | undefined>((w, x) => (w === undefined || !(x.v >= w.v) ? x : w), undefined);
  return {
    target,
    pass: values.length > 0 && values.every((x) => x.v >= threshold),
    worst: worst === undefined ? '–' : `${worst.label} ${ratioText(worst.v)}`,
    details: values.map((x) => `${x.label}: ${ratioText(x.v)}`),
  };
}

/** The summary of the run against the goals. */
export interface Summary {
  cold: GoalJudgement;
  cold_rects: GoalJudgement;
  repeated: GoalJudgement;
  repeated_rects: GoalJudgement;
  warm_first_read: GoalJudgement;
  big: { target: string; pass: boolean; details: string };
  failed_apps: string[];
}

export function summarize(results: readonly AppResult[], bigLabel: string | undefined): Summary {
  const ok = results.filter((r) => r.lanes.text !== undefined);
  const big = results.find((r) => r.label === bigLabel)?.lanes;
  const bigText = big?.text?.helper;
  const bigRects = big?.rects?.helper;
  return {
    cold: judge(ok, `cold read ≥ ${TARGET_COLD}× pyatspi (text lane, every app)`, (r) => r.lanes.text?.ratio_cold, TARGET_COLD),
    cold_rects: judge(ok, `cold read ≥ ${TARGET_COLD}× pyatspi (with rects)`, (r) => r.lanes.rects?.ratio_cold, TARGET_COLD),
    repeated: judge(ok, `repeated read ≥ ${TARGET_REPEATED}× pyatspi (text lane, every app)`, (r) => r.lanes.text?.ratio_repeated, TARGET_REPEATED),
    repeated_rects: judge(ok, `repeated read ≥ ${TARGET_REPEATED}× pyatspi (with rects)`, (r) => r.lanes.rects?.ratio_repeated, TARGET_REPEATED),
    warm_first_read: judge(ok, `warm first read ≥ ${TARGET_COLD}× pyatspi cold (text)`, (r) => r.ratio_warm, TARGET_COLD),
    big: {
      target: `10,000-node window, max_nodes 5000, cold < ${TARGET_BIG_MS} ms`,
      pass: bigText !== undefined && bigText.cold_ms < TARGET_BIG_MS,
      details:
        bigText === undefined
          ? 'big window not measured'
          : `cold ${fmt(bigText.cold_ms)} ms text, ${fmt(bigRects?.cold_ms)} ms with rects; repeated ${fmt(bigText.repeated_ms_median)} ms text (median); ${bigText.node_count} nodes`,
    },
    failed_apps: results.filter((r) => r.status === 'failed').map((r) => r.label),
  };
}

/** Per app: the text lane's cold and repeated ratios (with rects beside), the warm first read, each judged. */
export function summaryLines(results: readonly AppResult[]): string[] {
  const width = Math.max(...results.map((r) => r.label.length + (r.seen ? 0 : 2)));
  return results.map((r) => {
    const label = `${r.label}${r.seen ? '' : ' *'}`.padEnd(width);
    const text = r.lanes.text;
    if (text === undefined) return `  ${label}  FAILED: ${r.error?.split('\n')[0]?.slice(0, 160) ?? ''}`;
    const rects = r.lanes.rects;
    const cold = `cold ${ratioText(text.ratio_cold).padStart(6)} ${pf(text.ratio_cold >= TARGET_COLD)} (rects ${ratioText(rects?.ratio_cold)})`;
    const rep = `repeated ${ratioText(text.ratio_repeated).padStart(6)} ${pf((text.ratio_repeated ?? 0) >= TARGET_REPEATED)} (rects ${ratioText(rects?.ratio_repeated)})`;
    const warm =
      r.ratio_warm === undefined
        ? `warm first read n/a${r.warm_error === undefined ? '' : ` (${r.warm_error.slice(0, 80)})`}`
        : `warm first read ${ratioText(r.ratio_warm).padStart(6)} ${pf(r.ratio_warm >= TARGET_COLD)} (≥${TARGET_REPEATED}×: ${r.ratio_warm >= TARGET_REPEATED ? 'yes' : 'no'})`;
    return `  ${label}  ${cold}; ${rep}; ${warm}`;
  });
}

/** Per app: what the peer could not read, node counts that varied, the helper's notes, the big window's goal. */
function appNotes(r: AppResult, bigLabel: string | undefined): string | undefined {
  const extra: string[] = [];
  for (const [lane, l] of Object.entries(r.lanes)) {
    const errs = l.peer.iterations
      .map((i) =>
        Object.entries(i.errors)
          .map(([k, v]) => `${k}:${v}`)
          .join(' '),
      )
      .filter((s) => s !== '');
    if (errs.length > 0) extra.push(`pyatspi (${lane}) read errors: ${[...new Set(errs)].join(' | ')}`);
    const peerNodes = new Set(l.peer.iterations.map((i) => i.nodes));
    if (peerNodes.size > 1) extra.push(`pyatspi (${lane}) node counts varied: ${[...peerNodes].join(',')}`);
  }
  const notes = [...new Set(Object.values(r.lanes).flatMap((l) => l.helper.notes))];
  if (notes.length > 0) extra.push(`helper notes: ${notes.join(' | ')}`);
  const text = r.lanes.text?.helper;
  if (r.label === bigLabel && text !== undefined) {
    const rects = r.lanes.rects?.helper;
    const yes = (ms: number | undefined): string => (ms === undefined ? '–' : `${ms < TARGET_BIG_MS ? 'yes' : 'NO'} (${fmt(ms)} ms)`);
    extra.push(
      `big window < ${TARGET_BIG_MS} ms: cold text ${yes(text.cold_ms)}, cold with rects ${yes(rects?.cold_ms)}, repeated text ${yes(text.repeated_ms_median)}, warm first read ${yes(r.warm?.ms)}, cold in a warm helper process ${yes(r.warm_process_cold?.ms)}`,
    );
  }
  if (r.warm_error !== undefined) extra.push(`warm lane: ${r.warm_error}`);
  return extra.length > 0 ? `${r.label}: ${extra.join('; ')}` : undefined;
}

/** Everything the bench prints after the run, line by line. */
export function report(results: readonly AppResult[], summary: Summary, bigLabel: string | undefined): string[] {
  const out: string[] = [''];
  out.push(
    'Overseer helper vs pyatspi walk (same fields), max_nodes 5000, max_children_per_node 5000, max_tokens 200000; * = an app the helper was never tuned for',
  );
  out.push(
    'lanes: text = helper rects:false vs pyatspi without extents (the default text answer shows no rectangles); rects = helper rects:true vs pyatspi with extents',
  );
  out.push(
    'helper: fresh process per app and lane, prefetch off (OVERSEER_PREFETCH=0); cold = first window_read, rep. = median of 10; ms by the client around the call (helper read_ms in parentheses)',
  );
  out.push(
    'pyatspi: fresh python per app and lane; cold = first walk, rep. = median of the rest (10, or 5 on the large windows); breadth-first, default cache settings',
  );
  out.push(
    'warm 1st read: a fresh helper as shipped (prefetch on), the window activated, 1.5 s, then the first read (text lane), ratio vs pyatspi cold (text)',
  );
  out.push('warm proc. cold (informational): first read of the app by a helper process that already read another app, ratio vs pyatspi cold (text)');
  out.push('apps warmed up by one throwaway helper read before anything is timed; × = pyatspi ms / helper ms');
  out.push('');
  out.push(table(results));
  out.push('');
  for (const r of results) {
    const line = appNotes(r, bigLabel);
    if (line !== undefined) out.push(line);
  }
  for (const r of results.filter((x) => x.status === 'failed')) out.push(`${r.label}: FAILED: ${r.error ?? ''}`);
  out.push('');
  out.push('Helper profile (cold and one repeated read per lane, asked with profile: true; RPC framing = client round trip − helper read_ms):');
  for (const r of results) out.push(...profileBlock(r));
  out.push('');
  out.push(
    `Per app (text lane; with rects in parentheses): cold ≥ ${TARGET_COLD}×, repeated ≥ ${TARGET_REPEATED}×, warm first read ≥ ${TARGET_COLD}× pyatspi cold`,
  );
  out.push(...summaryLines(results));
  out.push(`  ${summary.big.target}: ${pf(summary.big.pass)} (${summary.big.details})`);
  out.push('');
  const goal = (g: GoalJudgement): string => `${g.target}: ${pf(g.pass)} (worst ${g.worst})`;
  out.push(
    `SUMMARY (informational): ${goal(summary.cold)}; ${goal(summary.repeated)}; ${goal(summary.warm_first_read)}; ${summary.big.target}: ${pf(summary.big.pass)}` +
      (summary.failed_apps.length > 0 ? `; FAILED apps: ${summary.failed_apps.join(', ')}` : ''),
  );
  out.push(`  with rects: ${goal(summary.cold_rects)}; ${goal(summary.repeated_rects)}`);
  return out;
}
