import { z } from 'zod';
import { Element, WindowInfo } from './elements.js';
import { ErrorInfo } from './errors.js';
import { FIND_LIMIT, FIND_TIMEOUT, LIST_LIMIT, LimitEcho, MAX_SET_VALUE_CHARS, READ_LIMITS, Truncation, limitField } from './limits.js';
import { ScreenInputDetail } from './screenRpc.js';
import { Selector } from './selector.js';
import { AskAnswer, HandoffAnswer } from './questionsHandoffs.js';

/** Names of the accessibility tier's five tools (docs/tools.md#overview); the other tiers name theirs beside their schemas. */
export const ACCESSIBILITY_TOOL_NAMES = ['window_list', 'window_read', 'element_find', 'element_act', 'action_wait'] as const;
export type AccessibilityToolName = (typeof ACCESSIBILITY_TOOL_NAMES)[number];

/** The eight actions of element_act. */
export const ACTIONS = ['invoke', 'set_value', 'toggle', 'expand', 'collapse', 'select', 'scroll_into_view', 'focus'] as const;
export const Action = z.enum(ACTIONS);
export type Action = z.infer<typeof Action>;
/** The screen tier's changing inputs as receipts, cards and rules name them (double and triple clicks are clicks with a count). */
export const SCREEN_ACTIONS = ['click', 'move', 'left_click_drag', 'mouse_down', 'mouse_up', 'scroll', 'type_text', 'key', 'hold_key'] as const;
export const ScreenAction = z.enum(SCREEN_ACTIONS);
export type ScreenAction = z.infer<typeof ScreenAction>;
/** Any changing action: element_act's or a screen input. */
export const AnyAction = z.enum([...ACTIONS, ...SCREEN_ACTIONS]);
export type AnyAction = z.infer<typeof AnyAction>;
/** What stands in for text typed or set into a password field, everywhere it would be shown. */
export const MASKED_TEXT = '••••••';
/** Actions that only change the view; everything else mutates and needs approval. */
export const VIEW_ONLY_ACTIONS: ReadonlySet<AnyAction> = new Set(['focus', 'scroll_into_view']);

const windowId = z.string().min(1).max(200).describe('Window id from window_list. Default: the foreground window.');
/** How an answer is rendered for the agent. */
const output = z.enum(['text', 'json']).describe('"text" (default): a compact rendering that is cheap to read; "json": the full structured answer.').optional();

/** window_list arguments. */
export const WindowListArgs = z.strictObject({
  limit: limitField(LIST_LIMIT, 'Most windows to list.'),
  output,
});
export type WindowListArgs = z.infer<typeof WindowListArgs>;

/** Reader budgets shared by window_read and the helper. */
export const ReadBudgetArgs = z.strictObject({
  max_nodes: limitField(READ_LIMITS.max_nodes, 'Most elements to return.'),
  max_depth: limitField(READ_LIMITS.max_depth, 'Deepest level below the window to return.'),
  max_children_per_node: limitField(READ_LIMITS.max_children_per_node, 'Most children to return under one element.'),
  max_text_chars: limitField(READ_LIMITS.max_text_chars, 'Longest name or value; longer text is cut and the element lists it in `cut`.'),
  max_tokens: limitField(READ_LIMITS.max_tokens, 'Approximate token budget of the answer.'),
  timeout_ms: limitField(READ_LIMITS.timeout_ms, 'Reader time budget; a partial answer names `timeout` in truncated_by.'),
});

/** window_read arguments. */
export const WindowReadArgs = ReadBudgetArgs.extend({
  window: windowId.optional(),
  format: z.enum(['tree', 'flat']).describe('"tree" (nested children, default) or "flat" (list with depth and parent).').optional(),
  since: z.string().min(1).max(100).describe('An observation id from an earlier identical query: answer with only what changed (mode "delta").').optional(),
  snapshot: z.string().min(1).max(100).describe('An observation id: return that retained full observation without reading the desktop.').optional(),
  targets: z.boolean().describe('Attach target handles usable with element_act (default: on when `window` is given).').optional(),
  output,
});
export type WindowReadArgs = z.infer<typeof WindowReadArgs>;

/** element_find arguments. */
export const ElementFindArgs = z.strictObject({
  window: windowId.optional(),
  selector: Selector,
  limit: limitField(FIND_LIMIT, 'Most matches to return.'),
  timeout_ms: z
    .number()
    .int()
    .min(FIND_TIMEOUT.min)
    .describe(`0 looks once; a positive value waits up to that long for a first match. Ceiling ${FIND_TIMEOUT.ceiling}.`)
    .optional(),
  output,
});
export type ElementFindArgs = z.infer<typeof ElementFindArgs>;

/** element_act arguments. */
export const ElementActArgs = z
  .strictObject({
    window: windowId.optional(),
    selector: Selector.optional(),
    target: z.string().min(1).max(200).describe('A target handle from window_read or element_find.').optional(),
    action: Action.describe('invoke | set_value | toggle | expand | collapse | select | scroll_into_view | focus'),
    text: z.string().max(MAX_SET_VALUE_CHARS).describe('The new value for set_value ("" clears).').optional(),
    rebind: z.boolean().describe('If the target element was replaced by an identical one, allow one bounded rescan to find it.').optional(),
    output,
  })
  .refine((a) => (a.selector === undefined) !== (a.target === undefined), { message: 'give exactly one of selector or target', path: ['selector'] })
  .refine((a) => a.action !== 'set_value' || typeof a.text === 'string', { message: 'set_value needs text (a string; "" clears)', path: ['text'] })
  .refine((a) => a.action === 'set_value' || a.text === undefined, { message: 'text is only for set_value', path: ['text'] });
export type ElementActArgs = z.infer<typeof ElementActArgs>;

/** action_wait arguments. */
export const ActionWaitArgs = z.strictObject({
  receipt_id: z.string().min(1).max(100).describe('The receipt_id of a pending element_act, screen input, computer_ask or computer_ctrl handoff.'),
  timeout_ms: z.number().int().min(0).max(600_000).describe('How long to keep waiting for the decision (default 45000).').optional(),
  output,
});
export type ActionWaitArgs = z.infer<typeof ActionWaitArgs>;

/** Every bounded answer names its cuts. */
const Bounded = {
  truncated_by: z.array(Truncation),
  notes: z.array(z.string()),
};

/** window_list answer. */
export const WindowListAnswer = z.object({
  windows: z.array(WindowInfo),
  limit: LimitEcho,
  total_known: z.boolean(),
  ...Bounded,
});
export type WindowListAnswer = z.infer<typeof WindowListAnswer>;

/** A delta between two observations (docs/tools.md#observations-and-deltas). */
export const Delta = z.object({
  added: z.array(z.object({ key: z.string(), element: Element })),
  changed: z.array(z.object({ key: z.string(), element: Element })),
  removed: z.array(z.string()),
  order: z.array(z.string()).optional(),
});

/** window_read answer. */
export const WindowReadAnswer = z.object({
  window: WindowInfo,
  observation: z.string(),
  mode: z.enum(['full', 'delta']),
  format: z.enum(['tree', 'flat']),
  elements: z.array(Element).optional(),
  delta: Delta.optional(),
  reset_reason: z.string().optional(),
  node_count: z.number().int(),
  limits: z.record(z.string(), LimitEcho),
  read_ms: z.number(),
  ...Bounded,
});
export type WindowReadAnswer = z.infer<typeof WindowReadAnswer>;

/** element_find answer: found; not found after searching the whole window; or undecided with a reason. */
export const ElementFindAnswer = z.object({
  window: WindowInfo,
  matches: z.array(Element),
  match_count: z.number().int(),
  searched_whole_window: z.boolean(),
  reason: z.string().optional(),
  unreadable_candidates: z.array(z.object({ key: z.string(), role: z.string(), name: z.string().optional(), unread: z.array(z.string()) })).optional(),
  limit: LimitEcho,
  stopped_before_timeout_ms: z.number().optional(),
  last_walk_ms: z.number().optional(),
  ...Bounded,
});
export type ElementFindAnswer = z.infer<typeof ElementFindAnswer>;

/** Who decided, how, and when. `withdrawn`: the agent went away before anyone decided (docs/supervision.md#withdrawal). */
export const Decision = z.object({
  verdict: z.enum(['approved', 'auto', 'denied', 'expired', 'braked', 'withdrawn']),
  by: z.enum(['human', 'policy']),
  at: z.string(),
  note: z.string().optional(),
});
export type Decision = z.infer<typeof Decision>;

/** Outcome of an element_act. */
export const Outcome = z.enum(['pending', 'refused', 'completed', 'failed', 'unknown']);
export type Outcome = z.infer<typeof Outcome>;

/** The element as re-read after the call. */
export const AfterRead = z.object({
  status: z.enum(['full', 'partial', 'unavailable']),
  unread: z.array(z.string()).optional(),
});

/** element_act answer: a receipt of what was invoked and what the element looks like afterwards. */
export const Receipt = z.object({
  receipt_id: z.string(),
  action: AnyAction,
  /** set_value text; masked for password fields. */
  text: z.string().optional(),
  window: WindowInfo.optional(),
  /** The target as it looked before. */
  target: Element.optional(),
  decision: Decision.optional(),
  outcome: Outcome,
  refusal: ErrorInfo.optional(),
  error: ErrorInfo.optional(),
  action_call_made: z.union([z.boolean(), z.literal('unknown')]),
  path: z.string().optional(),
  /**
   * How the action runs where the element's own interface cannot carry it, e.g. set_value typed into
   * a web page's field (docs/tools.md#set-value-by-typing); the card said it before a person decided.
   */
  method: z.string().max(300).optional(),
  verification: z.enum(['verified', 'mismatch', 'not_checked']),
  verification_detail: z.string().optional(),
  after: Element.optional(),
  after_read: AfterRead,
  stopped_before_timeout_ms: z.number().optional(),
  last_walk_ms: z.number().optional(),
  /** A screen input: where it landed (image and physical point), on what, with which keys. */
  screen: ScreenInputDetail.optional(),
  /**
   * A view-only action (focus, scroll_into_view) that ran without a person and changed more than
   * the view: the element's states (and `value`) that differ after it, e.g. `["selected"]`.
   */
  changed_state: z.array(z.string().max(50)).max(30).optional(),
});
export type Receipt = z.infer<typeof Receipt>;

/** The answer schema of each tool: its MCP outputSchema and the shape of its structuredContent. */
export const TOOL_ANSWERS = {
  window_list: WindowListAnswer,
  window_read: WindowReadAnswer,
  element_find: ElementFindAnswer,
  element_act: Receipt.omit({ screen: true }),
  // action_wait answers for element_act and the screen tier's input alike, and for a question or handoff (docs/tools.md#action_wait).
  action_wait: z.union([Receipt, AskAnswer, HandoffAnswer]),
} as const satisfies Record<AccessibilityToolName, z.ZodType>;
