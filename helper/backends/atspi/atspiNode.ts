import type { Pattern } from '../../../protocol/index.js';
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

/** Builds a node from the fields every read path yields (cache item or individual calls). */
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
  const { role, nativeRole } = mapRole(roleNumber);
  const states = stateSet(stateWords);
  const node: AtspiNode = {
    key: keyOf(bus, path),
    bus,
    path,
    parent: parentKey,
    children: undefined,
    childCount,
    role,
    nativeRole,
    name,
    state: mapState(states, nativeRole),
    patterns: [],
    detailed: false,
    unread: new Set(),
    interfaces: new Set(interfaces),
    index,
    states,
  };
  node.patterns = patternsOf(node);
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
