import { OverseerError, READ_LIMITS } from '../../protocol/index.js';
import type { Backend } from './backend.js';
import { Deadline } from './deadline.js';
import { openSource } from './source.js';
import { walk } from './walk.js';

/** Quiet time after the last request (or window event) before a prefetch starts. */
const QUIET_MS = 250;
/** Time budget of one window's prefetch. */
const BUDGET_MS = 3000;
/** Windows waiting to be prefetched; older ones are dropped (the newest shown matters most). */
const QUEUE = 4;
/** Nodes detailed between two checks for a request that arrived meanwhile. */
const CHUNK = 128;
/**
 * A window prefetched is not prefetched again for this long: an application that keeps
 * announcing its window (or a person switching back and forth) costs at most one read per window
 * this often. Events keep the cache current meanwhile.
 */
const AGAIN_MS = 2000;

/**
 * Reads a window in the background when it appears or gains the focus, so that an agent's first
 * read of it finds its application's cache loaded and its details read; events keep it current
 * from then on (docs/performance.md#prefetch). It yields to requests: it starts only after a
 * quiet time, and between chunks of its detail pass it stops when a request is being answered.
 * It reads what a default text answer needs (no rectangles). One window at a time, within
 * BUDGET_MS, at most READ_LIMITS.max_nodes.ceiling nodes: bounded in CPU and in memory.
 */
export class Prefetcher {
  private readonly queue: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private active = 0;
  /** When each window was last prefetched (at most QUEUE * 4 remembered). */
  private readonly recent = new Map<string, number>();
  /** Windows prefetched, and prefetches stopped early because a request came. */
  readonly counts = { done: 0, yielded: 0, failed: 0 };

  constructor(
    private readonly backend: Backend,
    private readonly log: (line: string) => void,
  ) {}

  /** A window appeared or gained the focus. */
  shown(window: string): void {
    const last = this.recent.get(window);
    if (last !== undefined && performance.now() - last < AGAIN_MS) return;
    const i = this.queue.indexOf(window);
    if (i >= 0) this.queue.splice(i, 1);
    this.queue.push(window);
    if (this.queue.length > QUEUE) this.queue.shift();
    this.schedule();
  }

  /** The foreground window, once the helper has been quiet for a while (what a person looks at). */
  foreground(): void {
    this.queue.push('');
    this.schedule();
  }

  /** A request is being answered: prefetching waits for it. Call the returned function when it is done. */
  busy(): () => void {
    this.active++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      this.schedule();
    };
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
  }

  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0 || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.active === 0) void this.next();
    }, QUIET_MS);
    this.timer.unref();
  }

  private async next(): Promise<void> {
    const window = this.queue.pop();
    if (window === undefined) return;
    this.running = true;
    try {
      await this.prefetch(window === '' ? undefined : window);
    } catch (error) {
      // A window that went away, an excluded one, an application that does not answer: nothing to warm.
      this.counts.failed++;
      if (!(error instanceof OverseerError))
        this.log(`[prefetch] ${window === '' ? 'the foreground window' : window}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  private async prefetch(id: string | undefined): Promise<void> {
    const started = performance.now();
    const deadline = new Deadline(BUDGET_MS);
    const window = await this.backend.resolveWindow(id, deadline);
    this.recent.delete(window.info.window);
    this.recent.set(window.info.window, performance.now());
    for (const old of this.recent.keys()) {
      if (this.recent.size <= QUEUE * 4) break;
      this.recent.delete(old);
    }
    const source = await openSource(this.backend, window, deadline);
    try {
      const walked = await walk(
        source,
        { maxNodes: READ_LIMITS.max_nodes.ceiling, maxDepth: READ_LIMITS.max_depth.default, maxChildren: READ_LIMITS.max_children_per_node.default },
        deadline,
      );
      for (let i = 0; i < walked.keys.length; i += CHUNK) {
        if (this.active > 0 || deadline.expired()) {
          this.counts.yielded++;
          return;
        }
        await source.details(walked.keys.slice(i, i + CHUNK), deadline, 'answer');
      }
      this.counts.done++;
      this.log(`[prefetch] ${window.info.window}: ${walked.keys.length} elements warm in ${Math.round(performance.now() - started)} ms`);
    } finally {
      source.finish();
    }
  }
}
