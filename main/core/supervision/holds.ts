import { errorInfo, type Decision, type ErrorInfo, type HeldApproval, type HeldDelta, type OmitEach } from '../../../protocol/index.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import type { WithdrawReason } from './approvals.js';
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
  private readonly listeners = new Set<(change: HeldDelta) => void>();

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
      const ids = [...this.entries.keys()];
      for (const id of ids) this.finish(id, end, false);
      if (ids.length > 0) this.emit({ added: [], removed: ids });
    });
  }

  /** Subscribes to changes of the held list: what joined and what left (a bulk end is one change). */
  onChange(listener: (change: HeldDelta) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Held items, oldest first. */
  list(): HeldApproval[] {
    return [...this.entries.values()].map((e) => e.item);
  }

  /** Resolves at once unless paused; while paused the item is listed until the pause ends. */
  hold(item: OmitEach<HeldApproval, 'held_since'>): Promise<HoldEnd> {
    if (this.brakes.state !== 'paused') return Promise.resolve({ kind: 'go' });
    return new Promise<HoldEnd>((resolve) => {
      const held: HeldApproval = { ...item, held_since: new Date(this.clock.now()).toISOString() };
      this.entries.set(item.approval_id, { item: held, settle: resolve });
      this.emit({ added: [held], removed: [] });
    });
  }

  /** A person cancels a held action: it is answered denied and never runs. */
  cancel(approvalId: string, reason?: string): boolean {
    const note = reason !== undefined && reason.trim() !== '' ? reason : 'cancelled by a person while paused';
    const decision: Decision = { verdict: 'denied', by: 'human', at: new Date(this.clock.now()).toISOString(), note };
    return this.finish(approvalId, { kind: 'refused', refusal: errorInfo('denied', note), decision });
  }

  /** The held actions of a departed agent are withdrawn. */
  withdrawSession(session: string, note: string, reason: WithdrawReason = 'agent_disconnected'): number {
    const ids = [...this.entries.values()].filter((e) => e.item.session === session).map((e) => e.item.approval_id);
    for (const id of ids) this.finish(id, this.withdrawal(note, reason), false);
    if (ids.length > 0) this.emit({ added: [], removed: ids });
    return ids.length;
  }

  /** One held action is withdrawn (the call that made it left, or was cancelled); false when it is not held. */
  withdraw(approvalId: string, note: string, reason: WithdrawReason): boolean {
    return this.finish(approvalId, this.withdrawal(note, reason));
  }

  private withdrawal(note: string, reason: WithdrawReason): HoldEnd {
    const decision: Decision = { verdict: 'withdrawn', by: 'policy', at: new Date(this.clock.now()).toISOString(), note };
    return { kind: 'refused', refusal: errorInfo('withdrawn', note, { reason }), decision };
  }

  /** One held item (its pictures are asked for by id). */
  get(approvalId: string): HeldApproval | undefined {
    return this.entries.get(approvalId)?.item;
  }

  /** Held items of one agent session. */
  countFor(session: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.item.session === session) n++;
    return n;
  }

  private finish(approvalId: string, end: HoldEnd, announce = true): boolean {
    const entry = this.entries.get(approvalId);
    if (entry === undefined) return false;
    this.entries.delete(approvalId);
    entry.settle(end);
    if (announce) this.emit({ added: [], removed: [approvalId] });
    return true;
  }

  private emit(change: HeldDelta): void {
    for (const l of this.listeners) l(change);
  }
}
