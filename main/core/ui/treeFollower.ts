import { createHash } from 'node:crypto';
import type { Element, TreeStatus } from '../../../protocol/index.js';
import { systemClock, type Clock, type TimerHandle } from '../runtime/clock.js';
import type { HelperCaller } from '../helperLink/helperSupervisor.js';

/** The tree a person sees of the chosen window. */
export interface ShownTree {
  window: string;
  elements: Element[];
  truncated_by: string[];
  read_at: string;
}

/** Longest the follower's own reads of a process wait for acts running there without a break. */
export const ACT_HOLD_MAX_MS = 3000;

/** What the follower needs. */
export interface TreeFollowerDeps {
  helper: HelperCaller;
  /** True while some UI is attached: nobody watching, nothing read. */
  watched: () => boolean;
  onTree: (tree: ShownTree) => void;
  onStatus: (status: TreeStatus) => void;
  log: (line: string) => void;
  clock?: Clock;
  /** Safety-net re-read while watched, for backends that send no change events. */
  pollMs?: number;
  /** Changes closer together than this are read once. */
  debounceMs?: number;
}

/**
 * Keeps the chosen window's tree current while a person looks at it (docs/supervision.md#live-element-tree: "the live element
 * tree"): it reads again after every dispatch on that window (not while it runs), when the helper
 * reports a change in its process, on Reload, and on a slow poll; it sends a tree only when it changed, and says
 * plainly when what is shown is out of date (read failed, helper down).
 */
export class TreeFollower {
  private chosen: { window: string; pid?: number } | undefined;
  private shown: ShownTree | undefined;
  private hash: string | undefined;
  private current: TreeStatus = { state: 'none' };
  private reading: Promise<void> | undefined;
  private again = false;
  private debounce: TimerHandle | undefined;
  private readonly poll: TimerHandle;
  private readonly clock: Clock;
  /** Processes an approved act is running in: how many, and since when acts have run there without a break. */
  private readonly acting = new Map<number, { count: number; since: number }>();

  constructor(private readonly deps: TreeFollowerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.poll = this.clock.setInterval(() => {
      if (this.chosen !== undefined && this.deps.watched()) this.schedule();
    }, deps.pollMs ?? 5000);
  }

  /** The tree as last read, if any. */
  get tree(): ShownTree | undefined {
    return this.shown;
  }

  get status(): TreeStatus {
    return this.current;
  }

  get window(): string | undefined {
    return this.chosen?.window;
  }

  /** Chooses the window to follow (or none) and reads it now. */
  async choose(window: string | undefined, pid?: number): Promise<void> {
    if (window === this.chosen?.window && this.shown?.window === window) return this.read();
    this.chosen = window === undefined ? undefined : { window, ...(pid !== undefined ? { pid } : {}) };
    this.shown = undefined;
    this.hash = undefined;
    if (window === undefined) return this.setStatus({ state: 'none' });
    return this.read();
  }

  /** Reads the chosen window again: a read that begins after this call, not one already under way. */
  async reload(): Promise<void> {
    if (this.reading !== undefined) await this.reading.catch(() => {});
    return this.read();
  }

  /** Something changed in these processes (undefined: somewhere): read again soon if it is ours. */
  changed(pids?: readonly number[]): void {
    const c = this.chosen;
    if (c === undefined || !this.deps.watched()) return;
    if (pids !== undefined && c.pid !== undefined && !pids.includes(c.pid)) return;
    this.schedule();
  }

  /**
   * An act runs in this process: the follower's own reads of it wait until every act there ended,
   * then it reads once. A read of a whole window is thousands of calls to the application's main
   * thread, which is also the one taking the act's typed keys (docs/supervision.md#live-element-tree).
   * Returns what to call when the act ended (once).
   */
  actingIn(pid: number): () => void {
    const held = this.acting.get(pid) ?? { count: 0, since: this.clock.now() };
    held.count++;
    this.acting.set(pid, held);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--held.count <= 0) this.acting.delete(pid);
      this.changed([pid]);
    };
  }

  /** The helper went away: what is shown can no longer be kept current. */
  helperDown(why: string): void {
    if (this.chosen !== undefined && this.current.state !== 'none') this.setStatus({ ...this.current, state: 'out_of_date', why });
  }

  stop(): void {
    this.clock.clearInterval(this.poll);
    this.clock.clearTimeout(this.debounce);
  }

  private schedule(): void {
    if (this.debounce !== undefined) return;
    this.debounce = this.clock.setTimeout(() => {
      this.debounce = undefined;
      // Read once the act there ended (actingIn's end schedules it); acts that overlap without a break
      // (an agent's stream of automatic ones) hold the tree back ACT_HOLD_MAX_MS at most.
      const pid = this.chosen?.pid;
      const held = pid === undefined ? undefined : this.acting.get(pid);
      if (held !== undefined && this.clock.now() - held.since < ACT_HOLD_MAX_MS) return;
      void this.read();
    }, this.deps.debounceMs ?? 120);
  }

  /** One read at a time; a change during a read makes one more read after it. */
  private read(): Promise<void> {
    if (this.reading !== undefined) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.readOnce().finally(() => {
      this.reading = undefined;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const c = this.chosen;
    if (c === undefined) return;
    if (this.shown === undefined) this.setStatus({ window: c.window, state: 'reading' });
    try {
      const r = await this.deps.helper.call('window_read', { window: c.window, max_nodes: 5000, format: 'tree', for_ui: true });
      if (this.chosen?.window !== c.window) return;
      c.pid = r.window.pid;
      const readAt = new Date(this.clock.now()).toISOString();
      const hash = createHash('sha256')
        .update(JSON.stringify([r.elements, r.truncated_by]))
        .digest('base64url');
      if (hash !== this.hash) {
        this.hash = hash;
        this.shown = { window: c.window, elements: r.elements, truncated_by: r.truncated_by, read_at: readAt };
        this.deps.onTree(this.shown);
      } else if (this.shown !== undefined) this.shown.read_at = readAt;
      this.setStatus({ window: c.window, state: 'current', read_at: readAt });
    } catch (error) {
      if (this.chosen?.window !== c.window) return;
      const why = error instanceof Error ? error.message : String(error);
      this.deps.log(`[tree] reading the chosen window failed: ${why}`);
      this.setStatus({ window: c.window, state: 'out_of_date', ...(this.shown !== undefined ? { read_at: this.shown.read_at } : {}), why });
    }
  }

  private setStatus(status: TreeStatus): void {
    const same = status.state === this.current.state && status.window === this.current.window && status.why === this.current.why;
    this.current = status;
    // `current` re-confirmations are not news; a change of state or reason is.
    if (!same || status.state !== 'current') this.deps.onStatus(status);
  }
}
