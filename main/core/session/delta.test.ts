import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Element, Role, WindowInfo } from '../../../protocol/index.js';
import { canonicalJson, observationScope } from './canonical.js';
import { applyDelta, computeDelta, flatten, jsonEqual, unflatten } from './delta.js';
import { type Observation, ObservationStore } from './observations.js';

const WIN: WindowInfo = { window: 'w1', title: 'Editor', app: 'editor', pid: 10, process_start: '100', foreground: true };
const observation = (elements: Element[], format: 'tree' | 'flat'): Observation => ({ scope: 'q', window: WIN, format, elements, truncated: false, meta: {} });

describe('observationScope', () => {
  it('ignores since, snapshot, targets and key order, but not the window or budgets', () => {
    const a = observationScope({ format: 'flat', max_nodes: 50, since: 'O1', targets: true }, 'w1');
    assert.equal(a, observationScope({ max_nodes: 50, format: 'flat', snapshot: 'O2' }, 'w1'));
    assert.notEqual(a, observationScope({ format: 'flat', max_nodes: 50 }, 'w2'));
    assert.notEqual(a, observationScope({ format: 'flat', max_nodes: 51 }, 'w1'));
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] }), '{"a":[{"d":2}],"b":1}');
  });
});

describe('jsonEqual', () => {
  it('compares JSON values up to key order, ignoring undefined members', () => {
    assert.ok(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }));
    assert.ok(jsonEqual({ a: 1, u: undefined }, { a: 1 }));
    assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: null }));
    assert.ok(!jsonEqual([1, 2], [2, 1]));
    assert.ok(!jsonEqual({ a: [] }, { a: {} }));
    assert.ok(!jsonEqual({ a: 1 }, { b: 1 }));
  });
});

/** Deterministic PRNG (mulberry32) so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Node {
  el: Element;
  kids: Node[];
}
const ROLES: Role[] = ['button', 'edit', 'label', 'list_item', 'group', 'check_box', 'menu_item'];

/** A random tree model with `count` nodes, its random elements, and random edits of it. */
class RandomTrees {
  private next = 0;
  constructor(private readonly rnd: () => number) {}

  int(n: number): number {
    return Math.floor(this.rnd() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }

  element(): Element {
    const e: Element = { key: `k${this.next++}`, role: this.pick(ROLES), state: { enabled: this.rnd() < 0.9 }, patterns: this.rnd() < 0.5 ? ['invoke'] : [] };
    if (this.rnd() < 0.8) e.name = `name ${this.int(50)}`;
    if (this.rnd() < 0.3) e.value = `value ${this.int(50)}`;
    if (this.rnd() < 0.7) e.rect = { x: this.int(900), y: this.int(900), w: 40, h: 20, cx: 0, cy: 0 };
    return e;
  }

  tree(count: number): Node {
    const root: Node = { el: { ...this.element(), role: 'window' }, kids: [] };
    const all = [root];
    for (let i = 1; i < count; i++) {
      const node: Node = { el: this.element(), kids: [] };
      const host = this.pick(all);
      host.kids.splice(this.int(host.kids.length + 1), 0, node);
      all.push(node);
    }
    return root;
  }

  /** Applies one random edit in place: a field change, insertion, removal, move or sibling swap. */
  edit(root: Node): void {
    const all = nodes(root);
    const nonRoot = all.slice(1);
    const kind = nonRoot.length === 0 ? this.pick(['field', 'insert']) : this.pick(['field', 'field', 'insert', 'remove', 'move', 'swap']);
    if (kind === 'field') {
      const e = this.pick(all).el;
      const f = this.int(5);
      if (f === 0) e.name = `renamed ${this.int(1000)}`;
      else if (f === 1) e.value = `typed ${this.int(1000)}`;
      else if (f === 2) e.rect = { x: this.int(900), y: 1, w: 2, h: 3, cx: 1, cy: 2 };
      else if (f === 3) e.state = { ...e.state, focused: this.rnd() < 0.5 };
      else delete e.name;
    } else if (kind === 'insert') {
      const host = this.pick(all);
      host.kids.splice(this.int(host.kids.length + 1), 0, { el: this.element(), kids: this.rnd() < 0.3 ? [{ el: this.element(), kids: [] }] : [] });
    } else {
      const node = this.pick(nonRoot);
      const parent = all.find((p) => p.kids.includes(node)) as Node;
      if (kind === 'swap') {
        const j = this.int(parent.kids.length);
        const i = parent.kids.indexOf(node);
        [parent.kids[i], parent.kids[j]] = [parent.kids[j] as Node, node];
        return;
      }
      parent.kids.splice(parent.kids.indexOf(node), 1);
      if (kind === 'move') {
        const inside = new Set(nodes(node));
        const host = this.pick(all.filter((n) => !inside.has(n)));
        host.kids.splice(this.int(host.kids.length + 1), 0, node);
      }
    }
  }
}

const nodes = (root: Node): Node[] => [root, ...root.kids.flatMap(nodes)];

/** The model as window_read elements: nested children (omitted when empty) or a flat list with depth/parent. */
function render(root: Node, format: 'tree' | 'flat'): Element[] {
  if (format === 'tree') {
    const toEl = (n: Node): Element => (n.kids.length > 0 ? { ...n.el, children: n.kids.map(toEl) } : { ...n.el });
    return [toEl(root)];
  }
  const out: Element[] = [];
  const walk = (n: Node, depth: number, parent: string | undefined): void => {
    out.push(parent === undefined ? { ...n.el, depth } : { ...n.el, depth, parent });
    for (const k of n.kids) walk(k, depth + 1, n.el.key);
  };
  walk(root, 0, undefined);
  return out;
}

describe('delta property: base + delta == new', () => {
  it('reconstructs the new observation exactly for 400 seeded random edits of random trees', () => {
    let deltas = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const gen = new RandomTrees(prng(seed));
      const format = seed % 2 === 0 ? 'tree' : 'flat';
      const model = gen.tree(1 + gen.int(300));
      const base = render(model, format);
      const edited = structuredClone(model);
      const edits = gen.int(8);
      for (let i = 0; i < edits; i++) gen.edit(edited);
      const next = render(edited, format);
      const baseFlat = flatten(base, format);
      const nextFlat = flatten(next, format);

      const raw = computeDelta(baseFlat, nextFlat);
      const rebuilt = applyDelta(baseFlat.records, raw);
      assert.deepEqual(rebuilt, nextFlat.records, `seed ${seed}`);
      assert.deepEqual(format === 'tree' ? unflatten(rebuilt) : rebuilt, next, `seed ${seed}`);
      const before = new Map(baseFlat.records.map((r) => [r.key, canonicalJson(r)]));
      for (const c of raw.changed) assert.notEqual(before.get(c.key), canonicalJson(c.element), `seed ${seed}: ${c.key} listed as changed but equal`);
      if (edits === 0) assert.deepEqual(raw, { added: [], changed: [], removed: [] }, `seed ${seed}`);

      const store = new ObservationStore();
      const id = store.record(observation(base, format));
      const r = store.diff(id, observation(next, format));
      if (r.mode === 'delta') {
        deltas += 1;
        assert.deepEqual(r.delta, raw, `seed ${seed}`);
      } else {
        assert.equal(r.reset_reason, 'delta_larger', `seed ${seed}`);
      }
    }
    assert.ok(deltas > 200, `only ${deltas} of 400 cases answered with a delta`);
  });
});
