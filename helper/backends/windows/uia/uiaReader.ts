import { rect, type ElementState, type Pattern, type Truncation } from '../../../../protocol/index.js';
import type { NativeNode } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import type { ComPtr } from '../com/com.js';
import type { VariantValue } from '../com/variant.js';
import { cached, cachedChildren } from './uiaClient.js';
import { PATTERN_AVAILABLE_PROPERTIES, PROPERTY_IDS, checkedOfToggleState, expansionOf, roleOfControlType } from './uiaIds.js';

/** Most elements one read takes from a window (a browser page can hold far more). */
export const MAX_UIA_NODES = 20_000;

/** A UIA element as the core sees it, with its RuntimeId and own HWND for dispatch. */
export interface UiaNode extends NativeNode {
  runtimeId: number[];
  hwnd?: number;
}

const str = (v: VariantValue): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: VariantValue): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const num = (v: VariantValue): number | undefined => (typeof v === 'number' ? v : undefined);

/** The node key of a RuntimeId. */
export function runtimeKey(runtimeId: readonly number[]): string {
  return `uia:${runtimeId.join('.')}`;
}

/** A RuntimeId from its node key (undefined for keys of another backend). */
export function runtimeIdOf(key: string): number[] | undefined {
  if (!key.startsWith('uia:')) return undefined;
  const parts = key.slice(4).split('.').map(Number);
  return parts.length > 0 && parts.every(Number.isInteger) ? parts : undefined;
}

/** One element's cached properties as a node (no cross-process call: everything is in the cache). */
export function nodeOf(element: ComPtr, parent: string | undefined, fallbackKey: string): UiaNode {
  const p = (id: number): VariantValue => cached(element, id);
  const runtimeId = (p(PROPERTY_IDS.RuntimeId) as number[] | undefined) ?? [];
  const unread = new Set<NativeNode['unread'] extends Set<infer F> ? F : never>();
  const controlType = num(p(PROPERTY_IDS.ControlType));
  if (controlType === undefined) unread.add('role');
  const patterns: Pattern[] = [];
  for (const [pattern, property] of Object.entries(PATTERN_AVAILABLE_PROPERTIES) as [Exclude<Pattern, 'focus'>, number][])
    if (bool(p(property)) === true) patterns.push(pattern);
  const focusable = bool(p(PROPERTY_IDS.IsKeyboardFocusable));
  if (focusable === true) patterns.push('focus');
  const password = bool(p(PROPERTY_IDS.IsPassword)) === true;
  const state: ElementState = {};
  const enabled = bool(p(PROPERTY_IDS.IsEnabled));
  if (enabled !== undefined) state.enabled = enabled;
  const focused = bool(p(PROPERTY_IDS.HasKeyboardFocus));
  if (focused !== undefined) state.focused = focused;
  if (focusable !== undefined) state.focusable = focusable;
  const offscreen = bool(p(PROPERTY_IDS.IsOffscreen));
  if (offscreen !== undefined) state.offscreen = offscreen;
  if (password) state.password = true;
  if (patterns.includes('toggle')) {
    const checked = checkedOfToggleState(num(p(PROPERTY_IDS.ToggleState)) ?? -1);
    if (checked !== undefined) state.checked = checked;
    state.checkable = true;
  }
  if (patterns.includes('expand_collapse')) Object.assign(state, expansionOf(num(p(PROPERTY_IDS.ExpandCollapseState)) ?? 0));
  if (patterns.includes('selection_item')) {
    state.selectable = true;
    const selected = bool(p(PROPERTY_IDS.SelectionItemIsSelected));
    if (selected !== undefined) state.selected = selected;
  }
  let value: string | undefined;
  if (patterns.includes('value')) {
    const readOnly = bool(p(PROPERTY_IDS.ValueIsReadOnly));
    if (readOnly !== undefined) Object.assign(state, { read_only: readOnly, editable: !readOnly });
    if (!password) value = str(p(PROPERTY_IDS.ValueValue));
  } else if (patterns.includes('range_value')) {
    const v = num(p(PROPERTY_IDS.RangeValueValue));
    if (v !== undefined) value = String(v);
  }
  const node: UiaNode = {
    key: runtimeId.length > 0 ? runtimeKey(runtimeId) : fallbackKey,
    runtimeId,
    parent,
    children: [],
    childCount: 0,
    role: controlType === undefined ? 'unknown' : roleOfControlType(controlType),
    nativeRole: controlType === undefined ? undefined : String(controlType),
    state,
    patterns,
    detailed: true,
    unread,
  } as UiaNode;
  const name = str(p(PROPERTY_IDS.Name));
  if (name !== undefined) node.name = name;
  const automationId = str(p(PROPERTY_IDS.AutomationId));
  if (automationId !== undefined && automationId !== '') node.automationId = automationId;
  const className = str(p(PROPERTY_IDS.ClassName));
  if (className !== undefined && className !== '') node.className = className;
  if (value !== undefined) node.value = value;
  const box = p(PROPERTY_IDS.BoundingRectangle);
  if (Array.isArray(box) && box.length === 4 && (box[2] ?? 0) > 0)
    node.rect = rect(Math.round(box[0] ?? 0), Math.round(box[1] ?? 0), Math.round(box[2] ?? 0), Math.round(box[3] ?? 0));
  const hwnd = num(p(PROPERTY_IDS.NativeWindowHandle));
  if (hwnd !== undefined && hwnd !== 0) node.hwnd = hwnd;
  if (node.nativeRole === undefined) delete node.nativeRole;
  return node;
}

/**
 * Turns a cached subtree into nodes, breadth first so a cut keeps the upper levels whole, and
 * releases every element pointer as it goes: a read holds no COM reference once it returns.
 * The root answers to `rootKey` (the window's key); its RuntimeId stays in `runtimeId`.
 */
export function readCachedTree(
  root: ComPtr,
  rootKey: string,
  deadline: Deadline,
  problems: { truncated: Set<Truncation>; notes: string[] },
): Map<string, UiaNode> {
  const nodes = new Map<string, UiaNode>();
  let queue: { element: ComPtr; parent: string | undefined }[] = [{ element: root.addRef(), parent: undefined }];
  let n = 0;
  try {
    while (queue.length > 0) {
      const next: typeof queue = [];
      for (const { element, parent } of queue) {
        try {
          if (nodes.size >= MAX_UIA_NODES || deadline.expired()) {
            problems.truncated.add(deadline.expired() ? 'timeout' : 'max_nodes');
            continue;
          }
          const node = nodeOf(element, parent, `uia:anon.${n++}`);
          // The window's element answers to the window's key, as in every backend.
          if (parent === undefined) node.key = rootKey;
          nodes.set(node.key, node);
          if (parent !== undefined) nodes.get(parent)?.children?.push(node.key);
          const children = cachedChildren(element);
          for (const child of children) next.push({ element: child, parent: node.key });
          node.childCount = children.length;
        } finally {
          element.release();
        }
      }
      queue = next;
    }
  } finally {
    for (const { element } of queue) element.release();
  }
  return nodes;
}
