/** What one AT-SPI event changes in a cached application tree. */
export interface EventEffect {
  /** The bulk structure (names, roles, states, children) must be read again. */
  structure?: boolean;
  /** The object's children list is no longer known. */
  children?: boolean;
  /** The object left the tree. */
  removed?: boolean;
  /** Some object changed parent: every children list is in doubt. */
  reparented?: boolean;
  /** A state change to apply in place (the event carries the new value). */
  state?: { name: string; on: boolean };
  /** A new accessible name to apply in place. */
  name?: string;
  /** The object's value or text changed. */
  value?: boolean;
  /** Positions that may have moved: the object's subtree, or the whole application. */
  rects?: 'subtree' | 'app';
  /** Every detail of the application is in doubt. */
  details?: 'app';
}

const OBJECT = 'org.a11y.atspi.Event.Object';
const CHILDREN_MEMBERS = new Set([
  'ChildrenChanged',
  'RowInserted',
  'RowDeleted',
  'RowReordered',
  'ColumnInserted',
  'ColumnDeleted',
  'ColumnReordered',
  'ModelChanged',
]);
/** Object events that concern only the caret or selection of text, which answers do not carry. */
const IGNORED_MEMBERS = new Set(['TextCaretMoved', 'TextSelectionChanged', 'TextBoundsChanged', 'Announcement', 'AttributesChanged']);

function variant(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'value' in value ? value.value : value;
}

/**
 * Classifies an AT-SPI signal. State and name changes carry their new values and are applied in
 * place (as libatspi's own cache does); positions, values and text invalidate only what they
 * concern; anything not understood invalidates the whole application — never a guess that keeps
 * stale data.
 */
export function classify(iface: string, member: string, body: readonly unknown[]): EventEffect {
  const detail = typeof body[0] === 'string' ? body[0] : '';
  if (iface === 'org.a11y.atspi.Cache') return { structure: true, removed: member === 'RemoveAccessible', rects: 'subtree' };
  if (iface === 'org.a11y.atspi.Event.Focus') return {};
  if (iface !== OBJECT) return { structure: true, details: 'app' };
  if (CHILDREN_MEMBERS.has(member)) return { structure: true, children: true, rects: 'subtree' };
  if (IGNORED_MEMBERS.has(member)) return {};
  switch (member) {
    case 'StateChanged':
      if (detail === '' || detail === 'defunct') return { structure: true, rects: 'subtree' };
      return { state: { name: detail, on: body[1] === 1 } };
    case 'PropertyChange': {
      const value = variant(body[3]);
      if (detail === 'accessible-name' && typeof value === 'string') return { name: value };
      if (detail === 'accessible-description') return {};
      if (detail === 'accessible-value') return { value: true };
      if (detail === 'accessible-parent') return { structure: true, reparented: true, rects: 'app' };
      return { structure: true, rects: 'subtree' };
    }
    case 'BoundsChanged':
    case 'VisibleDataChanged':
      return { rects: 'subtree' };
    case 'TextChanged':
    case 'TextAttributesChanged':
      return { value: true };
    case 'SelectionChanged':
    case 'ActiveDescendantChanged':
      // Selected states of managed children may change without their own events.
      return { structure: true, children: true };
    default:
      return { structure: true, details: 'app' };
  }
}
