/**
 * Measures what a `since` query saves: a 2,000-element observation where one element's value changed,
 * delta answer vs full answer (JSON bytes), and how long `diff` takes, in flat and tree format.
 * Run: npx tsx bench/measureDelta.ts
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Element, type WindowInfo, rect } from '../protocol/index.js';
import { type Observation, ObservationStore } from '../main/core/session/observations.js';

const N = 2000;
const RUNS = 50;
const WIN: WindowInfo = {
  window: '721042',
  title: 'Orders — Editor',
  app: 'editor',
  pid: 4242,
  process_start: '133500000000000000',
  foreground: true,
  rect: rect(0, 0, 1920, 1080),
};

/** A realistic element: what a targeted flat read carries per row (digest and target included). */
function element(i: number): Element {
  const e: Element = {
    key: `uia:4242:42.${100000 + i}.4.${i}`,
    role: i % 5 === 0 ? 'edit' : 'list_item',
    name: `Order ${10000 + i} — customer ${i % 97}`,
    automation_id: `row_${i}`,
    class: 'ListViewItem',
    rect: rect(10, 40 + (i % 40) * 24, 600, 22),
    state: { enabled: true, focusable: true, selectable: true, selected: false, offscreen: i >= 40 },
    patterns: i % 5 === 0 ? ['value', 'focus'] : ['selection_item', 'scroll_item', 'invoke'],
    digest: randomBytes(16).toString('base64url').slice(0, 22),
    target: `T${randomBytes(16).toString('base64url')}`,
    depth: i === 0 ? 0 : 1,
  };
  if (i % 5 === 0) e.value = `${i * 3} pcs`;
  if (i > 0) e.parent = 'uia:4242:42.100000.4.0';
  return e;
}

/** The answer around the elements or the delta (docs/tools.md#window_read fields). */
const answer = (body: Record<string, unknown>): string =>
  JSON.stringify({
    window: WIN,
    observation: 'O1a',
    ...body,
    node_count: N,
    limits: { max_nodes: { value: 5000, ceiling: 5000 } },
    read_ms: 180,
    truncated_by: [],
    notes: [],
  });

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const spread = (xs: number[]): string => `median ${median(xs).toFixed(2)} ms (min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)})`;
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The same elements as a tree: the root, 99 groups under it, the rest spread over the groups. */
function asTree(flat: readonly Element[]): Element[] {
  const nodes = flat.map(({ depth: _d, parent: _p, ...rest }) => ({ ...rest }));
  const root = nodes[0] as Element;
  root.children = nodes.slice(1, 100);
  nodes.slice(100).forEach((n, i) => ((nodes[1 + (i % 99)] as Element).children ??= []).push(n));
  return [root];
}

const flatBase = Array.from({ length: N }, (_, i) => element(i));
const lines: string[] = [];
for (const format of ['flat', 'tree'] as const) {
  const base = format === 'flat' ? flatBase : asTree(flatBase);
  // Fresh objects, as parsed from the helper's answer: no reference equality to lean on.
  const next = structuredClone(base);
  const target = format === 'flat' ? next[1234] : next[0]?.children?.[7]?.children?.[11];
  if (target === undefined) throw new Error('no element to change');
  target.value = 'changed';
  const obs = (elements: Element[]): Observation => ({ scope: 'q', window: WIN, format, elements, truncated: false, meta: {} });
  const cold: number[] = [];
  const warm: number[] = [];
  let delta: unknown;
  for (let r = 0; r < RUNS; r++) {
    const store = new ObservationStore();
    const id = store.record(obs(base));
    const first = obs(next);
    let t = performance.now();
    const one = store.diff(id, first); // base flattened here
    cold.push(performance.now() - t);
    const again = obs(structuredClone(next));
    t = performance.now();
    const two = store.diff(one.observation, again); // base's flattening reused
    warm.push(performance.now() - t);
    if (one.mode !== 'delta' || two.mode !== 'delta') throw new Error('expected delta answers');
    delta = one.delta;
  }
  const full = bytes(answer({ mode: 'full', format, elements: next }));
  const partial = bytes(answer({ mode: 'delta', format, delta }));
  lines.push(
    `${format}: ${N} elements, one value changed`,
    `  full answer ${full} bytes; delta answer ${partial} bytes = ${((100 * partial) / full).toFixed(2)}% of full`,
    `  (delta alone ${bytes(JSON.stringify(delta))} bytes; elements alone ${bytes(JSON.stringify(next))} bytes)`,
    `  diff, base not yet flattened: ${spread(cold)}`,
    `  diff, base already flattened: ${spread(warm)}`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
