import type { Element } from '../../protocol/index.js';

/** One element of the chosen window, flattened in document order. */
export interface TreeNode {
  key: string;
  /** The element without its children. */
  element: Element;
  depth: number;
  parent: string | undefined;
  childCount: number;
}

/** Flattens a window_read answer (tree format with `children`, or flat with depth/parent) into document order. */
export function flattenTree(elements: readonly Element[]): TreeNode[] {
  const out: TreeNode[] = [];
  const nested = elements.some((e) => e.children !== undefined);
  if (!nested) {
    const counts = new Map<string, number>();
    for (const e of elements) if (e.parent !== undefined) counts.set(e.parent, (counts.get(e.parent) ?? 0) + 1);
    for (const e of elements) out.push({ key: e.key, element: e, depth: e.depth ?? 0, parent: e.parent, childCount: counts.get(e.key) ?? 0 });
    return out;
  }
  // Iterative, so a 5,000-deep chain cannot overflow the stack.
  const stack: { e: Element; depth: number; parent: string | undefined }[] = [];
  for (let i = elements.length - 1; i >= 0; i--) stack.push({ e: elements[i] as Element, depth: 0, parent: undefined });
  while (stack.length > 0) {
    const { e, depth, parent } = stack.pop() as { e: Element; depth: number; parent: string | undefined };
    const { children, ...element } = e;
    out.push({ key: e.key, element, depth, parent, childCount: children?.length ?? 0 });
    if (children !== undefined) for (let i = children.length - 1; i >= 0; i--) stack.push({ e: children[i] as Element, depth: depth + 1, parent: e.key });
  }
  return out;
}

/** Indexes of the nodes shown when the keys in `collapsed` hide their descendants. */
export function visibleNodes(nodes: readonly TreeNode[], collapsed: ReadonlySet<string>): TreeNode[] {
  if (collapsed.size === 0) return nodes.slice();
  const out: TreeNode[] = [];
  let hideBelow = -1;
  for (const n of nodes) {
    if (hideBelow >= 0) {
      if (n.depth > hideBelow) continue;
      hideBelow = -1;
    }
    out.push(n);
    if (n.childCount > 0 && collapsed.has(n.key)) hideBelow = n.depth;
  }
  return out;
}

/** Keys of the nodes whose name, role (or native role) or automation id contains `query` (case-insensitive). */
export function searchTree(nodes: readonly TreeNode[], query: string): string[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const hit = (s: string | undefined): boolean => s !== undefined && s.toLowerCase().includes(q);
  return nodes.filter(({ element: e }) => hit(e.name) || hit(e.role) || hit(e.native_role) || hit(e.automation_id)).map((n) => n.key);
}

/** Ancestor keys of `key`, nearest first. */
export function ancestorsOf(byKey: ReadonlyMap<string, TreeNode>, key: string): string[] {
  const out: string[] = [];
  let parent = byKey.get(key)?.parent;
  while (parent !== undefined && !out.includes(parent)) {
    out.push(parent);
    parent = byKey.get(parent)?.parent;
  }
  return out;
}

/** What the tree shows for a value: never a password's text. */
export function displayValue(e: Pick<Element, 'value' | 'redacted' | 'state'>): string | undefined {
  if (e.redacted === true || e.state.password === true) return '••••';
  return e.value;
}
