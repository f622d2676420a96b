import type { z } from 'zod';
import type { Delta as DeltaSchema, Element } from '../../../protocol/index.js';

/** A window_read delta (docs/tools.md#observations-and-deltas): records to insert, replace and delete, and the resulting key order. */
export type Delta = z.infer<typeof DeltaSchema>;

/** Why a flattened list cannot be diffed by identity. */
export type IdentityProblem = 'missing_keys' | 'duplicate_keys';

/** An observation's elements as flat records in document order, ready for comparison. */
export interface Flattened {
  format: 'tree' | 'flat';
  /** Records without `children`; in tree format each carries `parent` (its position in the tree). */
  records: Element[];
  keys: string[];
  /** Set when keys are missing or repeated: such a list has no delta. */
  problem?: IdentityProblem;
}

/**
 * Flattens elements in document order. Flat format keeps each element as given (depth/parent are
 * ordinary fields). Tree format drops `children` and records the structure as `parent`, because
 * document order alone cannot tell a child from a next sibling.
 */
export function flatten(elements: readonly Element[], format: 'tree' | 'flat'): Flattened {
  const records: Element[] = [];
  if (format === 'flat') {
    for (const el of elements) records.push(el.children === undefined ? el : copyWithout(el, 'children'));
  } else {
    // Iterative, so a deep tree cannot overflow the stack.
    const stack: { el: Element; parent: string | undefined }[] = [];
    for (let i = elements.length - 1; i >= 0; i--) stack.push({ el: elements[i] as Element, parent: undefined });
    while (stack.length > 0) {
      const { el, parent } = stack.pop() as { el: Element; parent: string | undefined };
      const rec = copyWithout(el, 'children', 'parent');
      if (parent !== undefined) rec.parent = parent;
      records.push(rec);
      const kids = el.children ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ el: kids[i] as Element, parent: el.key });
    }
  }
  const keys = records.map((r) => r.key);
  const flat: Flattened = { format, records, keys };
  const problem = identityProblem(keys);
  if (problem !== undefined) flat.problem = problem;
  return flat;
}

/** A shallow copy without the named fields; copying instead of `delete` keeps objects in V8's fast mode. */
function copyWithout(el: Element, ...skip: (keyof Element)[]): Element {
  const copy: Record<string, unknown> = {};
  for (const k in el) if (!skip.includes(k as keyof Element)) copy[k] = el[k as keyof Element];
  return copy as Element;
}

function identityProblem(keys: readonly string[]): IdentityProblem | undefined {
  const seen = new Set<string>();
  for (const k of keys) {
    if (typeof k !== 'string' || k === '') return 'missing_keys';
    if (seen.has(k)) return 'duplicate_keys';
    seen.add(k);
  }
  return undefined;
}

/** The delta that turns `base` into `next`; both must be free of identity problems. */
export function computeDelta(base: Flattened, next: Flattened): Delta {
  const baseIndex = new Map<string, number>();
  base.keys.forEach((k, i) => baseIndex.set(k, i));
  const delta: Delta = { added: [], changed: [], removed: [] };
  next.keys.forEach((key, i) => {
    const j = baseIndex.get(key);
    const element = next.records[i] as Element;
    if (j === undefined) delta.added.push({ key, element });
    else if (!jsonEqual(base.records[j], element)) delta.changed.push({ key, element });
  });
  const nextKeys = new Set(next.keys);
  for (const k of base.keys) if (!nextKeys.has(k)) delta.removed.push(k);
  const reordered = delta.added.length > 0 || delta.removed.length > 0 || next.keys.some((k, i) => k !== base.keys[i]);
  if (reordered) delta.order = [...next.keys];
  return delta;
}

/**
 * Whether two JSON values serialize to the same JSON up to object key order. Structural, with no
 * serialization: this runs for every element of every `since` query.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  // JSON drops undefined members, so they do not count on either side. for…in allocates nothing;
  // elements are plain (parsed or literal) objects, so it sees exactly their own fields.
  let defined = 0;
  for (const k in ra) {
    if (ra[k] === undefined) continue;
    defined += 1;
    if (!jsonEqual(ra[k], rb[k])) return false;
  }
  for (const k in rb) if (rb[k] !== undefined) defined -= 1;
  return defined === 0;
}

/**
 * Whether the delta's JSON is larger than the full answer's elements. Sums the flattened records'
 * JSON (a lower bound of the full JSON) and stops as soon as that exceeds the delta, so a small delta
 * costs a few records' serialization instead of the whole answer's.
 */
export function deltaLarger(delta: Delta, next: Flattened, elements: readonly Element[]): boolean {
  const deltaSize = JSON.stringify(delta).length;
  let lowerBound = 0;
  for (const rec of next.records) {
    // A tree record's `parent` is not in the tree's JSON: `,"parent":` plus the key, appended last by flatten.
    const annotation = next.format === 'flat' || rec.parent === undefined ? 0 : 10 + JSON.stringify(rec.parent).length;
    lowerBound += JSON.stringify(rec).length - annotation;
    if (lowerBound > deltaSize) return false;
  }
  return deltaSize > JSON.stringify(elements).length;
}

/**
 * Reconstructs the flat record list from a base's records and a delta: delete `removed`, replace
 * `changed`, insert `added`, then arrange by `order` (or keep the base order when it is absent).
 * Throws on a delta that does not fit the base (a bug on one side or the other).
 */
export function applyDelta(base: readonly Element[], delta: Delta): Element[] {
  const byKey = new Map<string, Element>(base.map((e) => [e.key, e]));
  for (const k of delta.removed) {
    if (!byKey.delete(k)) throw new Error(`delta removes unknown key ${k}`);
  }
  for (const { key, element } of delta.changed) {
    if (!byKey.has(key)) throw new Error(`delta changes unknown key ${key}`);
    byKey.set(key, element);
  }
  for (const { key, element } of delta.added) {
    if (byKey.has(key)) throw new Error(`delta adds existing key ${key}`);
    byKey.set(key, element);
  }
  const order = delta.order ?? base.map((e) => e.key);
  if (order.length !== byKey.size) throw new Error(`delta order lists ${order.length} keys for ${byKey.size} elements`);
  return order.map((k) => {
    const el = byKey.get(k);
    if (el === undefined) throw new Error(`delta order names unknown key ${k}`);
    return el;
  });
}

/** Rebuilds tree-format elements from flattened records (the inverse of `flatten(…, 'tree')`). */
export function unflatten(records: readonly Element[]): Element[] {
  const roots: Element[] = [];
  const nodes = new Map<string, Element>();
  for (const rec of records) {
    const { parent, ...el } = rec;
    nodes.set(el.key, el);
    const host = parent === undefined ? undefined : nodes.get(parent);
    if (host === undefined) roots.push(el);
    else (host.children ??= []).push(el);
  }
  return roots;
}
