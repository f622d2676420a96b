import { randomBytes } from 'node:crypto';
import type { Decision, PendingApproval } from '../../../protocol/index.js';

/** How an approval ended. */
export interface ApprovalOutcome {
  decision: Decision;
  /** "Approve and allow this action on this element for the session". */
  allowForSession: boolean;
}

interface Entry {
  item: PendingApproval;
  settle: (outcome: ApprovalOutcome) => void;
  timer: ReturnType<typeof setTimeout>;
}

const now = (): string => new Date().toISOString();

/**
 * The approval queue: each item waits for a person (approve, deny with reason) or ends by expiry
 * or a brake. A person approves one exact thing; the caller re-checks it before dispatch.
 */
export class ApprovalQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(pending: PendingApproval[]) => void>();

  /** Subscribes to changes of the pending list. */
  onChange(listener: (pending: PendingApproval[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Pending items, oldest first. */
  list(): PendingApproval[] {
    return [...this.entries.values()].map((e) => e.item);
  }

  /** A fresh approval id. */
  static newId(): string {
    return `A${randomBytes(9).toString('base64url')}`;
  }

  /** Queues an item; the promise settles with the decision (expiry after `expiresInMs`). */
  request(item: PendingApproval, expiresInMs: number): Promise<ApprovalOutcome> {
    let settle: (o: ApprovalOutcome) => void = () => {};
    const done = new Promise<ApprovalOutcome>((resolve) => (settle = resolve));
    const timer = setTimeout(() => this.finish(item.approval_id, { decision: { verdict: 'expired', by: 'policy', at: now(), note: `nobody answered within ${Math.round(expiresInMs / 1000)} s` }, allowForSession: false }), expiresInMs);
    timer.unref();
    this.entries.set(item.approval_id, { item, settle, timer });
    this.emit();
    return done;
  }

  /** A person approves; false when the item is no longer pending. */
  approve(approvalId: string, allowForSession = false): boolean {
    return this.finish(approvalId, { decision: { verdict: 'approved', by: 'human', at: now() }, allowForSession });
  }

  /** A person denies, optionally saying why. */
  deny(approvalId: string, reason?: string): boolean {
    const decision: ApprovalOutcome['decision'] = { verdict: 'denied', by: 'human', at: now() };
    if (reason !== undefined && reason.trim() !== '') decision.note = reason;
    return this.finish(approvalId, { decision, allowForSession: false });
  }

  /** Answers every pending item `braked` (stop and emergency stop). */
  brakeAll(note: string): number {
    const ids = [...this.entries.keys()];
    for (const id of ids) this.finish(id, { decision: { verdict: 'braked', by: 'human', at: now(), note }, allowForSession: false });
    return ids.length;
  }

  /** Pending items of one agent session (for the agents view). */
  countFor(session: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.item.session === session) n++;
    return n;
  }

  private finish(approvalId: string, outcome: ApprovalOutcome): boolean {
    const entry = this.entries.get(approvalId);
    if (entry === undefined) return false;
    clearTimeout(entry.timer);
    this.entries.delete(approvalId);
    entry.settle(outcome);
    this.emit();
    return true;
  }

  private emit(): void {
    const pending = this.list();
    for (const l of this.listeners) l(pending);
  }
}

/** Words that deserve a second look before approving (SPEC §5 risk hints). */
const RISK_WORDS = ['delete', 'remove', 'erase', 'destroy', 'send', 'submit', 'pay', 'purchase', 'buy', 'order', 'transfer', 'format', 'wipe', 'reset', 'uninstall', 'overwrite', 'discard', 'publish', 'confirm', 'sign'];

/** Risk hints found in the target's name, the text, and its ancestors' names. */
export function riskHints(texts: readonly (string | undefined)[]): string[] {
  const found = new Set<string>();
  for (const t of texts) {
    if (t === undefined) continue;
    const lower = t.toLowerCase();
    for (const w of RISK_WORDS) if (new RegExp(`\\b${w}`, 'u').test(lower)) found.add(w[0]?.toUpperCase() + w.slice(1));
  }
  return [...found];
}
