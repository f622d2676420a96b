import type { Clock, TimerHandle } from '../core/runtime/clock.js';

interface Timer {
  id: number;
  at: number;
  every: number | undefined;
  fn: () => void;
}

/**
 * A clock for unit tests: time moves only when the test says so, and timers due by then run in
 * order (intervals re-armed), with microtasks flushed between them so awaited work can proceed.
 */
export class FakeClock implements Clock {
  private t: number;
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();

  constructor(start = Date.UTC(2026, 11, 1, 8, 0, 0)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, at: this.t + Math.max(0, ms), every: undefined, fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle !== undefined && 'id' in handle && typeof handle.id === 'number') this.timers.delete(handle.id);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    const every = Math.max(1, ms);
    this.timers.set(id, { id, at: this.t + every, every, fn });
    return { id };
  }

  clearInterval(handle: TimerHandle | undefined): void {
    this.clearTimeout(handle);
  }

  /** Timers not yet run. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running every timer that falls due, in order. */
  async tick(ms: number): Promise<void> {
    const end = this.t + ms;
    await flush();
    for (;;) {
      let due: Timer | undefined;
      for (const timer of this.timers.values()) if (timer.at <= end && (due === undefined || timer.at < due.at)) due = timer;
      if (due === undefined) break;
      this.t = due.at;
      if (due.every !== undefined) due.at += due.every;
      else this.timers.delete(due.id);
      due.fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

/** Lets every queued microtask (and the promise chains they start) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
