import type { Pattern, Role } from '../../../../protocol/index.js';

/** UIA control type ids (UIAutomationClient.h) onto the shared role vocabulary. */
export const CONTROL_TYPE_ROLES: Readonly<Record<number, Role>> = {
  50000: 'button',
  50001: 'calendar',
  50002: 'check_box',
  50003: 'combo_box',
  50004: 'edit',
  50005: 'link',
  50006: 'image',
  50007: 'list_item',
  50008: 'list',
  50009: 'menu',
  50010: 'menu_bar',
  50011: 'menu_item',
  50012: 'progress_bar',
  50013: 'radio_button',
  50014: 'scroll_bar',
  50015: 'slider',
  50016: 'spinner',
  50017: 'status_bar',
  50018: 'tab',
  50019: 'tab_item',
  50020: 'label',
  50021: 'tool_bar',
  50022: 'tool_tip',
  50023: 'tree',
  50024: 'tree_item',
  50025: 'unknown',
  50026: 'group',
  50027: 'unknown',
  50028: 'table',
  50029: 'row',
  50030: 'document',
  50031: 'split_button',
  50032: 'window',
  50033: 'pane',
  50034: 'header',
  50035: 'column_header',
  50036: 'table',
  50037: 'title_bar',
  50038: 'separator',
  50039: 'pane',
  50040: 'tool_bar',
};

/** A control type id as a role (`unknown` for ids newer than this table). */
export function roleOfControlType(id: number): Role {
  return CONTROL_TYPE_ROLES[id] ?? 'unknown';
}

/** UIA pattern ids onto the shared patterns (those an action can use; others are not listed). */
export const PATTERN_IDS: Readonly<Record<Exclude<Pattern, 'focus'>, number>> = {
  invoke: 10000,
  selection: 10001,
  value: 10002,
  range_value: 10003,
  expand_collapse: 10005,
  selection_item: 10010,
  text: 10014,
  toggle: 10015,
  scroll_item: 10017,
};

/** The "Is…PatternAvailable" property of each pattern: cached in bulk, so no per-element pattern call is needed to list them. */
export const PATTERN_AVAILABLE_PROPERTIES: Readonly<Record<Exclude<Pattern, 'focus'>, number>> = {
  invoke: 30031,
  selection: 30037,
  value: 30043,
  range_value: 30033,
  expand_collapse: 30028,
  selection_item: 30036,
  text: 30040,
  toggle: 30041,
  scroll_item: 30035,
};

/** Property ids a bulk read caches (one CacheRequest, TreeScope_Subtree). */
export const PROPERTY_IDS = {
  RuntimeId: 30000,
  BoundingRectangle: 30001,
  ProcessId: 30002,
  ControlType: 30003,
  Name: 30005,
  HasKeyboardFocus: 30008,
  IsKeyboardFocusable: 30009,
  IsEnabled: 30010,
  AutomationId: 30011,
  ClassName: 30012,
  IsPassword: 30019,
  NativeWindowHandle: 30020,
  IsOffscreen: 30022,
  ValueValue: 30045,
  ValueIsReadOnly: 30046,
  RangeValueValue: 30047,
  ExpandCollapseState: 30070,
  SelectionItemIsSelected: 30079,
  ToggleState: 30086,
} as const;

/** TreeScope flags. */
export const TREE_SCOPE = { Element: 1, Children: 2, Descendants: 4, Subtree: 7 } as const;

/** ToggleState (Off, On, Indeterminate) as the checked state. */
export function checkedOfToggleState(state: number): boolean | 'mixed' | undefined {
  return state === 0 ? false : state === 1 ? true : state === 2 ? 'mixed' : undefined;
}

/** ExpandCollapseState (Collapsed, Expanded, PartiallyExpanded, LeafNode) as expanded/expandable. */
export function expansionOf(state: number): { expanded?: boolean; expandable: boolean } {
  return state === 3 ? { expandable: false } : { expanded: state === 1 || state === 2, expandable: true };
}
