import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HelperReadResult, isHelperReadResult, rect, type Element } from '../index.js';

/** A window_read answer as the helper gives one: a tree of every kind of field, identity refs, budgets. */
function sample(): Record<string, unknown> {
  const leaf = (i: number): Element => ({
    key: `atspi:1.2:/org/a11y/${i}`,
    role: i % 2 === 0 ? 'button' : 'edit',
    name: `Item ${i}`,
    ...(i % 2 === 1 ? { value: 'typed', cut: ['value' as const] } : { actions: ['click'] }),
    automation_id: `item_${i}`,
    rect: rect(10 * i, 20, 100, 30),
    state: { enabled: true, focusable: true, checked: i === 3 ? 'mixed' : false },
    patterns: ['invoke', 'focus'],
    digest: `d${i}`,
  });
  const root: Element = {
    key: 'atspi:1.2:/org/a11y/root',
    role: 'window',
    native_role: 'frame',
    name: 'Fixture',
    class: 'GtkWindow',
    state: { active: true },
    patterns: [],
    unread: ['value'],
    digest: 'droot',
    children: [leaf(1), { ...leaf(2), children: [leaf(3), { ...leaf(4), redacted: true }] }],
  };
  const refs = Object.fromEntries(
    [root.key, ...[1, 2, 3, 4].map((i) => leaf(i).key)].map((key, i) => [
      key,
      {
        key,
        window: 'w1',
        process: { pid: 42, process_start: '123' },
        digest: `d${i}`,
        role: 'button',
        name: 'Item',
        ancestors: ['window "Fixture"'],
        window_title: 'Fixture',
        window_rect: rect(0, 0, 800, 600),
        ...(i === 2 ? { shown: { value_hash: 'none', checked: true } } : {}),
      },
    ]),
  );
  return {
    window: { window: 'w1', title: 'Fixture', app: 'python3', pid: 42, process_start: '123', rect: rect(0, 0, 800, 600), foreground: true, role: 'window' },
    format: 'tree',
    elements: [root],
    node_count: 5,
    limits: { max_nodes: { value: 400, ceiling: 5000 }, timeout_ms: { value: 5000, ceiling: 20000, requested: 5000 } },
    truncated_by: ['max_text'],
    notes: ['a note'],
    read_ms: 12.5,
    refs,
  };
}

/** Every place in a JSON value, as the path of keys and indexes to it. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [at];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [at, ...entries.flatMap(([k, v]) => paths(v, [...at, k]))];
}

/** A copy of `value` with the thing at `path` replaced (or, given undefined, removed). */
function changed(value: unknown, path: (string | number)[], to: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  if (path.length === 0) return to;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (to === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = to;
  return copy;
}

describe("the fast check of the helper's window_read answer", () => {
  it('accepts a well-formed answer, which zod accepts unchanged', () => {
    const answer = sample();
    assert.equal(isHelperReadResult(answer), true);
    const parsed = HelperReadResult.safeParse(answer);
    assert.equal(parsed.success, true);
    assert.deepEqual(parsed.data, answer);
  });

  it('accepts nothing zod refuses or would change: every field removed, mistyped, overlong or joined by an unknown one', () => {
    const answer = sample();
    const wrong: unknown[] = [undefined, null, 1.5, -1, '', 'x'.repeat(6000), true, 'mixed', [], {}, ['nonsense'], { unknown_field: 1 }];
    let refused = 0;
    let cases = 0;
    for (const path of paths(answer)) {
      const variants = [...wrong.map((w) => changed(answer, path, w))];
      const here = path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], answer);
      if (here !== null && typeof here === 'object' && !Array.isArray(here)) variants.push(changed(answer, [...path, 'unknown_field'], 1));
      for (const v of variants) {
        cases++;
        if (!isHelperReadResult(v)) {
          refused++;
          continue;
        }
        const parsed = HelperReadResult.safeParse(v);
        assert.equal(parsed.success, true, `the check accepted what zod refuses at ${path.join('.')}: ${parsed.error?.message.slice(0, 300)}`);
        assert.deepEqual(parsed.data, v, `zod would change what the check accepted at ${path.join('.')}`);
      }
    }
    assert.ok(refused > cases / 2, `${refused} of ${cases} broken answers refused`);
  });

  it('refuses what zod refuses in the recursion: a malformed child deep in the tree', () => {
    const answer = sample();
    const deep = changed(answer, ['elements', 0, 'children', 1, 'children', 0, 'role'], 'not_a_role');
    assert.equal(isHelperReadResult(deep), false);
    assert.equal(HelperReadResult.safeParse(deep).success, false);
  });
});
