import { mkdir } from 'node:fs/promises';
import { OverseerError, errorInfo, type Element, type ReceiptEntry, type UiSnapshot, type WindowInfo } from '../../protocol/index.js';
import type { HelperProcess } from '../../helper/rpc/helperProcess.js';
import { HelperSupervisor } from './helperSupervisor.js';
import { Journal } from './journal/index.js';
import { SettingsStore } from './settingsStore.js';
import { ApprovalQueue } from './supervision/approvals.js';
import { Brakes } from './supervision/brakes.js';
import { Policy } from './supervision/policy.js';
import { type AgentSession } from './tools/agentSession.js';
import { ToolRunner } from './tools/toolRunner.js';
import { UiHub, type UiHandlers } from './uiHub.js';

/** Version reported to agents and the UI. */
export const OVERSEER_VERSION = '0.1.0';
const MAX_RECEIPTS = 500;

/** Options of the supervisor core. */
export interface SupervisorOptions {
  dataDir: string;
  /** Environment of the desktop the helper reads (DISPLAY, DBUS_SESSION_BUS_ADDRESS…). */
  helperEnv: Record<string, string | undefined>;
  log: (line: string) => void;
  /** How agents connect, for the UI's connection snippet. */
  connection: UiSnapshot['connection'];
  /** Starts the helper process (the desktop app runs its bundled helper with Electron's Node). */
  spawnHelper?: (env: Record<string, string | undefined>) => HelperProcess;
}

/**
 * The supervisor core (plain Node, never electron): helper supervision, agent sessions, policy,
 * approvals, brakes, the journal and the UI channel. Transports (HTTP, socket, IPC) plug into it.
 */
export class Supervisor {
  readonly brakes = new Brakes();
  readonly approvals = new ApprovalQueue();
  readonly policy = new Policy();
  readonly sessions = new Map<string, { session: AgentSession; close: () => void }>();
  readonly helper: HelperSupervisor;
  readonly ui: UiHub;
  readonly runner: ToolRunner;
  private readonly receipts: ReceiptEntry[] = [];
  private windows: WindowInfo[] = [];
  private chosen: string | undefined;
  private tree: Element[] | undefined;

  private constructor(
    private options: SupervisorOptions,
    readonly journal: Journal,
    readonly settings: SettingsStore,
  ) {
    this.helper = new HelperSupervisor({ env: options.helperEnv, log: options.log, ...(options.spawnHelper ? { spawn: options.spawnHelper } : {}) });
    this.policy.load(settings.rules);
    this.runner = new ToolRunner({
      read: { helper: this.helper, settings: () => this.settings.settings },
      act: {
        helper: this.helper,
        approvals: this.approvals,
        brakes: this.brakes,
        policy: this.policy,
        settings: () => this.settings.settings,
        journalEvent: async (record) => {
          await this.journal.append(record);
        },
        journalFinal: async (session, receipt) => {
          const record = await this.journal.append({ kind: 'tool_call', session: session.id, agent: session.client, tool: 'element_act', phase: 'final', args: {}, outcome: receipt.outcome, receipt, duration_ms: 0 });
          this.addReceipt({ seq: record.seq, at: record.at, session: session.id, agent: session.client, tool: 'element_act', outcome: receipt.outcome, ...(receipt.decision ? { decision: receipt.decision.verdict } : {}), verification: receipt.verification, ...(receipt.path ? { path: receipt.path } : {}), duration_ms: 0, summary: `${receipt.action} "${receipt.target?.name ?? ''}" → ${receipt.outcome} (after approval)`, receipt });
        },
      },
      journal,
      onReceipt: (entry) => this.addReceipt(entry),
      log: options.log,
    });
    this.ui = new UiHub(this.uiHandlers(), options.log);
    this.helper.onHealth((h) => this.ui.emit('helper', h));
    this.approvals.onChange((pending) => {
      this.ui.emit('pending', pending);
      this.emitAgents();
    });
    this.policy.onChange((rules) => this.ui.emit('rules', rules));
    this.brakes.onChange((state, previous) => void this.onBrake(state, previous));
  }

  /** Opens the data folder and journal, answers approvals a crash left pending, starts the helper. */
  static async start(options: SupervisorOptions): Promise<Supervisor> {
    await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    const settings = new SettingsStore(options.dataDir, options.log);
    await settings.load();
    const journal = await Journal.open(`${options.dataDir}/journal`, { log: options.log });
    const s = new Supervisor(options, journal, settings);
    for (const pending of await journal.pendingApprovals()) {
      await journal.append({ kind: 'approval_resolved', approval_id: pending['approval_id'], receipt_id: pending['receipt_id'], verdict: 'expired', by: 'policy', note: 'the supervisor restarted before anyone answered' });
      options.log(`[supervisor] approval ${String(pending['approval_id'])} left pending by a crash: answered expired`);
    }
    await journal.append({ kind: 'system', event: 'started', pid: process.pid, version: OVERSEER_VERSION });
    await s.helper.setExclusions(s.exclusions());
    await s.helper.start();
    return s;
  }

  /** The helper never reads or acts on the supervisor, agent hosts, or configured exclusions. */
  private exclusions(): { pids: number[]; apps: string[] } {
    const pids = new Set([process.pid, ...(this.settings.settings.exclusions.pids ?? [])]);
    for (const { session } of this.sessions.values()) for (const p of session.hostPids) pids.add(p);
    return { pids: [...pids], apps: [...(this.settings.settings.exclusions.apps ?? [])] };
  }

  /** Registers an agent connection; `close` drops it (emergency stop). */
  async addSession(session: AgentSession, close: () => void): Promise<void> {
    this.sessions.set(session.id, { session, close });
    if (session.hostPids.length > 0) await this.helper.setExclusions(this.exclusions());
    await this.journal.append({ kind: 'system', event: 'agent_connected', session: session.id, transport: session.transport });
    this.emitAgents();
  }

  /** Forgets an agent connection: its rules end and its pending approvals are answered. */
  removeSession(id: string): void {
    if (!this.sessions.delete(id)) return;
    this.policy.endSession(id);
    void this.journal.append({ kind: 'system', event: 'agent_disconnected', session: id }).catch(() => {});
    this.emitAgents();
  }

  emitAgents(): void {
    this.ui.emit('agents', [...this.sessions.values()].map(({ session }) => session.info(this.approvals.countFor(session.id))));
  }

  private addReceipt(entry: ReceiptEntry): void {
    this.receipts.push(entry);
    if (this.receipts.length > MAX_RECEIPTS) this.receipts.shift();
    this.ui.emit('receipt', entry);
  }

  private async onBrake(state: string, previous: string): Promise<void> {
    this.ui.emit('brake', this.brakes.state);
    await this.journal.append({ kind: 'system', event: 'brake', state, previous }).catch(() => {});
    if (state === 'stopped' || state === 'emergency') this.approvals.brakeAll(state === 'emergency' ? 'emergency stop' : 'stopped by a person');
    if (state === 'emergency') {
      this.helper.suspend();
      for (const { close } of [...this.sessions.values()]) close();
    }
    if (previous === 'emergency' && state === 'running') await this.helper.resume();
  }

  private async readChosen(): Promise<void> {
    if (this.chosen === undefined) return;
    try {
      const r = await this.helper.call('window_read', { window: this.chosen, max_nodes: 5000, format: 'tree', for_ui: true });
      this.tree = r.elements;
      this.ui.emit('tree', { window: this.chosen, elements: r.elements, truncated_by: r.truncated_by });
    } catch (error) {
      this.options.log(`[supervisor] reading the chosen window failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private uiHandlers(): UiHandlers {
    return {
      approve: ({ approval_id, allow_for_session }) => {
        if (!this.approvals.approve(approval_id, allow_for_session === true)) return Promise.reject(new OverseerError(errorInfo('expired', `approval ${approval_id} is no longer pending`)));
        return Promise.resolve({ ok: true as const });
      },
      deny: ({ approval_id, reason }) => {
        if (!this.approvals.deny(approval_id, reason)) return Promise.reject(new OverseerError(errorInfo('expired', `approval ${approval_id} is no longer pending`)));
        return Promise.resolve({ ok: true as const });
      },
      brake: ({ action }) => {
        try {
          return Promise.resolve({ brake: this.brakes.apply(action) });
        } catch (error) {
          return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
      },
      choose_window: async ({ window }) => {
        this.chosen = window;
        this.tree = undefined;
        await this.readChosen();
        return { ok: true };
      },
      refresh_windows: async () => {
        this.windows = (await this.helper.call('window_list', {})).windows;
        this.ui.emit('windows', this.windows);
        return { windows: this.windows };
      },
      update_settings: async (patch) => {
        const settings = await this.settings.update(patch, this.policy.list());
        await this.helper.setExclusions(this.exclusions());
        this.ui.emit('settings', settings);
        return { settings };
      },
      add_rule: async ({ pattern }) => {
        const rule = this.policy.denyApp(pattern);
        await this.settings.update({}, this.policy.list());
        return { rule };
      },
      remove_rule: async ({ id }) => {
        this.policy.remove(id);
        await this.settings.update({}, this.policy.list());
        return { ok: true };
      },
      snapshot: () =>
        Promise.resolve({
        agents: [...this.sessions.values()].map(({ session }) => session.info(this.approvals.countFor(session.id))),
        windows: this.windows,
        ...(this.chosen !== undefined ? { chosen_window: this.chosen } : {}),
        ...(this.tree !== undefined ? { tree: this.tree } : {}),
        pending: this.approvals.list(),
        receipts: [...this.receipts],
        brake: this.brakes.state,
        helper: this.helper.health,
        settings: this.settings.settings,
        rules: this.policy.list(),
        connection: this.options.connection,
      }),
    };
  }

  /** Sets how agents connect (known once the listeners are up). */
  setConnection(connection: UiSnapshot['connection']): void {
    this.options.connection = connection;
  }

  /** Stops the helper and closes the journal. */
  async stop(): Promise<void> {
    for (const { close } of [...this.sessions.values()]) close();
    this.approvals.brakeAll('the supervisor is shutting down');
    await this.helper.stop();
    await this.journal.append({ kind: 'system', event: 'stopped' }).catch(() => {});
    await this.journal.close();
  }
}
