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
  /** A new AT-SPI role number to apply in place. */
  role?: number;
  /** The object's parent as the event names it: a structural change only if it differs from the known one (AppCache decides). */
  parent?: { bus: string; path: string };
  /** The object's value or text changed. */
  value?: boolean;
  /** Positions that may have moved: the object's subtree, or the whole application. */
  rects?: 'subtree' | 'app';
  /** Every detail of the application is in doubt. */
  details?: 'app';
}

const OBJECT = 'org.a11y.atspi.Event.Object';
const WINDOW = 'org.a11y.atspi.Event.Window';
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

/**
 * Window events. Activation is the window's `active` state, applied in place: a person or a window
 * manager moving the focus between reads must not throw away a cache. Moving and resizing move
 * rectangles only; the rest (create, destroy, minimize, …) change what the tree holds.
 */
function windowEffect(member: string): EventEffect {
  switch (member) {
    case 'Activate':
      return { state: { name: 'active', on: true } };
    case 'Deactivate':
      return { state: { name: 'active', on: false } };
    case 'Raise':
    case 'Lower':
      return {};
    case 'Move':
    case 'Resize':
      return { rects: 'subtree' };
    default:
      return { structure: true, rects: 'subtree' };
  }
}

/** Accessible properties no answer carries. */
const UNANSWERED_PROPERTIES = new Set(['accessible-description', 'accessible-help-text', 'accessible-locale']);

/**
 * PropertyChange events. Name, role and parent carry their new values. Properties no answer
 * carries (description, table captions and headers) change nothing held. Names outside AT-SPI's
 * `accessible-*` set are the toolkit's own object properties (GTK3 sends "widget" and "renderer"
 * for every object it makes on first access); they change nothing either. Any other accessible
 * property reads the structure again.
 */
function propertyEffect(detail: string, value: unknown): EventEffect {
  if (detail === 'accessible-name' && typeof value === 'string') return { name: value };
  if (detail === 'accessible-value') return { value: true };
  if (detail === 'accessible-role' && typeof value === 'number') return { role: value };
  if (detail === 'accessible-parent') {
    const ref = Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string' ? { bus: value[0], path: value[1] } : undefined;
    return ref !== undefined ? { parent: ref } : { structure: true, reparented: true, rects: 'app' };
  }
  if (UNANSWERED_PROPERTIES.has(detail) || detail.startsWith('accessible-table-')) return {};
  if (!detail.startsWith('accessible-')) return {};
  return { structure: true, rects: 'subtree' };
}

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
  if (iface === WINDOW) return windowEffect(member);
  if (iface !== OBJECT) return { structure: true, details: 'app' };
  if (CHILDREN_MEMBERS.has(member)) return { structure: true, children: true, rects: 'subtree' };
  if (IGNORED_MEMBERS.has(member)) return {};
  switch (member) {
    case 'StateChanged':
      // "defunct" off: an object the toolkit made on first access (GTK3 cells) came alive; nothing held changes.
      if (detail === 'defunct' && body[1] !== 1) return {};
      if (detail === '' || detail === 'defunct') return { structure: true, rects: 'subtree' };
      return { state: { name: detail, on: body[1] === 1 } };
    case 'PropertyChange':
      return propertyEffect(detail, variant(body[3]));
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
