import type { Truncation } from '../../protocol/index.js';
import type { NativeNode, TreeSource } from './backend.js';
import type { Deadline } from './deadline.js';

/** Budgets of one structural walk. */
export interface WalkBudget {
  maxNodes: number;
  maxDepth: number;
  maxChildren: number;
}

/** The nodes a walk selected, in the order it took them, and what cut it. */
export interface WalkResult {
  keys: string[];
  depth: Map<string, number>;
  truncated: Set<Truncation>;
  notes: string[];
  /** True when every node under the root was visited. */
  complete: boolean;
}

/**
 * What a budget is spent on first (docs/tools.md#what-a-read-reaches-first): a document's content
 * (what the person reads: a page, a text, a sheet), then the rest of the window as it shows, then
 * what is hidden (closed menus, other tabs).
 */
const CONTENT = 0;
const SHOWN = 1;
const HIDDEN = 2;
type Kind = typeof CONTENT | typeof SHOWN | typeof HIDDEN;
/** An element discovered under `parent`, waiting for its bucket. */
type Entry = { key: string; parent: string | undefined };

function kindOf(node: NativeNode, parentKind: Kind): Kind {
  if (parentKind === HIDDEN || node.state?.offscreen === true) return HIDDEN;
  if (parentKind === CONTENT || node.role === 'document') return CONTENT;
  return SHOWN;
}

/**
 * Walks the window breadth-first within each kind (content first, then what shows, then what is
 * hidden): elements are taken into the answer bucket by bucket, a bucket being one kind at one
 * depth, so a wide toolbar row never spends the budget before a document's paragraphs; each
 * bucket's unknown children are read concurrently. Every cut is recorded, never silent.
 */
export async function walk(source: TreeSource, budget: WalkBudget, deadline: Deadline): Promise<WalkResult> {
  const root = source.window.rootKey;
  const keys: string[] = [];
  const depth = new Map<string, number>();
  const truncated = new Set<Truncation>();
  const notes: string[] = [];
  // Discovered elements waiting to be taken, per kind and depth; the shallowest bucket of the most wanted kind goes next.
  const buckets: Map<number, Entry[]>[] = [new Map<number, Entry[]>(), new Map<number, Entry[]>(), new Map<number, Entry[]>()];
  const kinds = new Map<string, Kind>();
  const discover = (key: string, parent: string | undefined, kind: Kind, level: number): void => {
    kinds.set(key, kind);
    const bucket = buckets[kind] as Map<number, Entry[]>;
    const list = bucket.get(level);
    if (list === undefined) bucket.set(level, [{ key, parent }]);
    else list.push({ key, parent });
  };
  const rootNode = source.node(root);
  discover(root, undefined, rootNode === undefined ? SHOWN : kindOf(rootNode, SHOWN), 0);
  const seen = new Set([root]);
  const limit = (): number => Math.max(1, Math.min(budget.maxChildren, budget.maxNodes - keys.length));
  let stop = false;
  while (!stop) {
    const next = nextBucket(buckets);
    if (next === undefined) break;
    const { entries, level } = next;
    // Children the budget left unread when their parent was expanded, and the budget still has room for: read them now.
    const unread = [...new Set(entries.filter((e) => e.parent !== undefined && source.node(e.key) === undefined).map((e) => e.parent as string))];
    if (unread.length > 0) await source.expand(unread, deadline, limit());
    const taken: string[] = [];
    for (const { key, parent } of entries) {
      // Checked before a child that was not read is skipped: a child left unread because the node budget was spent is a cut, never silent.
      if (keys.length >= budget.maxNodes) {
        truncated.add('max_nodes');
        notes.push(`max_nodes: stopped at ${budget.maxNodes} elements (a document's content first, then what shows, then what is hidden)`);
        stop = true;
        break;
      }
      const node = source.node(key);
      if (node === undefined) continue; // a child that could not be read
      if (parent !== undefined) node.parent = parent; // the tree is the one walked, even where a provider's Parent disagrees
      keys.push(key);
      depth.set(key, level);
      taken.push(key);
    }
    // Children not listed yet (childCount −1: MANAGES_DESCENDANTS), or listed but not read within the limit.
    const unknown = taken.filter((k) => {
      const n = source.node(k);
      if (n === undefined || n.childCount === 0) return false;
      return n.children === undefined || n.children.slice(0, limit()).some((c) => source.node(c) === undefined);
    });
    if (!stop && unknown.length > 0) await source.expand(unknown, deadline, limit());
    if (deadline.expired()) {
      truncated.add('timeout');
      notes.push(`timeout: stopped at depth ${level} after ${deadline.budgetMs} ms with ${keys.length} elements`);
      break;
    }
    if (level >= budget.maxDepth) {
      if (taken.some((k) => (source.node(k)?.children?.length ?? 0) > 0) && !truncated.has('max_depth')) {
        truncated.add('max_depth');
        notes.push(`max_depth: elements below depth ${budget.maxDepth} were not read`);
      }
      continue;
    }
    for (const k of taken) {
      const node = source.node(k);
      const kids = node?.children;
      if (node === undefined || kids === undefined) continue;
      if (node.childrenCut !== undefined) {
        // Only part of the children on purpose (a visible part): said, never silent.
        truncated.add(node.childrenCut.cut);
        if (!notes.includes(node.childrenCut.note)) notes.push(node.childrenCut.note);
      }
      let take = kids;
      if (kids.length > budget.maxChildren) {
        take = kids.slice(0, budget.maxChildren);
        if (!truncated.has('max_children')) notes.push(`max_children: some elements have more than ${budget.maxChildren} children; the rest were not read`);
        truncated.add('max_children');
      }
      const parentKind = kinds.get(k) ?? SHOWN;
      for (const child of take) {
        if (seen.has(child)) continue; // a provider cycle
        seen.add(child);
        const childNode = source.node(child);
        // An unread child keeps its parent's kind until it is read.
        discover(child, k, childNode === undefined ? parentKind : kindOf(childNode, parentKind), level + 1);
      }
    }
  }
  if (stop || keys.length >= budget.maxNodes) {
    // Whatever was discovered and not taken is a cut too (a bucket that never came).
    if (buckets.some((b) => b.size > 0) && !truncated.has('max_nodes')) {
      truncated.add('max_nodes');
      notes.push(`max_nodes: stopped at ${budget.maxNodes} elements (a document's content first, then what shows, then what is hidden)`);
    }
  }
  for (const cut of source.truncated) truncated.add(cut);
  notes.push(...source.notes);
  return { keys, depth, truncated, notes, complete: truncated.size === 0 };
}

/** Takes the shallowest bucket of the most wanted kind. */
function nextBucket(
  buckets: Map<number, { key: string; parent: string | undefined }[]>[],
): { entries: { key: string; parent: string | undefined }[]; level: number } | undefined {
  for (const bucket of buckets) {
    if (bucket.size === 0) continue;
    const level = Math.min(...bucket.keys());
    const entries = bucket.get(level) as Entry[];
    bucket.delete(level);
    return { entries, level };
  }
  return undefined;
}
