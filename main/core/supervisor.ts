import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import {
  LOCAL_CONNECTION_NAME,
  MAX_RECEIPTS,
  UI_WINDOW_TITLES,
  type AgentGrant,
  type ConnectionsView,
  type GrantRequestInfo,
  errorInfo,
  withoutPictures,
  type ReceiptEntry,
  type AgentConnectInfo,
  type UiSnapshot,
  type WindowInfo,
} from '../../protocol/index.js';
import type { HelperProcess } from './helperLink/helperProcess.js';
import { systemClock, type Clock } from './runtime/clock.js';
import { LandingGuard } from './supervision/landingGuard.js';
import { HelperSupervisor, type HelperCaller } from './helperLink/helperSupervisor.js';
import { localTarget } from './connections/localTarget.js';
import { makeTarget, type TargetFactory } from './connections/makeTarget.js';
import { ConnectionManager } from './connections/manager.js';
import { ConnectionRegistry } from './connections/registry.js';
import { Journal } from './journal/index.js';
import { AgentRegistry, type AgentConnection } from './session/agentRegistry.js';
import { ReceiptPictures } from './session/receiptPictures.js';
import { SettingsStore } from './settings/settingsStore.js';
import { QueueAdmission } from './supervision/admission.js';
import { ByteBudget } from './server/byteBudget.js';
import { ApprovalQueue } from './supervision/approvals.js';
import { Brakes } from './supervision/brakes.js';
import { HandoffGate } from './supervision/handoff.js';
import { HoldList } from './supervision/holds.js';
import { Policy } from './supervision/policy.js';
import { supervisorUiHandlers } from './ui/supervisorUi.js';
import { type AgentSession } from './session/agentSession.js';
import type { PersonState } from './tools/questionsHandoffs.js';
import { ToolRunner } from './tools/toolRunner.js';
import { TreeFollower } from './ui/treeFollower.js';
import { UiHub } from './ui/uiHub.js';
import { receiptForUi } from './ui/uiFrames.js';
import type { UiHost } from './ui/uiHost.js';
import { OVERSEER_VERSION } from './runtime/version.js';
import type { ServerHost } from './server/sessionHost.js';
import { GrantConsent, type GrantDecision } from './grants/consentCard.js';
import { GrantStore } from './grants/grantStore.js';

/** A person used a shown UI this recently: computer_ctrl tells agents a person is watching. */
export const WATCHING_MS = 120_000;
/** Longest the emergency stop waits for answers in flight to be journaled and written before it drops connections. */
const EMERGENCY_ANSWER_MS = 3000;
/** Longest the person's emergency-stop command waits for every helper to be down and every target closed before it is answered. */
const EMERGENCY_DONE_MS = 10_000;

/** Options of the supervisor core. */
export interface SupervisorOptions {
  dataDir: string;
  /** Environment of the desktop the helper reads (DISPLAY, DBUS_SESSION_BUS_ADDRESS…). */
  helperEnv: Record<string, string | undefined>;
  log: (line: string) => void;
  /** How agents connect, for the UI's connection snippet. */
  connection: AgentConnectInfo;
  /** Starts the helper process (the desktop app runs its bundled helper with Electron's Node). */
  spawnHelper?: (env: Record<string, string | undefined>) => HelperProcess;
  clock?: Clock;
  /** How often a call waiting for a person sends MCP progress (default 5 s). */
  progressIntervalMs?: number;
  /** Makes each connection's transport from its registry entry (tests inject their own; docs/connections.md). */
  makeTarget?: TargetFactory;
  /** A remote helper nobody used for this long is stopped (default 10 minutes). */
  connectionIdleMs?: number;
}

/**
 * The supervisor core (plain Node, never electron): helper supervision, agent sessions, policy,
 * approvals, holds and brakes, the journal, the tree a person sees, and the UI channel.
 * Transports (HTTP, socket, IPC) plug into it.
 */
export class Supervisor implements ServerHost, UiHost {
  readonly clock: Clock;
  /** Holds back the person's decisions while an agent's input lands where windows have no known places. */
  readonly landing: LandingGuard;
  readonly brakes = new Brakes();
  readonly approvals: ApprovalQueue;
  readonly holds: HoldList;
  readonly policy = new Policy();
  readonly admission = new QueueAdmission();
  /** Handoffs to the person, and the inputs they hold (docs/supervision.md#questions-and-handoffs). */
  readonly handoffs: HandoffGate;
  /** When a person last used a UI, and whether its page was shown then. */
  private presence: { at: number; visible: boolean } | undefined;
  /** Bytes of agents' requests held at once, over every transport. */
  readonly requestBytes = new ByteBudget();
  readonly agents: AgentRegistry;
  /** The local connection's helper (always running). */
  readonly helper: HelperSupervisor;
  /** Every connection's helper, and the registry (docs/connections.md#registry-and-tools). */
  readonly connections: ConnectionManager;
  /** The connection whose windows, tree and screen the person views (agents are unaffected). */
  viewed = LOCAL_CONNECTION_NAME;
  /** The viewed connection's helper, for what the person sees. */
  readonly viewedHelper: HelperCaller;
  readonly ui: UiHub;
  readonly runner: ToolRunner;
  readonly tree: TreeFollower;
  readonly receipts: ReceiptEntry[] = [];
  /** The timeline's pictures of the screen after each screen input (data folder, private, bounded). */
  readonly pictures: ReceiptPictures;
  windows: WindowInfo[] = [];
  private brakeRecord: Promise<void> = Promise.resolve();
  /** The person's grants to agents: each one identity (docs/agents.md#grants). */
  readonly grants: GrantStore;
  private readonly consent: GrantConsent;
  /** Makes a one-time link that signs another browser in (browser mode sets it). */
  pairLink: (() => { url: string; expires_at: string }) | undefined;

  private constructor(
    readonly options: SupervisorOptions,
    readonly journal: Journal,
    readonly settings: SettingsStore,
  ) {
    this.clock = options.clock ?? systemClock;
    this.pictures = new ReceiptPictures(join(options.dataDir, 'pictures'));
    this.approvals = new ApprovalQueue(this.clock);
    this.landing = new LandingGuard(this.clock);
    this.holds = new HoldList(this.brakes, this.clock);
    this.handoffs = new HandoffGate(this.clock);
    // The helper keeps what the desktop lets it keep (a Wayland portal's restore token) in the data dir.
    const helperEnv = { ...options.helperEnv, OVERSEER_DATA_DIR: options.dataDir };
    this.helper = new HelperSupervisor({ env: helperEnv, log: options.log, ...(options.spawnHelper ? { spawn: options.spawnHelper } : {}) });
    this.connections = new ConnectionManager({
      registry: new ConnectionRegistry(options.dataDir, options.log),
      local: this.helper,
      localTarget: localTarget(options.spawnHelper),
      makeTarget: options.makeTarget ?? makeTarget,
      context: { dataDir: options.dataDir, log: options.log, ...(options.spawnHelper !== undefined ? { spawnHelper: options.spawnHelper } : {}) },
      helperEnv,
      log: options.log,
      clock: this.clock,
      ...(options.connectionIdleMs !== undefined ? { idleStopMs: options.connectionIdleMs } : {}),
      // The supervisor's own pids are of this machine: a remote desktop gets the app and title exclusions.
      exclusions: () => {
        const { apps, titles } = this.exclusions();
        return { apps, titles };
      },
      onChange: () => this.emitConnections(),
      onRetired: (name) => {
        for (const session of this.agents.list()) session.bindings.retire(name);
      },
      onDesktopChange: (connection, pids) => {
        if (connection === this.viewed) this.tree.changed(pids);
      },
    });
    this.viewedHelper = { call: (method, params, o) => this.connections.call(method, params, { ...o, connection: this.viewed }) };
    this.policy.load(settings.rules);
    this.agents = new AgentRegistry(
      { ended: (session, reason) => this.onSessionEnded(session, reason), pendingOf: (id) => this.approvals.countFor(id) },
      () => this.settings.settings.agent_idle_s * 1000,
      this.clock,
    );
    this.ui = new UiHub(supervisorUiHandlers(this), options.log, (command, params) => this.landing.refusal(command, params));
    this.tree = new TreeFollower({
      helper: this.viewedHelper,
      watched: () => this.ui.watching > 0,
      onTree: (t) => this.ui.emit('tree', t),
      onStatus: (status) => this.ui.emit('tree_status', status),
      log: options.log,
      clock: this.clock,
    });
    this.runner = new ToolRunner({
      screenTools: () => this.settings.settings.screen_tools,
      person: () => this.person(),
      read: { helper: this.connections.router, settings: () => this.settings.settings },
      connections: this.connections,
      onActiveChanged: (session) => {
        void this.journal
          .append({
            kind: 'system',
            event: 'connection_activated',
            session: session.id,
            agent: session.client,
            connection: this.connections.ref(session.connection),
          })
          .catch(() => {});
        this.emitAgents();
      },
      act: {
        helper: this.connections.router,
        connectionRef: (name) => this.connections.ref(name),
        connectionRefusal: (name) => this.connections.refusal(name),
        connectionTag: (name) => this.connections.tagOf(name),
        approvals: this.approvals,
        holds: this.holds,
        brakes: this.brakes,
        policy: this.policy,
        admission: this.admission,
        handoffs: this.handoffs,
        clock: this.clock,
        settings: () => this.settings.settings,
        ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
        journalEvent: async (record) => {
          await this.journal.append(record);
        },
        keepPicture: (receiptId, jpeg) => this.pictures.keep(receiptId, jpeg),
        landing: this.landing,
        onDispatching: (window) => this.tree.actingIn(window.pid),
      },
      journal,
      emergency: () => this.brakes.state === 'emergency',
      onReceipt: (entry) => this.addReceipt(entry),
      log: options.log,
    });
    this.helper.onHealth((h) => {
      this.ui.emit('helper', h);
      if (this.viewed !== LOCAL_CONNECTION_NAME) return;
      if (h.state === 'ready') this.tree.changed();
      else this.tree.helperDown(`the helper is ${h.state}${h.last_error !== undefined ? ` (${h.last_error})` : ''}`);
    });
    this.helper.onDesktopChange((pids) => {
      if (this.viewed === LOCAL_CONNECTION_NAME) this.tree.changed(pids);
    });
    // Changes travel as deltas without pixels (docs/architecture.md#ui-channel): a flood of cards never re-sends the queue.
    this.approvals.onChange((change) => {
      this.ui.emit('pending_delta', { added: change.added.map(withoutPictures), removed: change.removed });
      this.emitAgents();
    });
    this.holds.onChange((change) => this.ui.emit('held_delta', { added: change.added.map(withoutPictures), removed: change.removed }));
    // A handoff's card says how many inputs wait for the person to give control back.
    this.handoffs.onChange((connection) => {
      const held = this.handoffs.held(connection).length;
      for (const item of this.approvals.list())
        if (item.kind === 'handoff' && item.handoff.connection === connection && item.handoff.held_inputs !== held)
          this.approvals.replace({ ...item, handoff: { ...item.handoff, held_inputs: held } });
    });
    this.policy.onChange((rules) => this.ui.emit('rules', rules));
    this.grants = new GrantStore(options.dataDir, options.log, () => this.clock.now());
    this.consent = new GrantConsent({
      approvals: this.approvals,
      journalEvent: async (record) => {
        await this.journal.append(record);
      },
      now: () => this.clock.now(),
      expiryMs: () => this.settings.settings.approval_expiry_s * 1000,
      refused: () =>
        this.brakes.state === 'stopped' || this.brakes.state === 'emergency' ? `the person stopped all agents (${this.brakes.state})` : undefined,
    });
    // A revoked grant's sessions end at once: its open streams close and what it left pending is withdrawn.
    this.grants.onRevoked((id) => {
      for (const session of this.agents.list()) if (session.grant?.id === id) this.endSession(session.id, 'the person revoked its grant');
    });
    this.grants.onChange(() => this.ui.emitLatest('grants', () => this.grantInfos()));
    this.brakes.onChange((state, previous) => void this.onBrake(state, previous));
  }

  /** Opens the data folder and journal, answers approvals a crash left pending, starts the helper. */
  static async start(options: SupervisorOptions): Promise<Supervisor> {
    await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    const settings = new SettingsStore(options.dataDir, options.log);
    await settings.load();
    const journal = await Journal.open(`${options.dataDir}/journal`, { log: options.log });
    const s = new Supervisor(options, journal, settings);
    await s.grants.load();
    for (const pending of await journal.pendingApprovals()) {
      await journal.append({
        kind: 'approval_resolved',
        approval_id: pending['approval_id'],
        receipt_id: pending['receipt_id'],
        verdict: 'expired',
        by: 'policy',
        note: 'the supervisor restarted before anyone answered',
      });
      options.log(`[supervisor] approval ${String(pending['approval_id'])} left pending by a crash: answered expired`);
    }
    await journal.append({ kind: 'system', event: 'started', pid: process.pid, version: OVERSEER_VERSION });
    await s.helper.setExclusions(s.exclusions());
    await s.helper.start();
    await s.connections.start();
    if (s.connections.corrupt !== undefined)
      await journal.append({ kind: 'system', event: 'connections_corrupt', kept_as: s.connections.corrupt.aside, why: s.connections.corrupt.why });
    return s;
  }

  /**
   * What the helper never reads or acts on for anyone: the supervisor and the configured exclusions.
   * An agent's own host is excluded for that agent alone, in its calls' scope (docs/security.md#agent-hosts):
   * nothing an agent sends changes what another agent or the person sees.
   */
  exclusions(): { pids: number[]; apps: string[]; titles: string[] } {
    const pids = new Set([process.pid, ...(this.settings.settings.exclusions.pids ?? [])]);
    return {
      pids: [...pids],
      apps: [...(this.settings.settings.exclusions.apps ?? [])],
      titles: [...UI_WINDOW_TITLES, ...(this.settings.settings.exclusions.titles ?? [])],
    };
  }

  /**
   * Whether a new agent may connect now: never past the bound. During an emergency stop it may, as
   * the agents already connected keep their sessions: every call it makes answers `braked` until re-arm.
   */
  admit(): { ok: true } | { ok: false; why: string } {
    return this.agents.admit();
  }

  /** Registers an agent connection. */
  async addSession(session: AgentSession, connection: AgentConnection): Promise<void> {
    this.agents.add(session, connection);
    await this.journal.append({
      kind: 'system',
      event: 'agent_connected',
      session: session.id,
      transport: session.transport,
      ...(session.hostPids.length > 0 ? { host_pids: [...session.hostPids] } : {}),
    });
    this.emitAgents();
  }

  /** Ends an agent's session (its transport closed, it sent DELETE, it idled out): what it left pending is withdrawn. */
  endSession(id: string, reason: string): void {
    this.agents.end(id, reason);
  }

  private onSessionEnded(session: AgentSession, reason: string): void {
    const note = `agent disconnected (${reason})`;
    const withdrawn =
      this.approvals.withdrawSession(session.id, note) + this.holds.withdrawSession(session.id, note) + this.handoffs.withdrawSession(session.id, note);
    this.policy.endSession(session.id);
    void this.journal.append({ kind: 'system', event: 'agent_disconnected', session: session.id, reason, withdrawn }).catch(() => {});
    if (withdrawn > 0) this.options.log(`[supervisor] ${session.client} (${session.id}) went away (${reason}): ${withdrawn} pending action(s) withdrawn`);
    this.emitAgents();
  }

  /** A person used a UI (`visible`: its page is shown). */
  notePresence(visible: boolean): void {
    this.presence = { at: this.clock.now(), visible };
  }

  /** Whether a person is watching: a UI that shows things is attached, its page is shown, and it was used within WATCHING_MS. */
  person(): PersonState {
    const p = this.presence;
    const attached = this.ui.watching;
    return {
      ui_attached: attached,
      watching: attached > 0 && p !== undefined && p.visible && this.clock.now() - p.at < WATCHING_MS,
      ...(p !== undefined ? { last_active: new Date(p.at).toISOString() } : {}),
    };
  }

  /** Shows an agent_grant card and waits for the person's decision (docs/agents.md#consent). */
  askGrant(request: GrantRequestInfo, signal: AbortSignal): Promise<GrantDecision> {
    return this.consent.ask(request, signal);
  }

  /** The grants as Settings → Agents lists them. */
  grantInfos(): AgentGrant[] {
    const sessions = this.agents.list();
    return this.grants.list((id) => sessions.filter((session) => session.grant?.id === id).length);
  }

  /**
   * The person gives an `overseer mcp` agent its own credential (docs/agents.md#stdio-agents): a
   * grant of kind stdio, named as the person typed it (made unique), and its credential, which is
   * shown to the person once and kept only as a hash. Undefined when no more grants may be made.
   */
  grantStdioAgent(name: string): { grant: AgentGrant; credential: string } | undefined {
    if (this.grants.full) return undefined;
    const identity = this.grants.create({ name, kind: 'stdio', client_id: '', redirect_host: '' });
    const credential = this.grants.issueCredential(identity.id);
    const grant = this.grantInfos().find((g) => g.id === identity.id);
    if (credential === undefined || grant === undefined) return undefined;
    void this.journal.append({ kind: 'system', event: 'grant_created', by: 'human', grant: identity.id, agent: identity.name }).catch(() => {});
    return { grant, credential };
  }

  /** The person revokes a grant: refused from the next request on, its sessions ended now. False when there is none. */
  revokeGrant(id: string): boolean {
    const name = this.grants.identity(id)?.name;
    if (!this.grants.revoke(id)) return false;
    void this.journal.append({ kind: 'system', event: 'grant_revoked', by: 'human', grant: id, agent: name }).catch(() => {});
    return true;
  }

  /** Tells the UI who is connected: once a turn of the event loop however many changes it saw (a flood changes it per card). */
  emitAgents(): void {
    this.ui.emitLatest('agents', () => this.agentInfos());
    this.ui.emitLatest('grants', () => this.grantInfos());
    this.emitConnections();
  }

  agentInfos(): UiSnapshot['agents'] {
    const idle = this.settings.settings.agent_idle_s * 1000;
    return this.agents.list().map((session) => session.info(this.approvals.countFor(session.id), idle));
  }

  /** Keeps a receipt for the UI (its long strings cut: the journal has the record) and sends it. */
  addReceipt(full: ReceiptEntry): void {
    const entry = receiptForUi(full);
    this.receipts.push(entry);
    if (this.receipts.length > MAX_RECEIPTS) this.receipts.shift();
    this.ui.emit('receipt', entry);
  }

  /**
   * A brake takes effect at once; its record goes ahead of whatever else waits for the journal
   * (docs/supervision.md#brakes), and the person's command is answered once it is on disk
   * (`brakeRecorded`), however many records an agent's flood queued before it.
   */
  private async onBrake(state: string, previous: string): Promise<void> {
    this.ui.emit('brake', this.brakes.state);
    const recorded = this.journal.append({ kind: 'system', event: 'brake', state, previous }, { urgent: true }).then(
      () => undefined,
      (error: unknown) =>
        this.options.log(`[supervisor] the brake (${state}) could not be journaled: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.brakeRecord = recorded;
    if (state === 'stopped' || state === 'emergency') this.approvals.brakeAll(state === 'emergency' ? 'emergency stop' : 'stopped by a person');
    if (state === 'emergency') {
      const stopped = this.emergency();
      let timer: ReturnType<Clock['setTimeout']> | undefined;
      const told = Promise.race([
        stopped.catch((error: unknown) => this.options.log(`[supervisor] the emergency stop: ${error instanceof Error ? error.message : String(error)}`)),
        new Promise<void>((resolve) => (timer = systemClock.setTimeout(resolve, EMERGENCY_DONE_MS))),
      ]).finally(() => systemClock.clearTimeout(timer));
      this.brakeRecord = Promise.all([recorded, told]).then(() => undefined);
      await stopped;
    }
    if (previous === 'emergency' && state === 'running') await this.connections.resumeAll();
  }

  /**
   * Settles once the latest brake change is journaled (or failed to be, which is logged) and, for an
   * emergency stop, once every helper is down and every target closed: the person's command is
   * answered when what the banner says is true.
   */
  brakeRecorded(): Promise<void> {
    return this.brakeRecord;
  }

  /**
   * docs/supervision.md#emergency-stop: every call in flight is answered braked first; then the helper
   * is killed. Agents keep their sessions: until re-arm every call they make answers `braked` (the runner's gate).
   */
  private async emergency(): Promise<void> {
    const info = errorInfo('braked', 'the emergency stop answered this call; a person must re-arm Overseer', { brake: 'emergency' });
    const runs = this.agents.list().flatMap((session) => session.brakeCalls(info));
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const bounded = new Promise<void>((resolve) => (timer = systemClock.setTimeout(resolve, EMERGENCY_ANSWER_MS)));
    // Each answer is journaled before it is handed to its transport; then the transports write it.
    await Promise.race([
      Promise.allSettled(runs)
        .then(() => new Promise<void>((r) => setImmediate(r)))
        .then(() => this.agents.drainAll()),
      bounded,
    ]);
    systemClock.clearTimeout(timer);
    // Every connection: every helper suspended and every target closed (every ssh channel ends).
    await this.connections.suspendAll();
  }

  /** The desktops this supervisor reaches, as the person sees them. */
  connectionsView(): ConnectionsView {
    const active = new Map<string, string[]>();
    for (const session of this.agents.list()) active.set(session.connection, [...(active.get(session.connection) ?? []), session.client]);
    return { list: this.connections.list((name) => active.get(name) ?? []), viewed: this.viewed };
  }

  /** Tells the UI the connections changed (once a turn however many changes). */
  emitConnections(): void {
    this.ui.emitLatest('connections', () => this.connectionsView());
  }

  /** The person views another connection: the windows list, the tree and the Screen view follow it. */
  async view(name: string): Promise<void> {
    if (name !== this.viewed) {
      this.viewed = name;
      // What was shown belongs to the other desktop: the windows list and the tree start empty there.
      this.windows = [];
      this.ui.emit('windows', this.windows);
      await this.tree.choose(undefined);
    }
    this.emitConnections();
  }

  /** Sets how agents connect (known once the listeners are up). */
  setConnection(connection: AgentConnectInfo): void {
    this.options.connection = connection;
  }

  /** Stops the helper and closes the journal. */
  async stop(): Promise<void> {
    this.agents.endAll('the supervisor is shutting down');
    this.agents.stop();
    this.tree.stop();
    this.approvals.brakeAll('the supervisor is shutting down');
    await this.connections.stop();
    await this.helper.stop();
    await this.journal.append({ kind: 'system', event: 'stopped' }).catch(() => {});
    await this.journal.close();
  }
}
