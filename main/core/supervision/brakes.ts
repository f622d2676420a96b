import { fail, type BrakeState } from '../../../protocol/index.js';

/** The brake actions a person can take. */
export type BrakeAction = 'pause' | 'resume' | 'stop' | 'emergency_stop' | 'rearm';

/**
 * The brakes of SPEC §5. Pause: nothing new is dispatched, pending items wait. Stop: every pending
 * item is answered braked and new mutating calls are refused until resumed. Emergency stop: stop,
 * plus the helper is killed and agent connections dropped; only an explicit re-arm ends it.
 */
export class Brakes {
  private current: BrakeState = 'running';
  private readonly listeners = new Set<(state: BrakeState, previous: BrakeState) => void>();
  private resumed: { promise: Promise<void>; resolve: () => void } | undefined;

  get state(): BrakeState {
    return this.current;
  }

  /** Subscribes to brake changes. */
  onChange(listener: (state: BrakeState, previous: BrakeState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies a brake action; refuses transitions that would skip the re-arm. */
  apply(action: BrakeAction): BrakeState {
    const from = this.current;
    switch (action) {
      case 'pause':
        if (from === 'running') this.set('paused');
        break;
      case 'resume':
        if (from === 'emergency') throw fail('braked', 'the emergency stop needs an explicit re-arm');
        this.set('running');
        break;
      case 'stop':
        if (from !== 'emergency') this.set('stopped');
        break;
      case 'emergency_stop':
        this.set('emergency');
        break;
      case 'rearm':
        if (from === 'emergency') this.set('running');
        break;
    }
    return this.current;
  }

  /** True when new mutating calls are refused (stopped or emergency). */
  get refusing(): boolean {
    return this.current === 'stopped' || this.current === 'emergency';
  }

  /** Waits while paused; resolves at once otherwise (a stop also ends the wait: the caller re-checks). */
  whilePaused(): Promise<void> {
    if (this.current !== 'paused') return Promise.resolve();
    if (this.resumed === undefined) {
      let resolve = (): void => {};
      const promise = new Promise<void>((r) => (resolve = r));
      this.resumed = { promise, resolve };
    }
    return this.resumed.promise;
  }

  private set(state: BrakeState): void {
    const previous = this.current;
    if (previous === state) return;
    this.current = state;
    if (state !== 'paused' && this.resumed !== undefined) {
      this.resumed.resolve();
      this.resumed = undefined;
    }
    for (const l of this.listeners) l(state, previous);
  }
}
