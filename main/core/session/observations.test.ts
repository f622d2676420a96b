import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Element, WindowInfo } from '../../../protocol/index.js';
import { applyDelta, flatten, unflatten } from './delta.js';
import { type DeltaResult, type Observation, ObservationStore } from './observations.js';

const WIN: WindowInfo = { window: 'w1', title: 'Editor', app: 'editor', pid: 10, process_start: '100', foreground: true };

/** A button-like element; `over` replaces any field. */
const el = (key: string, over: Partial<Element> = {}): Element => ({
  key,
  role: 'button',
  name: `Button ${key}`,
  state: { enabled: true },
  patterns: ['invoke'],
  ...over,
});

/** A flat list: a root and `n` children c0…c(n-1). */
const flatList = (n: number): Element[] => [
  el('root', { role: 'window', depth: 0 }),
  ...Array.from({ length: n }, (_, i) => el(`c${i}`, { depth: 1, parent: 'root' })),
];

const observation = (elements: Element[], over: Partial<Observation> = {}): Observation => ({
  scope: 'q',
  window: WIN,
  format: 'flat',
  elements,
  truncated: false,
  meta: {},
  ...over,
});

/** The delta of a result, failing the test when the answer was full. */
function deltaOf(r: DeltaResult): Extract<DeltaResult, { mode: 'delta' }>['delta'] {
  if (r.mode === 'full') assert.fail(`expected a delta, got a full answer: ${r.reset_reason}`);
  return r.delta;
}

const replaceAt = (list: Element[], i: number, e: Element): Element[] => list.map((x, j) => (j === i ? e : x));

describe('ObservationStore deltas', () => {
  it('names exactly the element whose field changed, whole, and nothing else', () => {
    const store = new ObservationStore();
    const base = flatList(10);
    const id = store.record(observation(base));
    const next = replaceAt(base, 4, { ...(base[4] as Element), value: 'typed' });
    const delta = deltaOf(store.diff(id, observation(next)));
    assert.deepEqual(delta, { added: [], changed: [{ key: 'c3', element: next[4] }], removed: [] });
  });

  it('answers an unchanged read with an empty delta and no order', () => {
    const store = new ObservationStore();
    const id = store.record(observation(flatList(5)));
    assert.deepEqual(deltaOf(store.diff(id, observation(flatList(5)))), { added: [], changed: [], removed: [] });
  });

  it('does not count a different field order as a change', () => {
    const store = new ObservationStore();
    const base = flatList(5);
    const id = store.record(observation(base));
    const reordered = base.map((e) => Object.fromEntries(Object.entries(e).reverse()) as Element);
    assert.deepEqual(deltaOf(store.diff(id, observation(reordered))), { added: [], changed: [], removed: [] });
  });

  it('lists an inserted element in added with the resulting order', () => {
    const store = new ObservationStore();
    const base = flatList(10);
    const id = store.record(observation(base));
    const fresh = el('new', { depth: 1, parent: 'root' });
    const next = [...base.slice(0, 3), fresh, ...base.slice(3)];
    const delta = deltaOf(store.diff(id, observation(next)));
    assert.deepEqual(delta.added, [{ key: 'new', element: fresh }]);
    assert.deepEqual(delta.changed, []);
    assert.deepEqual(delta.removed, []);
    assert.deepEqual(
      delta.order,
      next.map((e) => e.key),
    );
  });

  it('lists a removed element by key with the resulting order', () => {
    const store = new ObservationStore();
    const base = flatList(10);
    const id = store.record(observation(base));
    const next = base.filter((e) => e.key !== 'c5');
    const delta = deltaOf(store.diff(id, observation(next)));
    assert.deepEqual([delta.added, delta.changed, delta.removed], [[], [], ['c5']]);
    assert.deepEqual(
      delta.order,
      next.map((e) => e.key),
    );
  });

  it('reports a sibling move as order alone', () => {
    const store = new ObservationStore();
    const base = flatList(10);
    const id = store.record(observation(base));
    const next = [base[0], base[9], ...base.slice(1, 9), base[10]] as Element[];
    const delta = deltaOf(store.diff(id, observation(next)));
    assert.deepEqual([delta.added, delta.changed, delta.removed], [[], [], []]);
    assert.deepEqual(
      delta.order,
      next.map((e) => e.key),
    );
  });

  it('in tree format, reports a reparented element as changed with its new parent', () => {
    const store = new ObservationStore();
    const leaves = Array.from({ length: 8 }, (_, i) => el(`c${i}`));
    const tree = (kids: Element[]): Element[] => [el('root', { role: 'window', children: [el('a', { role: 'group', children: kids })] })];
    const base = tree(leaves);
    const id = store.record(observation(base, { format: 'tree' }));
    // c3 becomes c2's child instead of its next sibling: document order is unchanged, only the parent differs.
    const next = tree([...leaves.slice(0, 2), { ...(leaves[2] as Element), children: [leaves[3] as Element] }, ...leaves.slice(4)]);
    const delta = deltaOf(store.diff(id, observation(next, { format: 'tree' })));
    assert.deepEqual(delta, { added: [], changed: [{ key: 'c3', element: { ...leaves[3], parent: 'c2' } }], removed: [] });
    assert.deepEqual(unflatten(applyDelta(flatten(base, 'tree').records, delta)), next);
  });

  it('in tree format, reports a move across groups as order and the new parent', () => {
    const store = new ObservationStore();
    const leaves = Array.from({ length: 8 }, (_, i) => el(`c${i}`));
    const tree = (groupA: Element[], groupB: Element[]): Element[] => [
      el('root', { role: 'window', children: [el('a', { role: 'group', children: groupA }), el('b', { role: 'group', children: groupB })] }),
    ];
    const base = tree(leaves.slice(0, 4), leaves.slice(4));
    const id = store.record(observation(base, { format: 'tree' }));
    const next = tree(leaves.slice(0, 3), leaves.slice(3));
    const delta = deltaOf(store.diff(id, observation(next, { format: 'tree' })));
    assert.deepEqual(delta.changed, [{ key: 'c3', element: { ...leaves[3], parent: 'b' } }]);
    assert.deepEqual(delta.order, ['root', 'a', 'c0', 'c1', 'c2', 'b', 'c3', 'c4', 'c5', 'c6', 'c7']);
    assert.deepEqual(unflatten(applyDelta(flatten(base, 'tree').records, delta)), next);
  });

  it('records the new observation under the answered id, usable as the next base', () => {
    const store = new ObservationStore();
    const a = observation(flatList(10));
    const b = observation(replaceAt(a.elements, 1, el('c0', { depth: 1, parent: 'root', name: 'Renamed' })));
    const c = observation(replaceAt(b.elements, 2, el('c1', { depth: 1, parent: 'root', name: 'Renamed too' })));
    const idA = store.record(a);
    const rb = store.diff(idA, b);
    assert.equal(store.get(rb.observation), b);
    const deltaC = deltaOf(store.diff(rb.observation, c));
    assert.deepEqual(
      deltaC.changed.map((x) => x.key),
      ['c1'],
    );
  });

  it('records under an allocated id, so targets can be issued before recording', () => {
    const store = new ObservationStore();
    const base = store.record(observation(flatList(3)));
    const id = store.allocate();
    assert.equal(store.status(id), 'unknown');
    assert.equal(store.diff(base, observation(flatList(3)), id).observation, id);
    assert.equal(store.status(id), 'retained');
    assert.throws(() => store.record(observation([]), id), /already recorded/);
    assert.throws(() => store.record(observation([]), 'Ozz'), /not allocated/);
  });
});

describe('ObservationStore full answers', () => {
  const fullReason = (r: DeltaResult): string => (r.mode === 'full' ? r.reset_reason : 'delta');

  it('answers in full when the new read or the base was truncated', () => {
    const store = new ObservationStore();
    const id = store.record(observation(flatList(5)));
    assert.equal(fullReason(store.diff(id, observation(flatList(5), { truncated: true }))), 'truncated');
    const cut = store.record(observation(flatList(5), { truncated: true }));
    assert.equal(fullReason(store.diff(cut, observation(flatList(5)))), 'base_truncated');
  });

  it('answers in full when identities are duplicated or missing, in either observation', () => {
    const store = new ObservationStore();
    const id = store.record(observation(flatList(5)));
    const dup = [...flatList(5), el('c2', { depth: 1, parent: 'root' })];
    assert.equal(fullReason(store.diff(id, observation(dup))), 'duplicate_keys');
    assert.equal(fullReason(store.diff(id, observation([...flatList(5), el('', { depth: 1 })]))), 'missing_keys');
    const dupBase = store.record(observation(dup));
    assert.equal(fullReason(store.diff(dupBase, observation(flatList(5)))), 'base_duplicate_keys');
    const dupTree = [el('root', { children: [el('x'), el('y', { children: [el('x')] })] })];
    assert.equal(fullReason(store.diff(id, observation(dupTree, { format: 'tree' }))), 'scope_changed');
    const treeBase = store.record(observation([el('root')], { format: 'tree' }));
    assert.equal(fullReason(store.diff(treeBase, observation(dupTree, { format: 'tree' }))), 'duplicate_keys');
  });

  it('answers in full when the scope, format or window process changed', () => {
    const store = new ObservationStore();
    const id = store.record(observation(flatList(5)));
    assert.equal(fullReason(store.diff(id, observation(flatList(5), { scope: 'other' }))), 'scope_changed');
    const id2 = store.record(observation(flatList(5)));
    assert.equal(fullReason(store.diff(id2, observation(flatList(5), { window: { ...WIN, process_start: '101' } }))), 'scope_changed');
  });

  it('answers in full with base_unknown or base_evicted for a base it cannot use', () => {
    const store = new ObservationStore({ capacity: 2 });
    const first = store.record(observation(flatList(3)));
    store.record(observation(flatList(3)));
    store.record(observation(flatList(3)));
    assert.equal(fullReason(store.diff(first, observation(flatList(3)))), 'base_evicted');
    assert.equal(fullReason(store.diff('O999', observation(flatList(3)))), 'base_unknown');
    assert.equal(fullReason(store.diff('nonsense', observation(flatList(3)))), 'base_unknown');
  });

  it('keeps a base that recording the new observation would evict', () => {
    const store = new ObservationStore({ capacity: 1 });
    const id = store.record(observation(flatList(5)));
    assert.equal(store.diff(id, observation(flatList(5))).mode, 'delta');
    assert.equal(store.status(id), 'evicted');
  });

  it('evicts the first observation when the 65th is recorded', () => {
    const store = new ObservationStore();
    const ids = Array.from({ length: 65 }, () => store.record(observation(flatList(1))));
    assert.equal(new Set(ids).size, 65);
    assert.equal(store.get(ids[0] as string), undefined);
    assert.equal(store.status(ids[0] as string), 'evicted');
    assert.equal(store.status(ids[1] as string), 'retained');
    assert.equal(store.status('O' + (1000).toString(36)), 'unknown');
    assert.equal(store.status('O01'), 'unknown');
  });

  it('answers in full when the delta would be larger than the full answer', () => {
    const store = new ObservationStore();
    const base = flatList(10);
    const id = store.record(observation(base));
    const next = base.map((e) => ({ ...e, value: 'all changed' }));
    assert.equal(fullReason(store.diff(id, observation(next))), 'delta_larger');
  });
});
