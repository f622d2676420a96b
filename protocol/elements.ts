import { z } from 'zod';

/**
 * The shared role vocabulary. AT-SPI's numeric roles and UIA's control types both map onto it,
 * so an agent's selector means the same thing on every backend.
 */
export const ROLES = [
  'alert',
  'application',
  'button',
  'calendar',
  'canvas',
  'cell',
  'check_box',
  'column_header',
  'combo_box',
  'dialog',
  'document',
  'edit',
  'group',
  'header',
  'heading',
  'image',
  'label',
  'link',
  'list',
  'list_item',
  'menu',
  'menu_bar',
  'menu_item',
  'pane',
  'paragraph',
  'progress_bar',
  'radio_button',
  'row',
  'row_header',
  'scroll_bar',
  'separator',
  'slider',
  'spinner',
  'split_button',
  'status_bar',
  'tab',
  'tab_item',
  'table',
  'text',
  'title_bar',
  'toggle_button',
  'tool_bar',
  'tool_tip',
  'tree',
  'tree_item',
  'window',
  'unknown',
] as const;

/** A role from the shared vocabulary. */
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/**
 * Backend-neutral interaction patterns (UIA patterns / AT-SPI interfaces and actions).
 * Each action needs one of them: invoke→invoke, set_value→value|range_value, toggle→toggle,
 * expand/collapse→expand_collapse, select→selection_item, scroll_into_view→scroll_item, focus→focus.
 */
export const PATTERNS = ['invoke', 'value', 'range_value', 'text', 'toggle', 'expand_collapse', 'selection', 'selection_item', 'scroll_item', 'focus'] as const;
export const Pattern = z.enum(PATTERNS);
export type Pattern = z.infer<typeof Pattern>;

/** A rectangle in physical screen pixels, with its center. */
export const Rect = z.object({
  x: z.number().int(),
  y: z.number().int(),
  w: z.number().int(),
  h: z.number().int(),
  /** Center x. */
  cx: z.number().int(),
  /** Center y. */
  cy: z.number().int(),
});
export type Rect = z.infer<typeof Rect>;

/** Builds a Rect with its center. */
export function rect(x: number, y: number, w: number, h: number): Rect {
  return { x, y, w, h, cx: Math.round(x + w / 2), cy: Math.round(y + h / 2) };
}

/** Element states. A missing key means "not exposed by the provider", never false. */
export const ElementState = z
  .object({
    enabled: z.boolean(),
    focused: z.boolean(),
    focusable: z.boolean(),
    selected: z.boolean(),
    selectable: z.boolean(),
    checked: z.union([z.boolean(), z.literal('mixed')]),
    checkable: z.boolean(),
    expanded: z.boolean(),
    expandable: z.boolean(),
    offscreen: z.boolean(),
    editable: z.boolean(),
    password: z.boolean(),
    read_only: z.boolean(),
    multi_line: z.boolean(),
    modal: z.boolean(),
    pressed: z.boolean(),
    busy: z.boolean(),
    required: z.boolean(),
    active: z.boolean(),
    multiselectable: z.boolean(),
  })
  .partial()
  .strict();
export type ElementState = z.infer<typeof ElementState>;

/** Fields a provider may fail to answer; named in `unread`. */
export const ELEMENT_FIELDS = ['role', 'name', 'value', 'automation_id', 'class', 'rect', 'state', 'patterns', 'children'] as const;
export const ElementField = z.enum(ELEMENT_FIELDS);
export type ElementField = z.infer<typeof ElementField>;

/** One accessibility element as every backend reports it. */
export const Element = z.object({
  /** Stable identity key within the window (native identity, e.g. `atspi:<bus>:<path>`). */
  key: z.string(),
  role: Role,
  /** The provider's role name when it maps to `unknown` or carries more detail. */
  native_role: z.string().optional(),
  name: z.string().optional(),
  /** Current value or text (absent for password fields). */
  value: z.string().optional(),
  automation_id: z.string().optional(),
  class: z.string().optional(),
  rect: Rect.optional(),
  state: ElementState,
  patterns: z.array(Pattern),
  /** Native action names (AT-SPI Action interface) when the provider has them. */
  actions: z.array(z.string()).optional(),
  /** Fields the provider failed to answer. */
  unread: z.array(ElementField).optional(),
  /** True when a value or text was withheld (password fields). */
  redacted: z.literal(true).optional(),
  /** Text fields that were cut to max_text_chars. */
  cut: z.array(z.enum(['name', 'value'])).optional(),
  /** Digest of role, name, automation_id, class and ancestor path (docs/tools.md#digest). */
  digest: z.string().optional(),
  /** Opaque target handle for element_act (issued by the supervisor). */
  target: z.string().optional(),
  /** Flat format: depth below the window root (root is 0). */
  depth: z.number().int().optional(),
  /** Flat format: the parent's key. */
  parent: z.string().optional(),
  /** Tree format: child elements in order. */
  get children(): z.ZodOptional<z.ZodArray<typeof Element>> {
    return z.array(Element).optional();
  },
});
export type Element = z.infer<typeof Element>;

/** Process identity: pid plus the process start time (pids are recycled). */
export const ProcessIdentity = z.object({
  pid: z.number().int().nonnegative(),
  /** Process start time, as the platform reports it (Linux: clock ticks since boot; Windows: FILETIME). */
  process_start: z.string(),
});
export type ProcessIdentity = z.infer<typeof ProcessIdentity>;

/** A top-level window. */
export const WindowInfo = z.object({
  /** Opaque id, stable for the window's life (HWND as decimal on Windows; AT-SPI frame identity on Linux). */
  window: z.string(),
  title: z.string(),
  class: z.string().optional(),
  /** Application name. */
  app: z.string(),
  pid: z.number().int().nonnegative(),
  process_start: z.string(),
  rect: Rect.optional(),
  foreground: z.boolean(),
  /** The window's role (window, dialog). */
  role: Role.optional(),
});
export type WindowInfo = z.infer<typeof WindowInfo>;
