import { createHash } from 'node:crypto';
import { lineTokens, type Element, type ElementRef, type Truncation } from '../../protocol/index.js';
import type { NativeNode, TreeSource, WindowHandle } from './backend.js';
import { approxTokens, cutText } from './text.js';

/** Options of shaping native nodes into protocol elements. */
export interface ShapeOptions {
  maxTextChars: number;
  /** Attach digests (needed for targets). */
  identity: boolean;
  /** Answer rectangles (default true); a read without them leaves out even those known from before. */
  rects?: boolean;
}

/** The ancestor path of a node, root first, as `role:name` steps. */
export function ancestorPath(source: TreeSource, key: string): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  let cur = source.node(key)?.parent;
  while (cur !== undefined && !seen.has(cur)) {
    seen.add(cur);
    const n = source.node(cur);
    if (n === undefined) break;
    path.unshift(`${n.role}:${n.name ?? ''}`);
    if (cur === source.window.rootKey) break;
    cur = n.parent;
  }
  return path;
}

/** The digest (docs/tools.md#digest): role, name, automation_id, class and ancestor path. */
export function digestOf(node: NativeNode, ancestors: readonly string[]): string {
  const material = JSON.stringify([node.role, node.name ?? null, node.automationId ?? null, node.className ?? null, ancestors]);
  return createHash('sha256').update(material).digest('base64url').slice(0, 22);
}

/** The binding recorded for a target: identity plus recorded semantics (docs/tools.md#target-handles). */
export function bindingOf(window: WindowHandle, source: TreeSource, node: NativeNode): ElementRef {
  const ancestors = ancestorPath(source, node.key);
  const ref: ElementRef = {
    key: node.key,
    window: window.info.window,
    process: window.process,
    digest: digestOf(node, ancestors),
    role: node.role,
    ancestors,
    window_title: window.info.title,
  };
  if (node.name !== undefined) ref.name = node.name;
  if (node.automationId !== undefined) ref.automation_id = node.automationId;
  if (node.className !== undefined) ref.class = node.className;
  if (window.info.rect !== undefined) ref.window_rect = window.info.rect;
  return ref;
}

/** One native node as a protocol element (without children); password values never leave. */
export function toElement(source: TreeSource, node: NativeNode, options: ShapeOptions): Element {
  const el: Element = { key: node.key, role: node.role, state: node.state ?? {}, patterns: node.patterns };
  if (node.nativeRole !== undefined) el.native_role = node.nativeRole;
  const cut: ('name' | 'value')[] = [];
  if (node.name !== undefined && node.name !== '') {
    const c = cutText(node.name, options.maxTextChars);
    el.name = c ?? node.name;
    if (c !== undefined) cut.push('name');
  }
  if (node.state?.password === true) {
    el.redacted = true;
  } else if (node.value !== undefined) {
    const c = cutText(node.value, options.maxTextChars);
    el.value = c ?? node.value;
    if (c !== undefined) cut.push('value');
  }
  if (node.automationId !== undefined && node.automationId !== '') el.automation_id = node.automationId;
  if (node.className !== undefined && node.className !== '') el.class = node.className;
  if (node.rect !== undefined && options.rects !== false) el.rect = node.rect;
  if (node.actions !== undefined && node.actions.length > 0) el.actions = node.actions;
  if (node.unread.size > 0) el.unread = [...node.unread];
  if (cut.length > 0) el.cut = cut;
  if (options.identity) el.digest = digestOf(node, ancestorPath(source, node.key));
  return el;
}

/** Result of shaping a walk into the answer's element list. */
export interface Shaped {
  elements: Element[];
  nodeCount: number;
  truncated: Set<Truncation>;
  notes: string[];
}

/**
 * Shapes the walked nodes as a tree or flat list in document order. Text is cut to max_text_chars;
 * max_tokens is spent in walk (breadth-first) order, so a cut keeps the upper levels whole, like
 * max_nodes. Each element appears once, under the parent the walk reached it through.
 */
export function shape(
  source: TreeSource,
  walkOrder: readonly string[],
  format: 'tree' | 'flat',
  options: ShapeOptions & { maxTokens: number; tokensOf?: 'text' | 'json'; depth?: ReadonlyMap<string, number> },
): Shaped {
  const truncated = new Set<Truncation>();
  const notes: string[] = [];
  const kept = new Map<string, Element>();
  let tokens = 0;
  for (const key of walkOrder) {
    const node = source.node(key);
    if (node === undefined) continue;
    const parent = node.parent;
    if (key !== source.window.rootKey && (parent === undefined || !kept.has(parent))) continue;
    const el = toElement(source, node, options);
    // What the agent is sent: its text line (with the handle put in place of the key), or the JSON element.
    const cost = options.tokensOf === 'text' ? lineTokens(el, options.depth?.get(key) ?? 0) : approxTokens(el) + 2;
    if (tokens + cost > options.maxTokens && kept.size > 0) {
      truncated.add('max_tokens');
      notes.push(`max_tokens: stopped at about ${tokens} tokens (${kept.size} elements)`);
      break;
    }
    tokens += cost;
    if (el.cut !== undefined) truncated.add('max_text');
    kept.set(key, el);
  }
  const flat: Element[] = [];
  const visited = new Set<string>();
  const visit = (key: string, depth: number, parentKey: string | undefined): Element | undefined => {
    const el = kept.get(key);
    if (el === undefined || visited.has(key)) return undefined;
    visited.add(key);
    if (format === 'flat') {
      el.depth = depth;
      if (parentKey !== undefined) el.parent = parentKey;
      flat.push(el);
    }
    const children: Element[] = [];
    for (const k of source.node(key)?.children ?? []) {
      if (source.node(k)?.parent !== key) continue;
      const child = visit(k, depth + 1, key);
      if (child !== undefined) children.push(child);
    }
    if (format === 'tree' && children.length > 0) el.children = children;
    return el;
  };
  const root = visit(source.window.rootKey, 0, undefined);
  if (truncated.has('max_text')) notes.push(`max_text: some names or values were cut to ${options.maxTextChars} characters (see each element's cut)`);
  return { elements: format === 'flat' ? flat : root === undefined ? [] : [root], nodeCount: visited.size, truncated, notes };
}
