import type { ElementState, Pattern, Role } from '../../../protocol/index.js';
import type { NativeNode } from '../../core/backend.js';
import { S, mapRole, mapState, stateSet } from './roles.js';
import { keyOf } from './refs.js';

/** AT-SPI interface names used here. */
export const I = {
  accessible: 'org.a11y.atspi.Accessible',
  action: 'org.a11y.atspi.Action',
  component: 'org.a11y.atspi.Component',
  editableText: 'org.a11y.atspi.EditableText',
  text: 'org.a11y.atspi.Text',
  value: 'org.a11y.atspi.Value',
  selection: 'org.a11y.atspi.Selection',
  table: 'org.a11y.atspi.Table',
  cache: 'org.a11y.atspi.Cache',
} as const;

/** A native node with what AT-SPI needs to call it. */
export interface AtspiNode extends NativeNode {
  bus: string;
  path: string;
  interfaces: ReadonlySet<string>;
  /** index_in_parent as reported (−1 when unknown). */
  index: number;
  states: ReadonlySet<number>;
  /** True once the rectangle was read and no event has moved it since (read apart from `detailed`). */
  rectRead?: boolean;
}

/**
 * What nodes with the same role number and state words share. A big window repeats a few such
 * combinations thousands of times; mapping each once is most of what makeNode saves.
 */
interface Shape {
  role: Role;
  nativeRole: string;
  states: ReadonlySet<number>;
  state: ElementState;
  /** Patterns of a node not yet detailed, per (interned) interface set. */
  patterns: WeakMap<ReadonlySet<string>, readonly Pattern[]>;
}

/** Kept shapes: role·2³² + second state word → first state word → shape. */
const shapes = new Map<number, Map<number, Shape>>();
let shapeCount = 0;
/** Interface sets by their list, so nodes with the same interfaces share one (never mutated) set. */
const interfaceSets = new Map<string, ReadonlySet<string>>();
const interfaceSetsByList = new WeakMap<readonly string[], ReadonlySet<string>>();
/** Bound on either memo: a provider could report endless combinations. */
const MEMO_LIMIT = 4096;

function makeShape(roleNumber: number, stateWords: readonly number[]): Shape {
  const { role, nativeRole } = mapRole(roleNumber);
  const states = stateSet(stateWords);
  return { role, nativeRole, states, state: mapState(states, nativeRole), patterns: new WeakMap() };
}

function isWord(n: number | undefined): n is number {
  return n !== undefined && Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff;
}

function shapeOf(roleNumber: number, stateWords: readonly number[]): Shape {
  const [low, high] = stateWords;
  // The memo key must be exact: role·2³² + high stays below 2⁵³ for any role under 2²⁰.
  if (stateWords.length !== 2 || !isWord(low) || !isWord(high) || !Number.isInteger(roleNumber) || roleNumber < 0 || roleNumber >= 2 ** 20)
    return makeShape(roleNumber, stateWords);
  const outer = roleNumber * 2 ** 32 + high;
  let byLow = shapes.get(outer);
  if (byLow === undefined) {
    if (shapeCount >= MEMO_LIMIT) {
      shapes.clear();
      shapeCount = 0;
    }
    byLow = new Map();
    shapes.set(outer, byLow);
  }
  let shape = byLow.get(low);
  if (shape === undefined) {
    shape = makeShape(roleNumber, stateWords);
    byLow.set(low, shape);
    shapeCount++;
  }
  return shape;
}

/** One shared set per distinct interface list (lists from cacheItems.ts are themselves shared). */
export function interfaceSet(interfaces: readonly string[]): ReadonlySet<string> {
  const known = interfaceSetsByList.get(interfaces);
  if (known !== undefined) return known;
  const key = interfaces.join('\0'); // D-Bus strings hold no NUL: no two lists share a key
  let set = interfaceSets.get(key);
  if (set === undefined) {
    if (interfaceSets.size >= MEMO_LIMIT) interfaceSets.clear();
    set = new Set(interfaces);
    interfaceSets.set(key, set);
  }
  // Only shared lists are worth remembering by identity; a decoded body's lists are one per item.
  if (Object.isFrozen(interfaces)) interfaceSetsByList.set(interfaces, set);
  return set;
}

/** Builds a node from the fields every read path yields (cache item or individual calls); keeps neither array passed. */
export function makeNode(
  bus: string,
  path: string,
  parentKey: string | undefined,
  index: number,
  childCount: number,
  interfaces: readonly string[],
  name: string,
  roleNumber: number,
  stateWords: readonly number[],
): AtspiNode {
  const shape = shapeOf(roleNumber, stateWords);
  const ifaces = interfaceSet(interfaces);
  const node: AtspiNode = {
    key: keyOf(bus, path),
    bus,
    path,
    parent: parentKey,
    children: undefined,
    childCount,
    role: shape.role,
    nativeRole: shape.nativeRole,
    name,
    state: { ...shape.state },
    patterns: [],
    detailed: false,
    unread: new Set(),
    interfaces: ifaces,
    index,
    states: shape.states,
  };
  let patterns = shape.patterns.get(ifaces);
  if (patterns === undefined) {
    // Depends only on what the shape and interfaces fix: no actions or parent are known yet.
    patterns = patternsOf(node);
    shape.patterns.set(ifaces, patterns);
  }
  node.patterns = patterns.slice();
  return node;
}

const INVOKE_NAMES = ['click', 'press', 'activate', 'jump', 'open'];
const TOGGLE_NAMES = ['toggle', 'click', 'press', 'check', 'uncheck', 'activate'];
const EXPAND_NAMES = ['expand or contract', 'expand', 'collapse', 'activate', 'toggle', 'click'];
const TEXT_ROLES = new Set(['edit', 'document', 'paragraph']);

/** Finds the first action whose canonical name is in `names` (in that preference order). */
export function findAction(node: AtspiNode, names: readonly string[]): number {
  const actions = node.actions ?? [];
  for (const wanted of names) {
    const i = actions.indexOf(wanted);
    if (i >= 0) return i;
  }
  return -1;
}

/**
 * Backend-neutral patterns of an AT-SPI node, from its interfaces, states, role and action names.
 * Until details are read, action names are unknown and an Action interface counts as invoke.
 */
export function patternsOf(node: AtspiNode, parent?: AtspiNode): Pattern[] {
  const p = new Set<Pattern>();
  const has = (i: string): boolean => node.interfaces.has(i);
  const hasActions = node.actions === undefined ? has(I.action) : node.actions.length > 0;
  if (hasActions && (node.actions === undefined || findAction(node, INVOKE_NAMES) >= 0)) p.add('invoke');
  if (has(I.editableText) && node.states.has(S.editable)) p.add('value');
  // An editable field without EditableText (Chromium's web fields, Calc's cells) takes its value typed (typing.ts).
  else if (has(I.text) && node.states.has(S.editable) && node.states.has(S.focusable) && has(I.component)) p.add('value');
  if (has(I.value)) p.add('range_value');
  if (has(I.text) && TEXT_ROLES.has(node.role)) p.add('text');
  if (node.state?.checkable === true && hasActions && (node.actions === undefined || findAction(node, TOGGLE_NAMES) >= 0)) p.add('toggle');
  if (node.state?.expandable === true && hasActions && (node.actions === undefined || findAction(node, EXPAND_NAMES) >= 0)) p.add('expand_collapse');
  if (has(I.selection)) p.add('selection');
  const clickable = findAction(node, ['click', 'press', 'select']) >= 0;
  if (
    node.states.has(S.selectable) ||
    (node.actions?.includes('select') ?? false) ||
    (parent?.interfaces.has(I.selection) === true && node.states.has(S.selectable)) ||
    ((node.role === 'radio_button' || node.role === 'tab_item') && clickable)
  )
    p.add('selection_item');
  if (has(I.component)) p.add('scroll_item');
  if (has(I.component) && node.states.has(S.focusable)) p.add('focus');
  return [...p];
}

export { EXPAND_NAMES, INVOKE_NAMES, TOGGLE_NAMES };
