import { fail, type BrakeState } from '../../../protocol/index.js';

/** The brake actions a person can take. */
export type BrakeAction = 'pause' | 'resume' | 'stop' | 'emergency_stop' | 'rearm';

/**
 * The brakes (docs/supervision.md#brakes). Pause: nothing new is dispatched, pending items wait, approved ones are
 * held and listed. Stop: every pending item is answered braked and every new act, view-only
 * included, is refused until resumed; reads go on. Emergency stop: stop, plus every call in flight
 * is answered braked, then the helper is killed and every call answers braked (sessions stay open); only an explicit
 * re-arm ends it. The state machine is here; what each transition does is the supervisor's.
 */
export class Brakes {
  private current: BrakeState = 'running';
  private readonly listeners = new Set<(state: BrakeState, previous: BrakeState) => void>();

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

  /** True when every new act is refused (stopped or emergency). */
  get refusing(): boolean {
    return this.current === 'stopped' || this.current === 'emergency';
  }

  private set(state: BrakeState): void {
    const previous = this.current;
    if (previous === state) return;
    this.current = state;
    for (const l of this.listeners) l(state, previous);
  }
}
