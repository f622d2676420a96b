/** A timer as a clock hands it out. */
export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

/**
 * Time as the supervision core sees it: injected, so tests of expiry, waits and progress run on a
 * fake clock instead of sleeping (main/testing/fakeClock.ts).
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle | undefined): void;
}

/** Node's timers overflow past 2^31−1 ms and fire at once: every delay is clamped into range. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay Node's timers accept: a finite integer in [0, 2^31−1]. */
export function clampDelay(ms: number): number {
  if (!Number.isFinite(ms)) return ms > 0 ? MAX_TIMER_MS : 0;
  return Math.min(Math.max(Math.round(ms), 0), MAX_TIMER_MS);
}

/** The real clock; its timers never keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, clampDelay(ms));
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout> | undefined),
  setInterval(fn, ms) {
    const t = setInterval(fn, Math.max(1, clampDelay(ms)));
    t.unref();
    return t;
  },
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval> | undefined),
};
