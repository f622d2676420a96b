// When a "view-only" action is not (docs/supervision.md#view-only-actions): focus and
// scroll_into_view run without a person only where they cannot change an application's state, and
// what they did is read back and said when they changed more than the view.
import type { Element } from '../../../protocol/index.js';

/** Roles whose items toolkits commonly select when they take the focus (selection follows focus). */
const SELECTABLE_ROLES = new Set<Element['role']>([
  'list_item',
  'row',
  'cell',
  'row_header',
  'column_header',
  'tab',
  'tab_item',
  'radio_button',
  'tree_item',
  'menu_item',
]);

/**
 * Why focusing or scrolling to this element may change the application's state (its selection), or
 * undefined when it cannot: a selectable element — by its state, its pattern or its role — asks a person.
 */
export function viewMayChangeState(target: Element): string | undefined {
  const what = `${target.role}${target.name !== undefined ? ` "${target.name.slice(0, 80)}"` : ''}`;
  if (target.state.selectable === true) return `${what} is selectable: focusing it or scrolling to it can select it`;
  if (target.patterns.includes('selection_item')) return `${what} can be selected: focusing it or scrolling to it can select it`;
  if (SELECTABLE_ROLES.has(target.role)) return `${what} is an item whose selection commonly follows the focus`;
  return undefined;
}

/** States a view-only action is meant to change. */
const VIEW_STATES = new Set(['focused', 'offscreen', 'active']);

/**
 * What changed between the element before and after a view-only action beyond the view itself:
 * state keys (`selected`, `checked`, `expanded`, …) and `value`. Empty when only the focus or the
 * scroll position moved, or when the element could not be read back.
 */
export function changedBeyondView(before: Element | undefined, after: Element | undefined): string[] {
  if (before === undefined || after === undefined) return [];
  const changed: string[] = [];
  const keys = new Set([...Object.keys(before.state), ...Object.keys(after.state)]) as Set<keyof Element['state']>;
  for (const k of keys) {
    if (VIEW_STATES.has(k)) continue;
    // A state one read did not expose is unknown, not changed.
    if (before.state[k] === undefined || after.state[k] === undefined) continue;
    if (before.state[k] !== after.state[k]) changed.push(k);
  }
  if (before.value !== undefined && after.value !== undefined && before.value !== after.value) changed.push('value');
  return changed.sort();
}
