// One helper supervisor per connection (docs/connections.md#registry-and-tools): the local one always
// runs; a remote one starts on first use (after its target is prepared) and stops when no agent has
// used it for a while. Every call names its connection and goes there or nowhere: a connection that
// is disabled, removed or down answers connection_unavailable, never another connection's helper.
import {
  LOCAL_CONNECTION_NAME,
  OverseerError,
  connectionWhere,
  errorInfo,
  fail,
  isPrivateUrl,
  logSafe,
  type ConnectionConfig,
  type ConnectionInfo,
  type ConnectionRef,
  type ConnectionStatus,
  type ConnectionTest,
  type ErrorInfo,
  type Exclusions,
  type HelperMethod,
  type HelperParams,
  type HelperResult,
  type CallScope,
} from '../../../protocol/index.js';
import { systemClock, type Clock, type TimerHandle } from '../runtime/clock.js';
import { HelperSupervisor } from '../helperLink/helperSupervisor.js';
import { LOCAL_WHERE } from './localTarget.js';
import { qualifyAnswer, unqualifyParams } from './qualifiedIds.js';
import type { TargetContext, TargetFactory } from './makeTarget.js';
import type { ConnectionRegistry } from './registry.js';
import type { ConnectionTarget, ExecOptions, ExecOutcome } from './target.js';

/** A remote helper nobody used for this long is stopped (started again on next use). */
export const DEFAULT_IDLE_STOP_MS = 10 * 60_000;
/** The file is checked for another writer's change at most this often. */
const REFRESH_EVERY_MS = 1000;
/** And at least this often, used or not. */
const WATCH_FILE_MS = 2000;

/** Options of a helper call, as the tools make it: where it goes, for whom, in which lane. */
export interface RoutedCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  scope?: CallScope;
  lane?: string;
  /** The connection the call goes to; nothing without one goes anywhere. */
  connection?: string;
}

/** What the tools need of the helpers: one typed call that names its connection. */
export interface HelperRouter {
  call<M extends HelperMethod>(method: M, params: HelperParams<M>, options?: RoutedCallOptions): Promise<HelperResult<M>>;
}

export interface ConnectionManagerOptions {
  registry: ConnectionRegistry;
  /** The local helper's supervisor (always running) and the local target. */
  local: HelperSupervisor;
  localTarget: ConnectionTarget;
  makeTarget: TargetFactory;
  context: TargetContext;
  helperEnv: Record<string, string | undefined>;
  log: (line: string) => void;
  clock?: Clock;
  idleStopMs?: number;
  /** What remote helpers never read or act on (the supervisor's own pids are of this machine and are left out). */
  exclusions: () => Exclusions;
  /** Told on every change the person should see (status, list, enabled). */
  onChange: () => void;
  /** A connection was removed, or now goes somewhere else: the ids it issued to agents must be refused from now on. */
  onRetired?: (name: string) => void;
  /** A connection's helper reported applications that changed. */
  onDesktopChange?: (connection: string, pids: number[]) => void;
  /** Watchdog settings of remote helpers (unit tests). */
  watchdogIntervalMs?: number;
}

/** One remote connection as the manager keeps it. */
interface Remote {
  config: ConnectionConfig;
  target: ConnectionTarget | undefined;
  helper: HelperSupervisor | undefined;
  starting: Promise<HelperSupervisor> | undefined;
  lastUsed: number;
  inflight: number;
  status: ConnectionStatus;
  lastError: { code: string; detail: string } | undefined;
  checkedAt: string | undefined;
  /** Running when an emergency stop suspended it: re-arm resumes it. */
  suspended: boolean;
  /**
   * What its window ids are qualified with: its name, then `name~N` once an entry of that name was
   * removed and added again, or changed where it goes (qualifiedIds.ts): an id of the earlier one is never the new one's.
   */
  tag: string;
  /** A test running now: every test asked meanwhile shares it (a flood of test_connection starts one ssh, not one each). */
  testing: Promise<ConnectionTest> | undefined;
}

/** The typed refusal of a connection that cannot be used now. */
export function unavailable(connection: string, reason: string, detail: string, hint: string): OverseerError {
  return fail('connection_unavailable', detail, { connection, reason, hint });
}

export class ConnectionManager {
  private readonly remotes = new Map<string, Remote>();
  /** Connections removed while this supervisor ran: their ids and agents answer reason "removed" (and records still name where they went). */
  private readonly removed = new Map<string, ConnectionConfig>();
  /** How many incarnations each name had while this supervisor ran (a removal and re-add, or a change of where it goes, is a new one). */
  private readonly incarnations = new Map<string, number>();
  private readonly clock: Clock;
  private readonly idleStopMs: number;
  private idleTimer: TimerHandle | undefined;
  private refreshTimer: TimerHandle | undefined;
  private lastRefresh = 0;
  private emergency = false;

  constructor(private readonly options: ConnectionManagerOptions) {
    this.clock = options.clock ?? systemClock;
    this.idleStopMs = options.idleStopMs ?? DEFAULT_IDLE_STOP_MS;
    options.local.onHealth(() => options.onChange());
  }

  /** Loads the registry and starts watching for idle helpers. */
  async start(): Promise<void> {
    await this.options.registry.load();
    this.reconcile();
    this.lastRefresh = this.clock.now();
    this.idleTimer = this.clock.setInterval(() => void this.stopIdle(), Math.max(1000, Math.min(60_000, Math.floor(this.idleStopMs / 4))));
    // The CLI writes the same file: a removed or disabled connection's helper stops within seconds, used or not.
    this.refreshTimer = this.clock.setInterval(() => void this.maybeRefresh(), WATCH_FILE_MS);
  }

  /** The router the tools call through: each call goes to the connection it names. */
  get router(): HelperRouter {
    return { call: (method, params, options) => this.call(method, params, options) };
  }

  /** Whether a connection exists now (local always does). */
  has(name: string): boolean {
    return name === LOCAL_CONNECTION_NAME || this.remotes.has(name);
  }

  /** Whether a name is, or was while this supervisor ran, a connection's (window ids qualified with it are its). */
  known(name: string): boolean {
    return this.has(name) || this.removed.has(name);
  }

  /** What a connection's window ids are qualified with now (undefined: no such connection now). */
  tagOf(name: string): string | undefined {
    return name === LOCAL_CONNECTION_NAME ? LOCAL_CONNECTION_NAME : this.remotes.get(name)?.tag;
  }

  /** Where a connection goes, as cards, receipts and journal records name it. */
  ref(name: string): ConnectionRef {
    if (name === LOCAL_CONNECTION_NAME) return { name, kind: 'local', where: LOCAL_WHERE };
    const r = this.remotes.get(name);
    const config = r?.config ?? this.removed.get(name);
    // A name that never was a connection has no kind of its own; it is only ever refused, never reached.
    return config === undefined ? { name, kind: 'local', where: '(no such connection)' } : { name, kind: config.kind, where: connectionWhere(config) };
  }

  /** The entry of a remote connection. */
  config(name: string): ConnectionConfig | undefined {
    return this.remotes.get(name)?.config;
  }

  /**
   * Why a connection cannot be used now (disabled, removed, or an emergency stop), or undefined.
   * A connection that is merely down is tried again (its helper restarts): the call answers how that went.
   */
  refusal(name: string): ErrorInfo | undefined {
    if (name === LOCAL_CONNECTION_NAME) return undefined;
    const r = this.remotes.get(name);
    if (r === undefined)
      return this.removed.has(name)
        ? unavailable(name, 'removed', `the connection "${name}" was removed`, 'activate another connection, or use_local').info
        : unavailable(name, 'removed', `there is no connection "${name}"`, 'list_connections names the connections there are').info;
    if (!r.config.enabled)
      return unavailable(name, 'disabled', `the connection "${name}" is disabled`, 'the person can enable it in Settings → Connections').info;
    return undefined;
  }

  /** Every connection, local first, as agents and the person see them. */
  list(activeFor: (name: string) => string[] = () => []): ConnectionInfo[] {
    const local = this.options.local.health;
    const out: ConnectionInfo[] = [
      {
        name: LOCAL_CONNECTION_NAME,
        kind: 'local',
        where: LOCAL_WHERE,
        enabled: true,
        status: local.state === 'ready' ? 'up' : local.state === 'starting' ? 'unknown' : 'down',
        ...(local.last_error !== undefined && local.state !== 'ready' ? { last_error: { code: 'helper_unavailable', detail: local.last_error } } : {}),
      },
    ];
    for (const r of this.remotes.values()) {
      const info: ConnectionInfo = { name: r.config.name, kind: r.config.kind, where: connectionWhere(r.config), enabled: r.config.enabled, status: r.status };
      if (r.lastError !== undefined) info.last_error = r.lastError;
      if (r.checkedAt !== undefined) info.checked_at = r.checkedAt;
      if (r.config.kind === 'osworld_http' && !isPrivateUrl(r.config.url)) info.public_url = true;
      out.push(info);
    }
    for (const info of out) {
      const agents = activeFor(info.name);
      if (agents.length > 0) info.active_for = agents;
    }
    return out;
  }

  /** Calls the named connection's helper, starting it on first use. */
  async call<M extends HelperMethod>(method: M, params: HelperParams<M>, options: RoutedCallOptions = {}): Promise<HelperResult<M>> {
    const { connection, ...rest } = options;
    // A call that names no connection is a bug, and goes nowhere (never to local by default).
    if (connection === undefined) throw fail('internal', `a ${method} call named no connection`);
    if (connection === LOCAL_CONNECTION_NAME) return this.options.local.call(method, params, rest);
    await this.maybeRefresh();
    const r = this.remotes.get(connection);
    const refusal = this.refusal(connection);
    if (r === undefined || refusal !== undefined) throw new OverseerError(refusal ?? errorInfo('connection_unavailable', 'no such connection'));
    r.inflight++;
    r.lastUsed = this.clock.now();
    try {
      const helper = await this.helperOf(r);
      try {
        // Its window ids travel qualified with its name everywhere but between here and its helper.
        const result = qualifyAnswer(r.tag, await helper.call(method, unqualifyParams(r.tag, params), rest));
        this.mark(r, 'up');
        return result;
      } catch (error) {
        // The helper is gone or restarting (its transport broke): the connection is down, said so in its own terms.
        if (error instanceof OverseerError && error.code === 'helper_unavailable') {
          this.mark(r, 'down', error.info);
          throw unavailable(connection, 'down', `the connection "${connection}" is down: ${error.info.detail}`, 'test_connection says what fails');
        }
        throw error;
      }
    } finally {
      r.inflight--;
      r.lastUsed = this.clock.now();
    }
  }

  /**
   * Runs a shell command on a remote connection (never local: its target refuses), and only on the
   * incarnation `tag` names (the one its card showed): a name removed and added again, or re-pointed,
   * since is refused `connection_unavailable` (reason `changed`), and nothing runs.
   */
  async exec(name: string, tag: string, command: string, options: ExecOptions): Promise<ExecOutcome> {
    if (name === LOCAL_CONNECTION_NAME) return this.options.localTarget.exec(command, options);
    await this.maybeRefresh();
    const r = this.remotes.get(name);
    const refusal = this.refusal(name);
    if (r === undefined || refusal !== undefined) throw new OverseerError(refusal ?? errorInfo('connection_unavailable', 'no such connection'));
    if (r.tag !== tag)
      throw unavailable(name, 'changed', `the connection "${name}" was removed or changed since the card was shown: the command was not run`, 'ask again');
    r.inflight++;
    try {
      const out = await this.targetOf(r).exec(command, options);
      this.mark(r, 'up');
      return out;
    } catch (error) {
      if (error instanceof OverseerError && error.code === 'connection_unavailable') this.mark(r, 'down', error.info);
      throw error;
    } finally {
      r.inflight--;
      r.lastUsed = this.clock.now();
    }
  }

  /** Reaches a connection and asks its helper who it is (read-only). */
  async test(name: string, signal?: AbortSignal): Promise<ConnectionTest> {
    if (name === LOCAL_CONNECTION_NAME) {
      const t = await this.options.localTarget.test(signal);
      const h = this.options.local.health;
      return { ...t, ...(h.backend !== undefined ? { backend: h.backend } : {}) };
    }
    await this.maybeRefresh();
    const r = this.remotes.get(name);
    if (r === undefined) throw new OverseerError(this.refusal(name) ?? errorInfo('connection_unavailable', 'no such connection'));
    // One test a connection at a time, whoever asks: it runs to its transport's own step timeouts, and each caller stops waiting on its own signal.
    r.testing ??= (async () => {
      try {
        const t = await this.targetOf(r).test();
        this.mark(r, t.reachable && t.authenticated ? 'up' : 'down');
        return t;
      } catch (error) {
        this.mark(r, 'down', error instanceof OverseerError ? error.info : errorInfo('internal', String(error)));
        throw error;
      }
    })().finally(() => (r.testing = undefined));
    return abortable(r.testing, signal);
  }

  /** The person's add (enabled) or an approved add_connection. */
  async add(config: unknown): Promise<ConnectionConfig> {
    const entry = await this.options.registry.add(config);
    this.removed.delete(entry.name);
    this.reconcile();
    return entry;
  }

  /** Turns a connection on or off: off stops its helper and closes its target at once. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    if (name === LOCAL_CONNECTION_NAME) throw fail('invalid_argument', 'local is always enabled', { reason: 'local' });
    await this.options.registry.setEnabled(name, enabled);
    this.reconcile();
  }

  /** Removes a connection: its helper is stopped and its target closed at once. */
  async remove(name: string): Promise<void> {
    if (name === LOCAL_CONNECTION_NAME) throw fail('invalid_argument', 'local cannot be removed', { reason: 'local' });
    await this.options.registry.remove(name);
    this.reconcile();
  }

  /**
   * Emergency stop: every helper suspended (local included), every running remote_exec ended on its
   * remote (its process group), and every target closed (every ssh channel ends).
   */
  async suspendAll(): Promise<void> {
    this.emergency = true;
    this.options.local.suspend();
    const closing: Promise<void>[] = [];
    for (const r of this.remotes.values()) {
      if (r.helper !== undefined) {
        r.suspended = true;
        r.helper.suspend();
      }
      const target = r.target;
      if (target !== undefined)
        closing.push(
          (async () => {
            // Through the master while it stands: closing it first would leave the commands running there.
            await target.endCommands?.('the emergency stop').catch(() => undefined);
            await this.close(r);
          })(),
        );
    }
    await Promise.all(closing);
    this.options.onChange();
  }

  /** Re-arm: the helpers that ran before the emergency stop run again. */
  async resumeAll(): Promise<void> {
    this.emergency = false;
    // Every resumed helper is marked starting before anything is awaited: a call made right after the re-arm waits for it.
    const local = this.options.local.resume();
    for (const r of this.remotes.values()) {
      if (!r.suspended || r.helper === undefined) continue;
      r.suspended = false;
      const helper = r.helper;
      // Calls made meanwhile wait for it, as for a first start (helperOf).
      r.starting = (async () => {
        await this.targetOf(r).prepare?.();
        await helper.resume();
        return helper;
      })().finally(() => (r.starting = undefined));
      r.starting.catch((error: unknown) => {
        this.mark(r, 'down', error instanceof OverseerError ? error.info : errorInfo('internal', String(error)));
      });
    }
    await local;
    this.options.onChange();
  }

  /** Stops every remote helper and closes every target (the supervisor is shutting down). */
  async stop(): Promise<void> {
    this.clock.clearInterval(this.idleTimer);
    this.clock.clearInterval(this.refreshTimer);
    await Promise.all([...this.remotes.values()].map((r) => this.shut(r, 'the supervisor stopped')));
  }

  /** Set when the registry file was found broken at start (kept aside). */
  get corrupt(): { aside: string; why: string } | undefined {
    return this.options.registry.corrupt;
  }

  /** Whether a remote helper runs now (tests, the bench). */
  running(name: string): boolean {
    return this.remotes.get(name)?.helper !== undefined;
  }

  /** Picks up another writer's change of connections.json (the CLI), at most once a second. */
  async maybeRefresh(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastRefresh < REFRESH_EVERY_MS) return;
    this.lastRefresh = now;
    const { changed } = await this.options.registry.refresh().catch((error: unknown) => {
      this.options.log(`[connections] reading the registry failed: ${error instanceof Error ? error.message : String(error)}`);
      return { changed: false };
    });
    if (changed) {
      this.options.log(`[connections] ${this.options.registry.path} changed: ${this.options.registry.list().length} connection(s) now`);
      this.reconcile();
    }
  }

  /** Brings the running helpers in line with the registry: removed and disabled ones stop. */
  private reconcile(): void {
    const entries = new Map(this.options.registry.list().map((e) => [e.name, e]));
    for (const [name, r] of this.remotes) {
      const e = entries.get(name);
      if (e === undefined) {
        this.remotes.delete(name);
        this.removed.set(name, r.config);
        this.options.onRetired?.(name);
        void this.shut(r, 'removed');
      } else {
        const changedWhere = JSON.stringify({ ...e, enabled: true }) !== JSON.stringify({ ...r.config, enabled: true });
        if (!e.enabled || changedWhere) void this.shut(r, e.enabled ? 'changed' : 'disabled');
        // It goes somewhere else now: nothing issued by where it went before is its.
        if (changedWhere) {
          r.tag = this.nextTag(name);
          this.options.onRetired?.(name);
        }
        r.config = e;
      }
    }
    for (const [name, e] of entries) {
      if (this.remotes.has(name)) continue;
      this.removed.delete(name);
      this.remotes.set(name, {
        config: e,
        target: undefined,
        helper: undefined,
        starting: undefined,
        lastUsed: 0,
        inflight: 0,
        status: 'unknown',
        lastError: undefined,
        checkedAt: undefined,
        suspended: false,
        tag: this.nextTag(name),
        testing: undefined,
      });
    }
    this.options.onChange();
  }

  /** The tag of a name's next incarnation: the name itself the first time. */
  private nextTag(name: string): string {
    const n = (this.incarnations.get(name) ?? 0) + 1;
    this.incarnations.set(name, n);
    return n === 1 ? name : `${name}~${n}`;
  }

  private targetOf(r: Remote): ConnectionTarget {
    r.target ??= this.options.makeTarget(r.config, this.options.context);
    return r.target;
  }

  /** The connection's helper, started (once, however many calls ask at the same time) on first use. */
  private helperOf(r: Remote): Promise<HelperSupervisor> {
    if (r.helper !== undefined && r.starting === undefined) return Promise.resolve(r.helper);
    if (this.emergency) return Promise.reject(fail('braked', 'the emergency stop is engaged', { brake: 'emergency' }));
    r.starting ??= this.launch(r).finally(() => (r.starting = undefined));
    return r.starting;
  }

  private async launch(r: Remote): Promise<HelperSupervisor> {
    const name = r.config.name;
    let helper: HelperSupervisor | undefined;
    try {
      const target = this.targetOf(r);
      await target.prepare?.();
      helper = new HelperSupervisor({
        env: this.options.helperEnv,
        // What the helper's supervisor says of it can quote the remote (an error's detail); what the
        // helper writes on stderr is the remote's own text: both escaped, the latter named as the remote's.
        log: (line) => this.options.log(`[${name}] ${logSafe(line)}`),
        logStderr: (line) => this.options.log(`[remote ${name}] ${logSafe(line)}`),
        // Through targetOf: an emergency stop closes the target, and re-arm spawns through a new one.
        spawn: (env) => this.targetOf(r).spawnHelper(env),
        clock: this.clock,
        ...(this.options.watchdogIntervalMs !== undefined ? { watchdogIntervalMs: this.options.watchdogIntervalMs } : {}),
      });
      const h = helper;
      h.onHealth((health) => {
        if (r.helper !== h) return;
        if (health.state === 'ready') this.mark(r, 'up');
        else if (health.state === 'restarting' || health.state === 'failed')
          this.mark(r, 'down', { code: 'connection_unavailable', detail: health.last_error ?? `the helper is ${health.state}` });
      });
      h.onDesktopChange((pids) => {
        if (r.helper === h) this.options.onDesktopChange?.(name, pids);
      });
      r.helper = h;
      await h.setExclusions(this.options.exclusions());
      await h.start();
      this.options.log(`[connections] ${name}: helper started`);
      return h;
    } catch (error) {
      if (helper !== undefined && r.helper === helper) r.helper = undefined;
      await helper?.stop().catch(() => {});
      const info =
        error instanceof OverseerError && error.code === 'connection_unavailable'
          ? error.info
          : unavailable(
              name,
              'down',
              `the helper on "${name}" did not start: ${error instanceof Error ? error.message : String(error)}`,
              'test_connection says what fails',
            ).info;
      this.mark(r, 'down', info);
      throw new OverseerError(info);
    }
  }

  /** Stops a helper nobody used for idleStopMs (and nothing is in flight on it). */
  private async stopIdle(): Promise<void> {
    const now = this.clock.now();
    for (const r of this.remotes.values())
      if (r.helper !== undefined && r.starting === undefined && r.inflight === 0 && !r.suspended && now - r.lastUsed >= this.idleStopMs)
        await this.shut(r, `idle for ${Math.round((now - r.lastUsed) / 1000)} s`);
  }

  /** Stops a connection's helper and closes its target. */
  private async shut(r: Remote, why: string): Promise<void> {
    const helper = r.helper;
    // Both go at once: a call arriving while the helper stops must start a new one through a new target, made from the entry as it is now.
    const target = r.target;
    r.helper = undefined;
    r.target = undefined;
    r.suspended = false;
    if (helper !== undefined) {
      this.options.log(`[connections] ${r.config.name}: helper stopped (${why})`);
      await helper.stop().catch(() => {});
    }
    await target?.close().catch((error: unknown) => this.options.log(`[connections] closing ${r.config.name} failed: ${logSafe(String(error))}`));
    this.options.onChange();
  }

  private async close(r: Remote): Promise<void> {
    const target = r.target;
    r.target = undefined;
    await target?.close().catch((error: unknown) => this.options.log(`[connections] closing ${r.config.name} failed: ${logSafe(String(error))}`));
  }

  private mark(r: Remote, status: ConnectionStatus, error?: { code: string; detail: string }): void {
    const before = `${r.status}|${r.lastError?.detail ?? ''}`;
    r.status = status;
    r.checkedAt = new Date(this.clock.now()).toISOString();
    if (status === 'up') r.lastError = undefined;
    else if (error !== undefined) r.lastError = { code: error.code, detail: error.detail.slice(0, 500) };
    if (`${r.status}|${r.lastError?.detail ?? ''}` !== before) this.options.onChange();
  }
}

/** Waits for a shared promise until this caller's signal aborts (then answers timeout, cancelled); the work itself goes on for the others. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(fail('timeout', 'the test was cancelled', { reason: 'cancelled' }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(fail('timeout', 'the test was cancelled', { reason: 'cancelled' }));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
