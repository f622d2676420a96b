import { z } from 'zod';
import { Element, ProcessIdentity, Rect, WindowInfo } from './elements.js';
import { ErrorCode } from './errors.js';
import { FIND_LIMIT, LIST_LIMIT, LimitEcho, MAX_SET_VALUE_CHARS, READ_LIMITS, Truncation } from './limits.js';
import { SCREEN_METHODS } from './screenRpc.js';
import { Selector } from './selector.js';
import { Action, ElementFindArgs, ReadBudgetArgs, Receipt, WindowListAnswer } from './tools.js';

/** Version of the helper protocol; bumped on incompatible changes. */
export const HELPER_PROTOCOL_VERSION = 1;
/** Longest frame (one line) the helper accepts; longer input is refused with invalid_argument. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** Backends a helper can run. */
export const BackendName = z.enum(['atspi', 'uia', 'win32', 'osworld']);
export type BackendName = z.infer<typeof BackendName>;

/** Processes and applications the helper must never read or act on. */
export const Exclusions = z.strictObject({
  /** Process ids (the supervisor's, the agent host's). */
  pids: z.array(z.number().int().nonnegative()).max(1000).optional(),
  /** Application names, matched exactly after case folding, or as /regex/ when wrapped in slashes. */
  apps: z.array(z.string().min(1).max(200)).max(1000).optional(),
  /** Window titles, matched the same way: windows that show the supervisor's own UI (a browser tab, the desktop app). */
  titles: z.array(z.string().min(1).max(200)).max(100).optional(),
});
export type Exclusions = z.infer<typeof Exclusions>;

/**
 * Who a helper call is made for (docs/architecture.md#call-scope). It travels beside a call's own
 * params as `$scope`; the helper takes it off before the params are checked. `agent` is the agent
 * session the call serves (its kept captures and its share of the screen tier's queue are
 * counted against it); `exclude_pids` are processes never read, shown or driven for that agent
 * alone (its own MCP host), on top of the exclusions every call has.
 */
export const CallScope = z.strictObject({
  agent: z.string().min(1).max(100),
  exclude_pids: z.array(z.number().int().positive()).max(16).optional(),
});
export type CallScope = z.infer<typeof CallScope>;
/** The params member that carries a call's scope. */
export const SCOPE_PARAM = '$scope';

export const HelloParams = z.strictObject({
  client: z.string().max(200).optional(),
  exclude: Exclusions.optional(),
});
export const HelloResult = z.object({
  backend: BackendName,
  version: z.string(),
  protocol_version: z.number().int(),
  pid: z.number().int(),
  capabilities: z.array(z.string()),
  actions: z.array(Action),
  limits: z.record(z.string(), z.object({ default: z.number(), min: z.number(), ceiling: z.number() })),
  fallback_reason: z.string().optional(),
  /** Where the helper runs (process.platform): a connection's test names it, and refuses win32 over ssh. */
  platform: z.string().max(40).optional(),
  /** The desktop session it acts in: x11, wayland, windows, or none. */
  session_type: z.string().max(40).optional(),
});
export type HelloResult = z.infer<typeof HelloResult>;

export const ConfigureParams = z.strictObject({ exclude: Exclusions });

/**
 * The state of an element as a person was shown it on an approval card (docs/supervision.md#approval-binding).
 * The value travels only as a keyed hash made inside the helper, so password text never leaves it.
 */
export const ShownState = z.strictObject({
  /** HMAC of the value or text under a key that never leaves the helper process; "none" when it has none. */
  value_hash: z.string().max(100),
  checked: z.union([z.boolean(), z.literal('mixed')]).optional(),
  selected: z.boolean().optional(),
  expanded: z.boolean().optional(),
  enabled: z.boolean().optional(),
});
export type ShownState = z.infer<typeof ShownState>;

/**
 * What an agent observed of an element, bound into a target: the helper re-checks all of it right
 * before dispatch and refuses with a stale code on any difference.
 */
export const ElementRef = z.strictObject({
  /** Native identity key (AT-SPI bus name + object path; UIA RuntimeId). */
  key: z.string().min(1).max(500),
  window: z.string().min(1).max(200),
  process: ProcessIdentity,
  /** Digest of role, name, automation_id, class and ancestor path at observation. */
  digest: z.string().min(1).max(100),
  /** Recorded semantics, for rebind and for explaining a mismatch. */
  role: z.string().max(100).optional(),
  name: z.string().max(5000).optional(),
  automation_id: z.string().max(1000).optional(),
  class: z.string().max(500).optional(),
  ancestors: z.array(z.string().max(5000)).max(300).optional(),
  /** Window title and rect at observation; rebind refuses if they changed. */
  window_title: z.string().max(5000).optional(),
  window_rect: Rect.optional(),
  /** The state a person approved; the helper refuses a dispatch when the element no longer shows it. */
  shown: ShownState.optional(),
});
export type ElementRef = z.infer<typeof ElementRef>;

export const HelperReadParams = ReadBudgetArgs.extend({
  window: z.string().min(1).max(200).optional(),
  format: z.enum(['tree', 'flat']).optional(),
  /** Attach `digest` to every element (for targets). */
  identity: z.boolean().optional(),
  /** The supervisor's own view for a person: no token budget (agents' reads keep max_tokens). */
  for_ui: z.boolean().optional(),
  /**
   * Read and answer element rectangles (default true). The supervisor's text answer shows none, so
   * it asks without them: one D-Bus call less per element (docs/performance.md#what-a-read-asks).
   */
  rects: z.boolean().optional(),
  /**
   * What `max_tokens` counts: the compact text lines the agent is sent (`text`), or the JSON
   * elements (`json`, the default) (docs/tools.md#budgets-and-cuts).
   */
  tokens_of: z.enum(['text', 'json']).optional(),
  /** Answer where the read spent its time (bench and diagnostics). */
  profile: z.boolean().optional(),
});
export type HelperReadParams = z.infer<typeof HelperReadParams>;

/** Where one read spent its time (docs/performance.md#profile). */
export const ReadProfile = z.object({
  phases_ms: z.record(z.string(), z.number()),
  /** Calls the backend made to applications during the read (AT-SPI: D-Bus method calls). */
  calls: z.number().int(),
  calls_by_member: z.record(z.string(), z.number().int()),
  /** Most calls in flight at once. */
  max_in_flight: z.number().int(),
  /** Structural loads: reused after a barrier, or reloaded (Cache.GetItems). */
  loads_reused: z.number().int(),
  loads_reloaded: z.number().int(),
  nodes_loaded: z.number().int(),
  /** Of the phases, time spent reading structures (Cache.GetItems and building the node maps). */
  load_ms: z.number(),
  /** CPU time of the helper during the read; the rest of the wall time is waiting for applications and the bus. */
  cpu_ms: z.number(),
});
export type ReadProfile = z.infer<typeof ReadProfile>;

export const HelperReadResult = z.object({
  window: WindowInfo,
  format: z.enum(['tree', 'flat']),
  elements: z.array(Element),
  node_count: z.number().int(),
  limits: z.record(z.string(), LimitEcho),
  truncated_by: z.array(Truncation),
  notes: z.array(z.string()),
  read_ms: z.number(),
  /**
   * With `identity`: the bound reference of each element answered, by key. The helper builds
   * identity (uncut names, ancestor path, digest) in one place; the supervisor issues targets from
   * these and never rebuilds them from the shaped elements, whose text may be cut.
   */
  refs: z.record(z.string(), ElementRef).optional(),
  /** With `profile`: time per phase inside the helper, and the backend's calls during the read. */
  profile: ReadProfile.optional(),
});
export type HelperReadResult = z.infer<typeof HelperReadResult>;

export const HelperFindParams = ElementFindArgs.omit({ output: true }).extend({
  /** Also answer the bound reference of every match shown (for targets and rebind). */
  refs: z.boolean().optional(),
});
export type HelperFindParams = z.infer<typeof HelperFindParams>;

export const ElementResolveParams = z.strictObject({ element: ElementRef });
export const ElementResolveResult = z.object({ window: WindowInfo, element: Element });

export const HelperActParams = z
  .strictObject({
    window: z.string().min(1).max(200).optional(),
    selector: Selector.optional(),
    element: ElementRef.optional(),
    action: Action,
    text: z.string().max(MAX_SET_VALUE_CHARS).optional(),
    rebind: z.boolean().optional(),
    /** Resolve and check support and enablement, but dispatch nothing. */
    check_only: z.boolean().optional(),
  })
  .refine((a) => (a.selector === undefined) !== (a.element === undefined), { message: 'give exactly one of selector or element', path: ['selector'] })
  .refine((a) => a.action !== 'set_value' || typeof a.text === 'string', { message: 'set_value needs text (a string; "" clears)', path: ['text'] })
  .refine((a) => a.action === 'set_value' || a.text === undefined, { message: 'text is only for set_value', path: ['text'] });
export type HelperActParams = z.infer<typeof HelperActParams>;

/** The helper's receipt: the supervisor adds receipt_id and decision. */
export const HelperActResult = Receipt.omit({ receipt_id: true, decision: true, screen: true }).extend({
  action: Action,
  /** The bound identity of the element acted on, for targets and journal. */
  element_ref: ElementRef.optional(),
  /** An ambiguous refusal's candidates, in the order of its data.candidates: the supervisor issues targets from them and never passes them on. */
  candidate_refs: z.array(ElementRef).max(10).optional(),
  rebound: z.boolean().optional(),
});
export type HelperActResult = z.infer<typeof HelperActResult>;

/** The helper's method table: one definition, validated on both sides. */
export const HELPER_METHODS = {
  hello: { params: HelloParams, result: HelloResult },
  configure: { params: ConfigureParams, result: z.object({ ok: z.literal(true) }) },
  window_list: { params: z.strictObject({ limit: z.number().int().min(LIST_LIMIT.min).optional() }), result: WindowListAnswer },
  window_read: { params: HelperReadParams, result: HelperReadResult },
  element_find: { params: HelperFindParams, result: z.lazy(() => HelperFindResultSchema) },
  element_resolve: { params: ElementResolveParams, result: ElementResolveResult },
  element_act: { params: HelperActParams, result: HelperActResult },
  ...SCREEN_METHODS,
} as const;
export type HelperMethod = keyof typeof HELPER_METHODS;
export type HelperParams<M extends HelperMethod> = z.infer<(typeof HELPER_METHODS)[M]['params']>;
export type HelperResult<M extends HelperMethod> = z.infer<(typeof HELPER_METHODS)[M]['result']>;

const HelperFindResultSchema = z.object({
  window: WindowInfo,
  matches: z.array(Element),
  match_count: z.number().int(),
  searched_whole_window: z.boolean(),
  reason: z.string().optional(),
  unreadable_candidates: z.array(z.object({ key: z.string(), role: z.string(), name: z.string().optional(), unread: z.array(z.string()) })).optional(),
  limit: LimitEcho,
  stopped_before_timeout_ms: z.number().optional(),
  last_walk_ms: z.number().optional(),
  truncated_by: z.array(Truncation),
  notes: z.array(z.string()),
  /** With `refs`: the bound reference of each match, in the same order. */
  refs: z.array(ElementRef).optional(),
});
export { FIND_LIMIT, READ_LIMITS };

/** Notification from the helper: these processes' accessibility trees changed (debounced). */
export const DesktopChanged = z.object({ pids: z.array(z.number().int().nonnegative()).max(1000) });
export type DesktopChanged = z.infer<typeof DesktopChanged>;

/** JSON-RPC 2.0 numeric codes; the error code (docs/tools.md#errors) travels in error.data.code. */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  applicationError: -32000,
  requestCancelled: -32800,
} as const;

/** The error object of a JSON-RPC response. */
export const RpcError = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.object({ code: ErrorCode, data: z.record(z.string(), z.unknown()).optional() }).optional(),
});
export type RpcError = z.infer<typeof RpcError>;

const Id = z.union([z.number().int(), z.string().max(200)]);

/** A JSON-RPC 2.0 frame: request, notification or response. */
export const RpcFrame = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: Id, method: z.string().max(200), params: z.unknown().optional() }),
  z.object({ jsonrpc: z.literal('2.0'), method: z.string().max(200), params: z.unknown().optional() }),
  z.object({ jsonrpc: z.literal('2.0'), id: Id, result: z.unknown() }),
  z.object({ jsonrpc: z.literal('2.0'), id: z.union([Id, z.null()]), error: RpcError }),
]);
export type RpcFrame = z.infer<typeof RpcFrame>;

/** Notification that cancels a request in flight (LSP's name). */
export const CANCEL_METHOD = '$/cancelRequest';
export const CancelParams = z.object({ id: Id });
