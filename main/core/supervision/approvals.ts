import { randomBytes } from 'node:crypto';
import type { AnyAction, Decision, PendingApproval, PendingDelta } from '../../../protocol/index.js';
import { systemClock, type Clock, type TimerHandle } from '../runtime/clock.js';

/** The scope of a confirmed "allow for this session" (docs/supervision.md#allow-for-the-session: named, never implied). */
export type AllowScope = 'element' | 'app';

/** Why a card was withdrawn (`data.reason` of the `withdrawn` answer, docs/supervision.md#withdrawal). */
export type WithdrawReason = 'agent_disconnected' | 'call_cancelled';

/** How an approval ended. */
export interface ApprovalOutcome {
  decision: Decision;
  /** Set when the person confirmed the second step of "allow for this session". */
  allow?: AllowScope;
  /** A question's answer: the text, and the index of the choice picked (docs/supervision.md#questions-and-handoffs). */
  answer?: { text: string; choice?: number };
  /** Set when the card was withdrawn: why. */
  withdrawn?: WithdrawReason;
}

/**
 * What a session rule would decide a card on (kept beside the card, never sent): the same action,
 * application and element policy decides the call on, and what the rule cannot cover of it.
 */
export interface RuleSubject {
  /** The desktop the act is aimed at: its connection's tag when the card was made (a rule covers that desktop alone). */
  connection: string;
  action: AnyAction;
  app: string;
  element: string;
  outOfRule?: (scope: AllowScope) => string | undefined;
}

interface Entry {
  item: PendingApproval;
  settle: (outcome: ApprovalOutcome) => void;
  timer: TimerHandle;
  subject: RuleSubject | undefined;
}

/**
 * The approval queue: each item waits for a person (approve, deny with reason) or ends by expiry,
 * a brake, or its agent going away (withdrawn). A person approves one exact thing; the caller
 * re-checks it, including the state the card showed, before dispatch.
 */
export class ApprovalQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(change: PendingDelta) => void>();

  constructor(private readonly clock: Clock = systemClock) {}

  /** Subscribes to changes of the pending list: what joined and what left (a bulk end is one change). */
  onChange(listener: (change: PendingDelta) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Pending items, oldest first. */
  list(): PendingApproval[] {
    return [...this.entries.values()].map((e) => e.item);
  }

  /** One pending item. */
  get(approvalId: string): PendingApproval | undefined {
    return this.entries.get(approvalId)?.item;
  }

  /** A fresh approval id. */
  static newId(): string {
    return `A${randomBytes(9).toString('base64url')}`;
  }

  /** The clock's time as an ISO string (decisions are stamped with it). */
  stamp(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** What a session rule would decide this pending card on, when the flow that made it said. */
  subject(approvalId: string): RuleSubject | undefined {
    return this.entries.get(approvalId)?.subject;
  }

  /** Queues an item; the promise settles with the decision (expiry after `expiresInMs`). */
  request(item: PendingApproval, expiresInMs: number, subject?: RuleSubject): Promise<ApprovalOutcome> {
    let settle: (o: ApprovalOutcome) => void = () => {};
    const done = new Promise<ApprovalOutcome>((resolve) => (settle = resolve));
    const timer = this.clock.setTimeout(
      () =>
        this.finish(item.approval_id, {
          decision: { verdict: 'expired', by: 'policy', at: this.stamp(), note: `nobody answered within ${Math.round(expiresInMs / 1000)} s` },
        }),
      expiresInMs,
    );
    this.entries.set(item.approval_id, { item, settle, timer, subject });
    this.emit({ added: [item], removed: [] });
    return done;
  }

  /** A person approves, optionally with a confirmed session rule; false when the item is no longer pending. */
  approve(approvalId: string, allow?: AllowScope, note?: string): boolean {
    return this.finish(approvalId, {
      decision: { verdict: 'approved', by: 'human', at: this.stamp(), ...(note !== undefined ? { note } : {}) },
      ...(allow !== undefined ? { allow } : {}),
    });
  }

  /** A person denies, optionally saying why. */
  deny(approvalId: string, reason?: string): boolean {
    const decision: Decision = { verdict: 'denied', by: 'human', at: this.stamp() };
    if (reason !== undefined && reason.trim() !== '') decision.note = reason;
    return this.finish(approvalId, { decision });
  }

  /**
   * A person answers a question (verdict approved, with the answer) or declines it (denied), or
   * gives control back after a handoff (approved, with the note): false when it is no longer pending.
   */
  settle(approvalId: string, outcome: Omit<ApprovalOutcome, 'decision'> & { verdict: 'approved' | 'denied'; note?: string }): boolean {
    const decision: Decision = { verdict: outcome.verdict, by: 'human', at: this.stamp() };
    if (outcome.note !== undefined && outcome.note.trim() !== '') decision.note = outcome.note;
    return this.finish(approvalId, { decision, ...(outcome.answer !== undefined ? { answer: outcome.answer } : {}) });
  }

  /** Shows a pending item again as it is now (a handoff's count of held inputs changed); false when it is no longer pending. */
  replace(item: PendingApproval): boolean {
    const entry = this.entries.get(item.approval_id);
    if (entry === undefined) return false;
    entry.item = item;
    this.emit({ added: [item], removed: [] });
    return true;
  }

  /** Answers every pending item `braked` (stop and emergency stop). */
  brakeAll(note: string): number {
    const ids = [...this.entries.keys()];
    for (const id of ids) this.finish(id, { decision: { verdict: 'braked', by: 'human', at: this.stamp(), note } }, false);
    if (ids.length > 0) this.emit({ added: [], removed: ids });
    return ids.length;
  }

  /** Answers every pending item of a departed agent `withdrawn`: they leave the queue and never run. */
  withdrawSession(session: string, note: string, reason: WithdrawReason = 'agent_disconnected'): number {
    const ids = [...this.entries.values()].filter((e) => e.item.session === session).map((e) => e.item.approval_id);
    for (const id of ids) this.finish(id, { decision: { verdict: 'withdrawn', by: 'policy', at: this.stamp(), note }, withdrawn: reason }, false);
    if (ids.length > 0) this.emit({ added: [], removed: ids });
    return ids.length;
  }

  /** Answers one pending item `withdrawn` (the call that made it left, or was cancelled); false when it is no longer pending. */
  withdraw(approvalId: string, note: string, reason: WithdrawReason): boolean {
    return this.finish(approvalId, { decision: { verdict: 'withdrawn', by: 'policy', at: this.stamp(), note }, withdrawn: reason });
  }

  /** Pending items of one agent session (for the agents view). */
  countFor(session: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.item.session === session) n++;
    return n;
  }

  private finish(approvalId: string, outcome: ApprovalOutcome, announce = true): boolean {
    const entry = this.entries.get(approvalId);
    if (entry === undefined) return false;
    this.clock.clearTimeout(entry.timer);
    this.entries.delete(approvalId);
    entry.settle(outcome);
    if (announce) this.emit({ added: [], removed: [approvalId] });
    return true;
  }

  private emit(change: PendingDelta): void {
    for (const l of this.listeners) l(change);
  }
}
