import { errorInfo, type Decision, type ErrorInfo, type HeldApproval } from '../../../protocol/index.js';
import { systemClock, type Clock } from '../clock.js';
import type { Brakes } from './brakes.js';

/** How a hold ends: dispatch now, or never (with the refusal and the decision that goes with it). */
export type HoldEnd = { kind: 'go' } | { kind: 'refused'; refusal: ErrorInfo; decision?: Decision };

interface Entry {
  item: HeldApproval;
  settle: (end: HoldEnd) => void;
}

/**
 * Approved actions the pause holds (docs/supervision.md#pause-and-the-held-list). They
 * run when the person resumes, are answered braked by a stop, denied when the person cancels one,
 * and withdrawn when their agent goes away.
 */
export class HoldList {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(held: HeldApproval[]) => void>();

  constructor(
    private readonly brakes: Brakes,
    private readonly clock: Clock = systemClock,
  ) {
    brakes.onChange((state) => {
      if (state === 'paused') return;
      const end: HoldEnd = this.brakes.refusing
        ? {
            kind: 'refused',
            refusal: errorInfo('braked', `the ${state === 'emergency' ? 'emergency stop' : 'stop'} ended the pause before this approved action ran`, {
              brake: state,
            }),
          }
        : { kind: 'go' };
      for (const id of [...this.entries.keys()]) this.finish(id, end);
    });
  }

  /** Subscribes to changes of the held list. */
  onChange(listener: (held: HeldApproval[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Held items, oldest first. */
  list(): HeldApproval[] {
    return [...this.entries.values()].map((e) => e.item);
  }

  /** Resolves at once unless paused; while paused the item is listed until the pause ends. */
  hold(item: Omit<HeldApproval, 'held_since'>): Promise<HoldEnd> {
    if (this.brakes.state !== 'paused') return Promise.resolve({ kind: 'go' });
    return new Promise<HoldEnd>((resolve) => {
      this.entries.set(item.approval_id, { item: { ...item, held_since: new Date(this.clock.now()).toISOString() }, settle: resolve });
      this.emit();
    });
  }

  /** A person cancels a held action: it is answered denied and never runs. */
  cancel(approvalId: string, reason?: string): boolean {
    const note = reason !== undefined && reason.trim() !== '' ? reason : 'cancelled by a person while paused';
    const decision: Decision = { verdict: 'denied', by: 'human', at: new Date(this.clock.now()).toISOString(), note };
    return this.finish(approvalId, { kind: 'refused', refusal: errorInfo('denied', note), decision });
  }

  /** The held actions of a departed agent are withdrawn. */
  withdrawSession(session: string, note: string): number {
    const ids = [...this.entries.values()].filter((e) => e.item.session === session).map((e) => e.item.approval_id);
    const decision: Decision = { verdict: 'withdrawn', by: 'policy', at: new Date(this.clock.now()).toISOString(), note };
    for (const id of ids) this.finish(id, { kind: 'refused', refusal: errorInfo('withdrawn', note), decision });
    return ids.length;
  }

  private finish(approvalId: string, end: HoldEnd): boolean {
    const entry = this.entries.get(approvalId);
    if (entry === undefined) return false;
    this.entries.delete(approvalId);
    entry.settle(end);
    this.emit();
    return true;
  }

  private emit(): void {
    const held = this.list();
    for (const l of this.listeners) l(held);
  }
}
