import type { Truncation } from '../../protocol/index.js';
import type { TreeSource } from './backend.js';
import type { Deadline } from './deadline.js';

/** Budgets of one structural walk. */
export interface WalkBudget {
  maxNodes: number;
  maxDepth: number;
  maxChildren: number;
}

/** The nodes a walk selected, in breadth-first order, and what cut it. */
export interface WalkResult {
  keys: string[];
  depth: Map<string, number>;
  truncated: Set<Truncation>;
  notes: string[];
  /** True when every node under the root was visited. */
  complete: boolean;
}

/**
 * Walks the window breadth-first so a cut keeps the upper levels whole; each level's unknown
 * children are read concurrently. Every cut is recorded, never silent.
 */
export async function walk(source: TreeSource, budget: WalkBudget, deadline: Deadline): Promise<WalkResult> {
  const root = source.window.rootKey;
  const keys = [root];
  const depth = new Map([[root, 0]]);
  const truncated = new Set<Truncation>();
  const notes: string[] = [];
  let frontier = [root];
  let level = 0;
  let stop = false;
  while (frontier.length > 0 && !stop) {
    const limit = Math.max(1, Math.min(budget.maxChildren, budget.maxNodes - keys.length));
    // Children not listed yet (childCount −1: MANAGES_DESCENDANTS), or listed but not read within the limit.
    const unknown = frontier.filter((k) => {
      const n = source.node(k);
      if (n === undefined || n.childCount === 0) return false;
      return n.children === undefined || n.children.slice(0, limit).some((c) => source.node(c) === undefined);
    });
    if (unknown.length > 0) await source.expand(unknown, deadline, limit);
    if (deadline.expired()) {
      truncated.add('timeout');
      notes.push(`timeout: stopped at depth ${level} after ${deadline.budgetMs} ms with ${keys.length} elements`);
      break;
    }
    const hasKids = frontier.some((k) => (source.node(k)?.children?.length ?? 0) > 0);
    if (level >= budget.maxDepth) {
      if (hasKids) {
        truncated.add('max_depth');
        notes.push(`max_depth: elements below depth ${budget.maxDepth} were not read`);
      }
      break;
    }
    const next: string[] = [];
    for (const k of frontier) {
      const node = source.node(k);
      const kids = node?.children;
      if (node === undefined || kids === undefined) continue;
      let take = kids;
      if (kids.length > budget.maxChildren) {
        take = kids.slice(0, budget.maxChildren);
        if (!truncated.has('max_children')) notes.push(`max_children: some elements have more than ${budget.maxChildren} children; the rest were not read`);
        truncated.add('max_children');
      }
      for (const child of take) {
        if (depth.has(child)) continue; // a provider cycle
        // Checked before a child that was not read is skipped: a child left unread because the node budget was spent is a cut, never silent.
        if (keys.length >= budget.maxNodes) {
          truncated.add('max_nodes');
          notes.push(`max_nodes: stopped at ${budget.maxNodes} elements`);
          stop = true;
          break;
        }
        const childNode = source.node(child);
        if (childNode === undefined) continue; // a child that could not be read
        childNode.parent = k; // the tree is the one walked, even where a provider's Parent disagrees
        keys.push(child);
        depth.set(child, level + 1);
        next.push(child);
      }
      if (stop) break;
    }
    frontier = next;
    level++;
  }
  for (const cut of source.truncated) truncated.add(cut);
  notes.push(...source.notes);
  return { keys, depth, truncated, notes, complete: truncated.size === 0 };
}
