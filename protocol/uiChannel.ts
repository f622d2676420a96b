import { z } from 'zod';
import { ConnectionConfig, ConnectionInfo, ConnectionRef, ConnectionTest, ExecEnd } from './connections.js';
import { Element, WindowInfo } from './elements.js';
import { ErrorInfo } from './errors.js';
import { Exclusions } from './helperRpc.js';
import { ImageRect, ScreenTransform } from './screenGeometry.js';
import { ScreenConsent, ScreenConsentParams } from './screenRpc.js';
import { QUESTION_HANDOFF_LIMITS } from './questionsHandoffs.js';
import { AnyAction, Receipt } from './tools.js';
import { CardPictureKind, HeldApproval, PendingApproval } from './approvalCard.js';
import { AgentGrant } from './grants.js';

/** The UI's page title: `Overseer`, or `(N) Overseer` while N approvals wait. */
export function uiTitle(pending: number): string {
  return `${pending > 0 ? `(${pending}) ` : ''}Overseer`;
}

/**
 * Window titles the helper never reads or acts on (docs/security.md#the-supervisors-own-windows): a
 * browser window whose active tab is the UI (`(2) Overseer - Chromium`, `Overseer — Mozilla
 * Firefox`) and the desktop app's window. An agent cannot change the UI's title, so it cannot
 * lift this; a person's own window that happens to be titled so is excluded too (the safe side).
 */
export const UI_WINDOW_TITLES = ['/^(\\(\\d+\\) )?Overseer( [-–—|·] .*)?$/'];

/** Brake states (docs/supervision.md#brakes): running; paused (nothing new dispatched); stopped (pending answered braked); emergency (needs re-arm). */
export const BrakeState = z.enum(['running', 'paused', 'stopped', 'emergency']);
export type BrakeState = z.infer<typeof BrakeState>;

/**
 * A policy rule. `allow` rules come from the two-step "allow for this session" and name their exact
 * scope (agent session, the desktop it was given on, action, app, and the element unless the scope is the whole app);
 * `deny_app` blocks apps by pattern.
 */
export const PolicyRule = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('allow'),
    id: z.string(),
    /** The agent session the rule applies to (it ends with the session). */
    session: z.string(),
    /** The agent's name as it introduced itself, for people. */
    agent: z.string(),
    /**
     * The desktop it was given on: the connection's name ("local" for this one), with `~N` once
     * that name was removed and added again or re-pointed. It covers acts on that desktop alone.
     */
    connection: z.string(),
    action: AnyAction,
    /** Application name it applies to. */
    app: z.string(),
    /** `element`: only that element; `app`: any element of the app. */
    scope: z.enum(['element', 'app']),
    /** Element key it applies to (scope `element`). */
    element: z.string().optional(),
    /** The element as people read it, e.g. `button "Send"` (scope `element`). */
    element_label: z.string().optional(),
    created_at: z.string(),
  }),
  z.object({ kind: z.literal('deny_app'), id: z.string(), pattern: z.string().min(1).max(200), created_at: z.string() }),
]);
export type PolicyRule = z.infer<typeof PolicyRule>;

/** Settings a person can change. */
export const Settings = z.strictObject({
  /** Seconds before an unanswered approval expires. */
  approval_expiry_s: z.number().int().min(5).max(3600),
  /** Milliseconds element_act waits for a decision before answering `pending`. */
  approval_wait_ms: z.number().int().min(1000).max(55_000),
  /** List only computer_use_activate (and the tools every agent lists) until an agent activates tiers (docs/tools.md#progressive-tools). */
  progressive_tools: z.boolean(),
  /** Offer agents the screen tier (screenshots, pointer and keyboard input): 15 more tools in every tools/list. */
  screen_tools: z.boolean(),
  exclusions: Exclusions,
  /** Default reader budget for window_read (ms). */
  read_timeout_ms: z.number().int().min(100).max(20_000),
  /** Default max_nodes for window_read. */
  read_max_nodes: z.number().int().min(1).max(5000),
  /** Seconds an agent's HTTP session may stay idle (no call in flight, no open stream) before it ends and its pending actions are withdrawn. */
  agent_idle_s: z.number().int().min(5).max(86_400),
  /**
   * The shared agent token (DATA_DIR/token) still opens `/mcp` and the bridge, for agents not yet
   * granted their own credential (docs/agents.md#the-shared-token): every agent using it is one
   * identity, named as it names itself. Off, only granted agents connect.
   */
  shared_token: z.boolean(),
});
export type Settings = z.infer<typeof Settings>;

/** The defaults of a fresh installation. */
export const DEFAULT_SETTINGS: Settings = {
  approval_expiry_s: 120,
  approval_wait_ms: 45_000,
  // On: an idle agent's tools/list stays small (docs/tools.md#progressive-tools).
  progressive_tools: true,
  screen_tools: true,
  exclusions: {},
  read_timeout_ms: 5000,
  read_max_nodes: 400,
  agent_idle_s: 600,
  shared_token: true,
};

/** A connected agent (one MCP connection). */
export const AgentInfo = z.object({
  session: z.string(),
  client: z.string(),
  transport: z.enum(['http', 'stdio']),
  since: z.string(),
  calls: z.number().int(),
  pending: z.number().int(),
  activated: z.boolean(),
  /** When the agent last sent anything. */
  last_active: z.string(),
  /** While idle (HTTP only): when the session will end by itself. */
  expires_at: z.string().optional(),
  /** The connection this agent's tools act on now (docs/connections.md); absent means local. */
  connection: z.string().optional(),
  /** The grant it connected with (docs/agents.md#grants): `client` is then the name the person approved. Absent: the shared token. */
  grant: z.string().optional(),
  /** The name the agent gave itself, when it differs from the one its grant carries (its claim, shown as such). */
  claimed: z.string().optional(),
});
export type AgentInfo = z.infer<typeof AgentInfo>;

/**
 * A change of the pending or held list as the UI channel sends it (docs/architecture.md#ui-channel):
 * the items that joined (their pictures left out: fetch one with `card_picture`) and the ids that
 * left. A change never re-sends the whole queue, so a flood of cards cannot flood the person's socket.
 */
export function listDelta<T extends z.ZodType>(item: T) {
  return z.object({ added: z.array(item).max(1000), removed: z.array(z.string().max(100)).max(10_000) });
}
export const PendingDelta = listDelta(PendingApproval);
export type PendingDelta = z.infer<typeof PendingDelta>;
export const HeldDelta = listDelta(HeldApproval);
export type HeldDelta = z.infer<typeof HeldDelta>;

/** Applies a delta to a list: removed ids leave, added items join at the end (or replace the one with their id in place). */
export function applyDelta<T extends { approval_id: string }>(list: readonly T[], delta: { added: readonly T[]; removed: readonly string[] }): T[] {
  const gone = new Set(delta.removed);
  const added = new Map(delta.added.map((a) => [a.approval_id, a]));
  const out = list.filter((x) => !gone.has(x.approval_id)).map((x) => added.get(x.approval_id) ?? x);
  const present = new Set(out.map((x) => x.approval_id));
  for (const a of delta.added) if (!present.has(a.approval_id) && !gone.has(a.approval_id)) out.push(a);
  return out;
}

/** Whether the tree the person sees is the application's current state. */
export const TreeStatus = z.object({
  window: z.string().optional(),
  /** `current`: follows the application; `reading`: a read is under way; `out_of_date`: the last read failed or the helper is down. */
  state: z.enum(['none', 'reading', 'current', 'out_of_date']),
  /** When the shown tree was read. */
  read_at: z.string().optional(),
  why: z.string().optional(),
});
export type TreeStatus = z.infer<typeof TreeStatus>;

/** A receipt as the timeline shows it. */
export const ReceiptEntry = z.object({
  seq: z.number().int(),
  /** The element_act receipt this entry belongs to (approval cards carry the same id). */
  receipt_id: z.string().optional(),
  at: z.string(),
  session: z.string(),
  agent: z.string(),
  tool: z.string(),
  outcome: z.string(),
  decision: z.string().optional(),
  verification: z.string().optional(),
  path: z.string().optional(),
  duration_ms: z.number(),
  summary: z.string(),
  receipt: Receipt.optional(),
  error: ErrorInfo.optional(),
  /** A picture of the screen after this input is kept (ask with the receipt_picture command). */
  picture: z.boolean().optional(),
  /** Where the call ran (docs/connections.md); absent means local. */
  connection: ConnectionRef.optional(),
  /** How a remote_exec ended: its exit code, signal or timeout (its outcome is `ok` only for exit 0). */
  remote_exec: ExecEnd.optional(),
});
export type ReceiptEntry = z.infer<typeof ReceiptEntry>;

/**
 * Most recent receipts the UI holds: the supervisor keeps this many for the snapshot a UI gets on
 * connect, and the renderer's store keeps the same number as receipts arrive, so a UI open for a
 * day shows what a UI opened now shows. The journal on disk keeps every receipt.
 */
export const MAX_RECEIPTS = 500;

/** Health of the accessibility helper. */
export const HelperHealth = z.object({
  state: z.enum(['starting', 'ready', 'restarting', 'stopped', 'failed']),
  backend: z.string().optional(),
  pid: z.number().int().optional(),
  restarts: z.number().int(),
  last_error: z.string().optional(),
});
export type HelperHealth = z.infer<typeof HelperHealth>;

/** The connections as the person sees them: every one (local first), and the one the windows list, tree and Screen view show. */
export const ConnectionsView = z.object({ list: z.array(ConnectionInfo), viewed: z.string() });
export type ConnectionsView = z.infer<typeof ConnectionsView>;

/** How agents connect to this supervisor: what Settings → Connect an agent shows. */
export const AgentConnectInfo = z.object({
  mcp_url: z.string(),
  /** The command an MCP client launches, with absolute paths, so it works from any folder. */
  stdio_command: z.array(z.string()),
  /** The shared agent token for the HTTP snippet, only while it opens something (docs/agents.md#the-shared-token). */
  mcp_token: z.string().optional(),
  /** Environment the stdio command needs (the installed app runs its CLI with ELECTRON_RUN_AS_NODE=1). */
  stdio_env: z.record(z.string(), z.string()).optional(),
});
export type AgentConnectInfo = z.infer<typeof AgentConnectInfo>;

/** Everything the UI shows; sent whole on connect, then as events. */
export const UiSnapshot = z.object({
  agents: z.array(AgentInfo),
  windows: z.array(WindowInfo),
  chosen_window: z.string().optional(),
  tree: z.array(Element).optional(),
  tree_status: TreeStatus,
  pending: z.array(PendingApproval),
  held: z.array(HeldApproval),
  /** The latest receipts, oldest first, at most MAX_RECEIPTS. */
  receipts: z.array(ReceiptEntry).max(MAX_RECEIPTS),
  brake: BrakeState,
  helper: HelperHealth,
  settings: Settings,
  rules: z.array(PolicyRule),
  /** The desktops this supervisor reaches, and which one the windows list, tree and Screen view show. */
  connections: ConnectionsView,
  /** The agents the person granted their own credential (Settings → Agents, docs/agents.md#grants). */
  grants: z.array(AgentGrant).max(1000),
  connection: AgentConnectInfo,
});
export type UiSnapshot = z.infer<typeof UiSnapshot>;

/** A capture for the person's Screen view: the picture, how its pixels map to the screen, and what is blacked out. */
export const ScreenView = z.object({
  /** data: URL of the picture (JPEG). */
  picture: z.string().max(8_000_000),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** physical = origin + picture pixel × scale (element rects are physical pixels). */
  transform: ScreenTransform,
  /** Picture rectangles blacked out (the supervisor, excluded apps). */
  masked: z.array(ImageRect).max(1000),
  captured_at: z.string(),
});
export type ScreenView = z.infer<typeof ScreenView>;

/** Most queued cards one confirmed "allow for this session" approves with it (the queue holds at most 128). */
export const MAX_ALSO_APPROVED = 128;

/**
 * Commands from the UI, one table: the WebSocket server and the Electron preload are generated
 * from it. Each has params and a result.
 */
export const UI_COMMANDS = {
  /**
   * Approves one card; `allow` (the confirmed second step) also creates a session rule of exactly that
   * scope, and approves the queued cards `also` names — exactly those, each only while it is still
   * pending and the new rule covers it (docs/supervision.md#allow-for-the-session); the others are
   * listed in `also_refused` with why, and keep waiting.
   */
  approve: {
    params: z.strictObject({
      approval_id: z.string().max(100),
      allow: z.strictObject({ scope: z.enum(['element', 'app']), also: z.array(z.string().max(100)).max(MAX_ALSO_APPROVED).optional() }).optional(),
    }),
    result: z.object({
      ok: z.literal(true),
      rule: PolicyRule.optional(),
      also_approved: z.array(z.string()).optional(),
      also_refused: z.array(z.object({ approval_id: z.string(), why: z.string() })).optional(),
    }),
  },
  /** The queued cards (other than this one) a session rule of this scope made from this card would cover, oldest first: what the second step offers to approve too. */
  allow_preview: {
    params: z.strictObject({ approval_id: z.string().max(100), scope: z.enum(['element', 'app']) }),
    result: z.object({ covered: z.array(z.string()) }),
  },
  /** Ends one agent's session (its pending and held actions are withdrawn): the person's way to drop an agent, brakes or not. */
  disconnect_agent: { params: z.strictObject({ session: z.string().max(100) }), result: z.object({ ok: z.literal(true) }) },
  deny: { params: z.strictObject({ approval_id: z.string().max(100), reason: z.string().max(2000).optional() }), result: z.object({ ok: z.literal(true) }) },
  /** Cancels an approved action the pause holds (answered denied). */
  cancel_held: {
    params: z.strictObject({ approval_id: z.string().max(100), reason: z.string().max(2000).optional() }),
    result: z.object({ ok: z.literal(true) }),
  },
  brake: { params: z.strictObject({ action: z.enum(['pause', 'resume', 'stop', 'emergency_stop', 'rearm']) }), result: z.object({ brake: BrakeState }) },
  choose_window: { params: z.strictObject({ window: z.string().max(200).optional() }), result: z.object({ ok: z.literal(true) }) },
  refresh_windows: { params: z.strictObject({}), result: z.object({ windows: z.array(WindowInfo) }) },
  /** Reads the chosen window again now. */
  reload_tree: { params: z.strictObject({}), result: z.object({ ok: z.literal(true) }) },
  /** What the person's Screen view shows: a capture of one window (or the whole screen) as the agent would see it, masked alike. */
  screen_view: { params: z.strictObject({ window: z.string().max(200).optional() }), result: ScreenView },
  /** A one-time link that signs another browser in to this UI (browser mode only). */
  pair_link: { params: z.strictObject({}), result: z.object({ url: z.string(), expires_at: z.string() }) },
  update_settings: { params: Settings.partial(), result: z.object({ settings: Settings }) },
  add_rule: { params: z.strictObject({ pattern: z.string().min(1).max(200) }), result: z.object({ rule: PolicyRule }) },
  remove_rule: { params: z.strictObject({ id: z.string().max(100) }), result: z.object({ ok: z.literal(true) }) },
  snapshot: { params: z.strictObject({}), result: UiSnapshot },
  /** One picture of a pending or held card, as a data: URL (cards reach the UI without their pixels). */
  card_picture: {
    params: z.strictObject({ approval_id: z.string().max(100), which: CardPictureKind }),
    result: z.object({ picture: z.string() }),
  },
  /** Answers an agent's question: a choice (its index), a written answer, or a decline (with an optional note). */
  answer_question: {
    params: z.strictObject({
      approval_id: z.string().max(100),
      choice: z.number().int().min(0).max(QUESTION_HANDOFF_LIMITS.choices).optional(),
      answer: z.string().max(QUESTION_HANDOFF_LIMITS.answer).optional(),
      decline: z.literal(true).optional(),
      note: z.string().max(QUESTION_HANDOFF_LIMITS.answer).optional(),
    }),
    result: z.object({ ok: z.literal(true) }),
  },
  /** Gives control back after an agent's handoff, with an optional note for the agent. */
  resume_handoff: {
    params: z.strictObject({ approval_id: z.string().max(100), note: z.string().max(QUESTION_HANDOFF_LIMITS.answer).optional() }),
    result: z.object({ ok: z.literal(true) }),
  },
  /** The person is here: the page is shown and was used (computer_ctrl tells agents whether a person is watching). */
  presence: { params: z.strictObject({ visible: z.boolean() }), result: z.object({ ok: z.literal(true) }) },
  /** The kept picture of the screen after a screen input, as a data: URL. */
  receipt_picture: { params: z.strictObject({ receipt_id: z.string().max(100) }), result: z.object({ picture: z.string() }) },
  /** Settings → Connections (docs/connections.md): the person adds (enabled), tests, enables, disables and removes connections. */
  connection_add: { params: z.strictObject({ config: ConnectionConfig }), result: z.object({ connection: ConnectionInfo }) },
  connection_test: { params: z.strictObject({ name: z.string().max(40) }), result: ConnectionTest },
  connection_set_enabled: { params: z.strictObject({ name: z.string().max(40), enabled: z.boolean() }), result: z.object({ ok: z.literal(true) }) },
  connection_remove: { params: z.strictObject({ name: z.string().max(40) }), result: z.object({ ok: z.literal(true) }) },
  /**
   * Settings → Screen: the desktop's own consents to the screen tier on the viewed connection
   * (docs/wayland.md#consent); `forget` drops them so the desktop asks the person again.
   */
  screen_consent: { params: ScreenConsentParams, result: ScreenConsent },
  /**
   * Settings → Agents: gives an `overseer mcp` agent its own credential (docs/agents.md#stdio-agents).
   * The answer carries the credential, the one time it is ever shown; the supervisor keeps its hash.
   */
  grant_stdio_agent: {
    params: z.strictObject({ name: z.string().trim().min(1).max(120) }),
    result: z.object({ grant: AgentGrant, credential: z.string().max(200) }),
  },
  /** Settings → Agents: revokes a grant (docs/agents.md#revoking): its credential is refused from now on and its sessions end at once. */
  revoke_grant: { params: z.strictObject({ id: z.string().max(40) }), result: z.object({ ok: z.literal(true) }) },
  /** Which connection the windows list, the tree and the Screen view show (the person's view only; agents are unaffected). */
  view_connection: { params: z.strictObject({ name: z.string().max(40) }), result: z.object({ ok: z.literal(true) }) },
} as const;
export type UiCommand = keyof typeof UI_COMMANDS;

/** Events to the UI, one table. */
export const UI_EVENTS = {
  snapshot: UiSnapshot,
  agents: z.array(AgentInfo),
  windows: z.array(WindowInfo),
  tree: z.object({ window: z.string(), elements: z.array(Element), truncated_by: z.array(z.string()), read_at: z.string() }),
  tree_status: TreeStatus,
  /** Cards that joined or left the queue. */
  pending_delta: PendingDelta,
  /** Approved actions that the pause began or stopped holding. */
  held_delta: HeldDelta,
  receipt: ReceiptEntry,
  /** Older receipts a snapshot did not carry in its own frame, oldest first within the chunk (sent newest chunk first). */
  receipts_backfill: z.array(ReceiptEntry).max(MAX_RECEIPTS),
  brake: BrakeState,
  helper: HelperHealth,
  settings: Settings,
  rules: z.array(PolicyRule),
  connections: ConnectionsView,
  /** The grants changed: one made, revoked, used, or its sessions came and went. */
  grants: z.array(AgentGrant).max(1000),
  /** How agents connect changed: the shared token was turned on (it is shown again) or off. */
  agent_connect: AgentConnectInfo,
} as const;
export type UiEvent = keyof typeof UI_EVENTS;

/** One WebSocket frame: a command (with id), its answer, or an event. */
export const UiFrame = z.union([
  z.object({ type: z.literal('command'), id: z.number().int(), command: z.string().max(100), params: z.unknown() }),
  z.object({ type: z.literal('result'), id: z.number().int(), result: z.unknown() }),
  z.object({ type: z.literal('error'), id: z.number().int(), error: ErrorInfo }),
  z.object({ type: z.literal('event'), event: z.string().max(100), data: z.unknown() }),
]);
export type UiFrame = z.infer<typeof UiFrame>;

/** The IPC channel of a UI command in the desktop app (derived from the table, never listed by hand). */
export function uiCommandChannel(command: UiCommand): string {
  return `overseer:${command}`;
}
/** The IPC channel UI events travel on, main to renderer. */
export const UI_EVENT_CHANNEL = 'overseer:event';

/** What a UI command answers over IPC: the result, or an error of docs/tools.md#errors (thrown errors lose their type over IPC). */
export type IpcAnswer = { ok: true; result: unknown } | { ok: false; error: ErrorInfo };

/**
 * What the desktop app's page sees as `window.overseer` (built by the preload from the table):
 * one function per UI command, and a subscription to UI event frames.
 */
export interface OverseerBridge {
  commands: Readonly<Record<UiCommand, (params: unknown) => Promise<IpcAnswer>>>;
  onEvent(listener: (frame: UiFrame) => void): () => void;
}
