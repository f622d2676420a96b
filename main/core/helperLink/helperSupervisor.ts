import {
  DesktopChanged,
  SCOPE_PARAM,
  type CallScope,
  OverseerError,
  errorInfo,
  type Exclusions,
  type HelperHealth,
  type HelperMethod,
  type HelperParams,
  type HelperResult,
} from '../../../protocol/index.js';
import { spawnHelper, type HelperProcess } from './helperProcess.js';
import { systemClock, type Clock, type TimerHandle } from '../runtime/clock.js';
import { FairLanes } from './fairLanes.js';

/** Options of the helper supervisor. */
export interface HelperSupervisorOptions {
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  /**
   * Where each line the helper writes on stderr goes (default: `log`, as it is: the local helper is
   * this build's own). A remote's are escaped and named as its (docs/security.md#what-a-remote-can-write-to-the-log).
   */
  logStderr?: (line: string) => void;
  /** How often the watchdog checks the helper, and how long it may take to answer. */
  watchdogIntervalMs?: number;
  watchdogTimeoutMs?: number;
  /** How long a helper that keeps sending other frames may leave the watchdog's hello unanswered (WATCHDOG_BUSY_LIMIT_MS). */
  watchdogBusyLimitMs?: number;
  /** Starts a helper process (the desktop app runs its bundled one; unit tests a fake). */
  spawn?: (env: Record<string, string | undefined>) => HelperProcess;
  /** Time for the watchdog and the restart backoff (unit tests pass a fake clock). */
  clock?: Clock;
}

/** What the tools and the tree follower need of the helper: one typed call (tests pass a fake). */
export type HelperCaller = Pick<HelperSupervisor, 'call'>;

const BACKOFF_MS = [250, 500, 1000, 2000, 5000, 10_000];
/** A helper that stayed up this long resets the backoff. */
const HEALTHY_AFTER_MS = 30_000;
/**
 * A helper whose frames keep coming is busy, not wedged: answers it wrote before the hello's are
 * still on their way (docs/architecture.md#helper-watchdog-and-restart). It is killed only if the
 * hellos stay unanswered this long regardless; the helper's own queues keep what it writes ahead of
 * a hello to a few pictures, so this is far beyond any real backlog.
 */
export const WATCHDOG_BUSY_LIMIT_MS = 60_000;
/** A hello answered slower than this is logged, with how long it took. */
const SLOW_HELLO_MS = 1000;

/**
 * Owns the accessibility helper process: handshake, watchdog, restart with backoff, and typed
 * answers for calls in flight when it dies (docs/architecture.md#faults). Never retries a call blindly.
 */
export class HelperSupervisor {
  private helper: HelperProcess | undefined;
  private ready: Promise<HelperProcess> | undefined;
  private restarts = 0;
  private failures = 0;
  private startedAt = 0;
  private stopped = false;
  private suspended = false;
  private watchdog: TimerHandle | undefined;
  private restartTimer: TimerHandle | undefined;
  /** A watchdog hello is on its way; the next tick waits for it rather than piling up hellos. */
  private checking = false;
  /** Since when hellos have gone unanswered while the helper kept sending other frames. */
  private busySince: number | undefined;
  private readonly clock: Clock;
  private exclusions: Exclusions = {};
  private readonly listeners = new Set<(health: HelperHealth) => void>();
  private readonly changeListeners = new Set<(pids: number[]) => void>();
  health: HelperHealth = { state: 'starting', restarts: 0 };
  /** An agent's calls go a few at a time, so one agent's flood never queues ahead of another's call. */
  private readonly lanes = new FairLanes();

  constructor(private readonly options: HelperSupervisorOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Starts the helper and waits for its handshake. */
  async start(): Promise<void> {
    this.stopped = false;
    this.suspended = false;
    await this.launch();
    const interval = this.options.watchdogIntervalMs ?? 2000;
    this.watchdog ??= this.clock.setInterval(() => void this.check(), interval);
  }

  /** Subscribes to health changes. */
  onHealth(listener: (health: HelperHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Subscribes to the helper's reports of applications that changed (AT-SPI events; other backends send none). */
  onDesktopChange(listener: (pids: number[]) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Processes the helper must never read or act on; re-sent after every restart. */
  async setExclusions(exclusions: Exclusions): Promise<void> {
    this.exclusions = exclusions;
    const h = this.helper;
    if (h !== undefined && this.health.state === 'ready') await h.call('configure', { exclude: exclusions }).catch(() => {});
  }

  /**
   * Calls the helper; while it is down or restarting, answers helper_unavailable at once. A call made
   * for an agent carries its `scope` (docs/architecture.md#call-scope).
   */
  async call<M extends HelperMethod>(
    method: M,
    params: HelperParams<M>,
    options: { signal?: AbortSignal; timeoutMs?: number; scope?: CallScope; lane?: string } = {},
  ): Promise<HelperResult<M>> {
    if (options.lane === undefined) return this.send(method, params, options);
    // A call waits for its lane at most half its budget (then it is answered busy, typed), and once
    // at the helper it has its whole budget: a turn never arrives too late to be of use.
    const waitMs = options.timeoutMs === undefined ? undefined : Math.max(1, Math.floor(options.timeoutMs / 2));
    const release = await this.lanes.enter(options.lane, waitMs, options.signal);
    try {
      return await this.send(method, params, options);
    } finally {
      release();
    }
  }

  private async send<M extends HelperMethod>(
    method: M,
    params: HelperParams<M>,
    options: { signal?: AbortSignal; timeoutMs?: number; scope?: CallScope; lane?: string },
  ): Promise<HelperResult<M>> {
    if (this.suspended || this.stopped)
      throw new OverseerError(
        errorInfo('helper_unavailable', this.suspended ? 'the helper was stopped by the emergency stop; re-arm to restart it' : 'the helper is stopped'),
      );
    const helper = this.health.state === 'ready' ? this.helper : await this.ready?.catch(() => undefined);
    if (helper === undefined)
      throw new OverseerError(errorInfo('helper_unavailable', `the accessibility helper is ${this.health.state}`, { restarts: this.restarts }));
    const { scope, lane: _lane, ...rest } = options;
    return helper.call(method, scope === undefined ? params : ({ ...params, [SCOPE_PARAM]: scope } as HelperParams<M>), rest);
  }

  /** Kills the helper and keeps it down until resume() (emergency stop). */
  suspend(): void {
    this.suspended = true;
    this.kill('emergency stop');
    this.setHealth({ state: 'stopped', restarts: this.restarts, last_error: 'emergency stop' });
  }

  /** Restarts the helper after suspend() (re-arm). */
  async resume(): Promise<void> {
    if (!this.suspended) return;
    this.suspended = false;
    this.failures = 0;
    await this.launch();
  }

  /** Stops the helper for good (closes its stdin, so it exits by itself). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clock.clearInterval(this.watchdog);
    this.clock.clearTimeout(this.restartTimer);
    const h = this.helper;
    this.helper = undefined;
    if (h !== undefined) {
      const exited = h.close();
      const timer = setTimeout(() => h.child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    }
    this.setHealth({ state: 'stopped', restarts: this.restarts });
  }

  /** The running helper's pid (for exclusions and tests). */
  get pid(): number | undefined {
    return this.helper?.child.pid;
  }

  private launch(): Promise<HelperProcess> {
    const spawn = this.options.spawn ?? spawnHelper;
    const helper = spawn(this.options.env);
    this.helper = helper;
    this.startedAt = this.clock.now();
    this.busySince = undefined;
    helper.onStderrLine = (line) => {
      if (line.trim() !== '') (this.options.logStderr ?? this.options.log)(line);
    };
    void helper.exited.then((code) => this.onExit(helper, code));
    helper.peer.onnotification = (method, params) => {
      if (method !== 'desktop_changed' || this.helper !== helper) return;
      const parsed = DesktopChanged.safeParse(params);
      if (parsed.success) for (const l of this.changeListeners) l(parsed.data.pids);
    };
    this.setHealth({ state: this.restarts === 0 ? 'starting' : 'restarting', restarts: this.restarts });
    this.ready = (async () => {
      const hello = await helper.call('hello', { client: 'overseer-supervisor', exclude: this.exclusions }, { timeoutMs: 10_000 });
      if (this.helper !== helper) throw new OverseerError(errorInfo('helper_unavailable', 'the helper was replaced during its handshake'));
      const health: HelperHealth = { state: 'ready', backend: hello.backend, restarts: this.restarts };
      if (helper.child.pid !== undefined) health.pid = helper.child.pid;
      this.setHealth(health);
      this.options.log(`[helper-supervisor] helper ready: ${hello.backend} ${hello.version}, pid ${hello.pid}`);
      return helper;
    })();
    this.ready.catch((error: unknown) => {
      this.options.log(`[helper-supervisor] handshake failed: ${error instanceof Error ? error.message : String(error)}`);
      this.kill('handshake failed');
    });
    return this.ready;
  }

  private onExit(helper: HelperProcess, code: number | null): void {
    if (this.helper !== helper) return;
    this.helper = undefined;
    if (this.stopped || this.suspended) return;
    if (this.clock.now() - this.startedAt > HEALTHY_AFTER_MS) this.failures = 0;
    const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)] ?? 10_000;
    this.failures++;
    this.restarts++;
    this.options.log(`[helper-supervisor] restart #${this.restarts} after exit ${code ?? 'signal'} in ${delay} ms`);
    this.setHealth({ state: 'restarting', restarts: this.restarts, last_error: `exited with ${code ?? 'a signal'}` });
    this.ready = new Promise((resolve, reject) => {
      this.restartTimer = this.clock.setTimeout(() => {
        if (this.stopped || this.suspended) return reject(new OverseerError(errorInfo('helper_unavailable', 'stopped')));
        this.launch().then(resolve, reject);
      }, delay);
    });
    this.ready.catch(() => {});
  }

  private kill(reason: string): void {
    const h = this.helper;
    if (h === undefined) return;
    this.options.log(`[helper-supervisor] killing helper pid ${h.child.pid ?? '?'}: ${reason}`);
    h.child.kill('SIGKILL');
  }

  /**
   * Watchdog: a helper that does not answer hello in time, and sent nothing else meanwhile, is wedged
   * and killed (and restarted by onExit). One that sent other frames meanwhile is busy writing
   * answers queued ahead of the hello's: it is left alone, up to WATCHDOG_BUSY_LIMIT_MS.
   */
  private async check(): Promise<void> {
    const h = this.helper;
    if (h === undefined || this.health.state !== 'ready' || this.checking) return;
    this.checking = true;
    const heard = h.peer.heard;
    const sent = this.clock.now();
    try {
      await h.call('hello', {}, { timeoutMs: this.options.watchdogTimeoutMs ?? 5000 });
      const took = this.clock.now() - sent;
      if (took > SLOW_HELLO_MS || this.busySince !== undefined) this.options.log(`[helper-supervisor] watchdog hello answered after ${took} ms`);
      this.busySince = undefined;
    } catch (error) {
      if (this.helper !== h) return;
      const why = error instanceof Error ? error.message : String(error);
      if (h.peer.heard > heard) {
        this.busySince ??= sent;
        const busyFor = this.clock.now() - this.busySince;
        if (busyFor < (this.options.watchdogBusyLimitMs ?? WATCHDOG_BUSY_LIMIT_MS)) {
          this.options.log(
            `[helper-supervisor] watchdog hello not answered yet (${why}), but the helper sent ${h.peer.heard - heard} other frames meanwhile: busy, not wedged`,
          );
          return;
        }
        this.kill(`watchdog: hellos unanswered for ${busyFor} ms though frames kept coming (${why})`);
        return;
      }
      this.kill(`watchdog: no answer and nothing else from it (${why})`);
    } finally {
      this.checking = false;
    }
  }

  private setHealth(health: HelperHealth): void {
    this.health = health;
    for (const l of this.listeners) l(health);
  }
}
