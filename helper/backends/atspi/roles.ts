import type { ElementState, Role } from '../../../protocol/index.js';

/** AT-SPI role names indexed by AtspiRole number (at-spi2-core 2.46). */
const ATSPI_ROLE_NAMES = (
  'invalid accelerator-label alert animation arrow calendar canvas check-box check-menu-item color-chooser ' +
  'column-header combo-box date-editor desktop-icon desktop-frame dial dialog directory-pane drawing-area file-chooser ' +
  'filler focus-traversable font-chooser frame glass-pane html-container icon image internal-frame label ' +
  'layered-pane list list-item menu menu-bar menu-item option-pane page-tab page-tab-list panel ' +
  'password-text popup-menu progress-bar push-button radio-button radio-menu-item root-pane row-header scroll-bar scroll-pane ' +
  'separator slider spin-button split-pane status-bar table table-cell table-column-header table-row-header tearoff-menu-item ' +
  'terminal text toggle-button tool-bar tool-tip tree tree-table unknown viewport window ' +
  'extended header footer paragraph ruler application autocomplete editbar embedded entry ' +
  'chart caption document-frame heading page section redundant-object form link input-method-window ' +
  'table-row tree-item document-spreadsheet document-presentation document-text document-web document-email comment list-box grouping ' +
  'image-map notification info-bar level-bar title-bar block-quote audio video definition article ' +
  'landmark log marquee math rating timer static math-fraction math-root subscript ' +
  'superscript description-list description-term description-value footnote content-deletion content-insertion mark suggestion push-button-menu'
).split(' ');

/** Shared-vocabulary role for each AT-SPI role name; unlisted names map to `unknown`. */
const ROLE_MAP: Readonly<Record<string, Role>> = {
  alert: 'alert',
  notification: 'alert',
  'info-bar': 'alert',
  application: 'application',
  'push-button': 'button',
  'push-button-menu': 'split_button',
  calendar: 'calendar',
  'date-editor': 'calendar',
  canvas: 'canvas',
  'drawing-area': 'canvas',
  'table-cell': 'cell',
  'check-box': 'check_box',
  'check-menu-item': 'menu_item',
  'column-header': 'column_header',
  'table-column-header': 'column_header',
  'combo-box': 'combo_box',
  dialog: 'dialog',
  'file-chooser': 'dialog',
  'font-chooser': 'dialog',
  'color-chooser': 'dialog',
  'document-frame': 'document',
  'document-text': 'document',
  'document-web': 'document',
  'document-email': 'document',
  'document-spreadsheet': 'document',
  'document-presentation': 'document',
  article: 'document',
  entry: 'edit',
  text: 'edit',
  'password-text': 'edit',
  terminal: 'edit',
  autocomplete: 'edit',
  editbar: 'edit',
  panel: 'group',
  filler: 'group',
  section: 'group',
  grouping: 'group',
  form: 'group',
  landmark: 'group',
  'internal-frame': 'group',
  'layered-pane': 'group',
  'root-pane': 'group',
  'glass-pane': 'group',
  viewport: 'pane',
  'scroll-pane': 'pane',
  'split-pane': 'pane',
  'option-pane': 'pane',
  'directory-pane': 'pane',
  embedded: 'pane',
  header: 'header',
  footer: 'group',
  heading: 'heading',
  image: 'image',
  icon: 'image',
  'desktop-icon': 'image',
  animation: 'image',
  label: 'label',
  'accelerator-label': 'label',
  caption: 'label',
  static: 'label',
  'description-term': 'label',
  'description-value': 'label',
  link: 'link',
  list: 'list',
  'list-box': 'list',
  'description-list': 'list',
  'list-item': 'list_item',
  menu: 'menu',
  'popup-menu': 'menu',
  'menu-bar': 'menu_bar',
  'menu-item': 'menu_item',
  'radio-menu-item': 'menu_item',
  'tearoff-menu-item': 'menu_item',
  paragraph: 'paragraph',
  'block-quote': 'paragraph',
  comment: 'paragraph',
  'progress-bar': 'progress_bar',
  'level-bar': 'progress_bar',
  'radio-button': 'radio_button',
  'table-row': 'row',
  'row-header': 'row_header',
  'table-row-header': 'row_header',
  'scroll-bar': 'scroll_bar',
  separator: 'separator',
  slider: 'slider',
  dial: 'slider',
  'spin-button': 'spinner',
  'status-bar': 'status_bar',
  'page-tab-list': 'tab',
  'page-tab': 'tab_item',
  table: 'table',
  'tree-table': 'tree',
  'title-bar': 'title_bar',
  'toggle-button': 'toggle_button',
  'tool-bar': 'tool_bar',
  'tool-tip': 'tool_tip',
  tree: 'tree',
  'tree-item': 'tree_item',
  frame: 'window',
  window: 'window',
  'desktop-frame': 'window',
};

/** The mapping of every known role number, made once: a big tree maps thousands of nodes. */
const ROLES: readonly Readonly<{ role: Role; nativeRole: string }>[] = ATSPI_ROLE_NAMES.map((nativeRole) =>
  Object.freeze({ role: ROLE_MAP[nativeRole] ?? 'unknown', nativeRole }),
);

/** Maps an AT-SPI role number onto the shared vocabulary, keeping the native name. */
export function mapRole(atspiRole: number): Readonly<{ role: Role; nativeRole: string }> {
  const known = ROLES[atspiRole];
  if (known !== undefined) return known;
  const nativeRole = `role-${atspiRole}`;
  return { role: ROLE_MAP[nativeRole] ?? 'unknown', nativeRole };
}

/** Maps an AT-SPI role name ("push button", or "push-button" as OSWorld's XML writes it) onto the shared vocabulary. */
export function mapRoleName(name: string): Readonly<{ role: Role; nativeRole: string }> {
  const nativeRole = name.trim().replace(/ /g, '-');
  const index = ATSPI_ROLE_NAMES.indexOf(nativeRole);
  return index >= 0 ? mapRole(index) : { role: ROLE_MAP[nativeRole] ?? 'unknown', nativeRole };
}

/** AtspiStateType numbers by the names StateChanged events use (at-spi2-core 2.46). */
export const STATE_NUMBERS: ReadonlyMap<string, number> = new Map(
  (
    'invalid active armed busy checked collapsed defunct editable enabled expandable expanded focusable focused has-tooltip horizontal iconified ' +
    'modal multi-line multiselectable opaque pressed resizable selectable selected sensitive showing single-line stale transient vertical visible ' +
    'manages-descendants indeterminate required truncated animated invalid-entry supports-autocompletion selectable-text is-default visited checkable has-popup read-only'
  )
    .split(' ')
    .map((name, i) => [name, i]),
);

/** AtspiStateType numbers used here. */
export const S = {
  active: 1,
  armed: 2,
  busy: 3,
  checked: 4,
  collapsed: 5,
  defunct: 6,
  editable: 7,
  enabled: 8,
  expandable: 9,
  expanded: 10,
  focusable: 11,
  focused: 12,
  modal: 16,
  multiLine: 17,
  multiselectable: 18,
  pressed: 20,
  selectable: 22,
  selected: 23,
  sensitive: 24,
  showing: 25,
  singleLine: 26,
  visible: 30,
  managesDescendants: 31,
  indeterminate: 32,
  required: 33,
  checkable: 41,
  readOnly: 43,
} as const;

/** The set of state numbers in an AT-SPI state bitfield (au of two words). */
export function stateSet(words: readonly number[]): Set<number> {
  const set = new Set<number>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? 0;
    for (let bit = 0; bit < 32; bit++) if (((word >>> bit) & 1) === 1) set.add(i * 32 + bit);
  }
  return set;
}

/** Roles whose checked state is meaningful even when CHECKABLE is not exposed (GTK3). */
const CHECKABLE_ROLES = new Set(['check-box', 'check-menu-item', 'radio-button', 'radio-menu-item', 'toggle-button']);

/** Element state from an AT-SPI state set. `enabled` is sensitive && enabled. */
export function mapState(states: ReadonlySet<number>, nativeRole: string): ElementState {
  const state: ElementState = {
    // GTK3 sets both for a usable widget and neither for an insensitive one; GTK4 sets only one of them.
    enabled: states.has(S.enabled) || states.has(S.sensitive),
    focused: states.has(S.focused),
    focusable: states.has(S.focusable),
    offscreen: !states.has(S.showing) || !states.has(S.visible),
  };
  if (states.has(S.selectable) || states.has(S.selected)) {
    state.selectable = states.has(S.selectable);
    state.selected = states.has(S.selected);
  }
  const checkable = states.has(S.checkable) || CHECKABLE_ROLES.has(nativeRole);
  if (checkable) {
    state.checkable = true;
    state.checked = states.has(S.indeterminate) ? 'mixed' : states.has(S.checked);
  }
  if (states.has(S.expandable) || states.has(S.expanded)) {
    state.expandable = true;
    state.expanded = states.has(S.expanded);
  }
  if (states.has(S.editable)) state.editable = true;
  if (states.has(S.readOnly)) state.read_only = true;
  if (states.has(S.multiLine)) state.multi_line = true;
  if (states.has(S.modal)) state.modal = true;
  if (states.has(S.pressed)) state.pressed = true;
  if (states.has(S.busy)) state.busy = true;
  if (states.has(S.required)) state.required = true;
  if (states.has(S.active)) state.active = true;
  if (states.has(S.multiselectable)) state.multiselectable = true;
  if (nativeRole === 'password-text') state.password = true;
  return state;
}
