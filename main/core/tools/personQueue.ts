// Queue a card and wait for the person: the one path every card takes (element_act and screen input
// through the supervised flow; questions, handoffs, remote_exec and add_connection directly). The
// request is journaled before the card is shown, the gate is checked in the same turn as it is
// queued (a brake or a departure while journaling swept the queue already), and the resolution is
// journaled before anyone is answered.
import { errorInfo, type ErrorInfo, type PendingApproval } from '../../../protocol/index.js';
import type { ApprovalOutcome, ApprovalQueue, RuleSubject } from '../supervision/approvals.js';
import type { QueueAdmission } from '../supervision/admission.js';
import type { AgentSession } from '../session/agentSession.js';

/** What queuing a card needs: the queue, and the journal of approval events. */
export interface PersonQueueDeps {
  approvals: ApprovalQueue;
  journalEvent: (record: { kind: 'approval_pending' | 'approval_resolved'; [k: string]: unknown }) => Promise<void>;
}

/** How one card is queued: what its journal record says, the rule subject (acts only), and the gate. */
export interface QueueCardOptions<G> {
  /** Added to the approval_pending record (the target, the question, the command; never pictures or password text). */
  journal: Record<string, unknown>;
  /** What a session rule could cover; absent for cards no rule ever decides. */
  subject?: RuleSubject;
  /** Checked in the same turn as the card is queued: an answer here means the card is never shown. */
  gate: () => G | undefined;
  /** Runs in the same turn as the card is queued (a handoff starts holding inputs). */
  before?: () => void;
}

/** Journals the request, queues the card, waits for the person, and journals how it ended. */
export async function queueCard<G>(deps: PersonQueueDeps, item: PendingApproval, options: QueueCardOptions<G>): Promise<ApprovalOutcome | G> {
  await deps.journalEvent({
    kind: 'approval_pending',
    approval_id: item.approval_id,
    receipt_id: item.receipt_id,
    session: item.session,
    agent: item.agent,
    action: item.action,
    ...(item.connection !== undefined ? { connection: item.connection } : {}),
    ...options.journal,
    // A picture is journaled by its hash and size, never its pixels.
    ...(item.kind === 'element' && item.picture !== undefined ? { picture: { sha256: item.picture.sha256, bytes: item.picture.bytes } } : {}),
    expires_at: item.expires_at,
  });
  const early = options.gate();
  if (early !== undefined) {
    // The request is on record, so its end is too: a card never shown still ends (or a restart would call it expired).
    const d = gateDecision(early);
    await deps.journalEvent({
      kind: 'approval_resolved',
      approval_id: item.approval_id,
      receipt_id: item.receipt_id,
      verdict: d.verdict,
      by: d.by,
      ...(d.note !== undefined ? { note: d.note } : {}),
    });
    return early;
  }
  options.before?.();
  const outcome = await deps.approvals.request(item, Date.parse(item.expires_at) - Date.parse(item.created_at), options.subject);
  await deps.journalEvent({
    kind: 'approval_resolved',
    approval_id: item.approval_id,
    receipt_id: item.receipt_id,
    verdict: outcome.decision.verdict,
    by: outcome.decision.by,
    ...(outcome.decision.note !== undefined ? { note: outcome.decision.note } : {}),
    ...(outcome.allow !== undefined ? { allow_for_session: outcome.allow } : {}),
    ...(outcome.answer !== undefined ? { answer: outcome.answer.text, ...(outcome.answer.choice !== undefined ? { choice: outcome.answer.choice } : {}) } : {}),
  });
  return outcome;
}

/** How a gate's answer ends the card on record: its decision, or the refusal's code by policy. */
function gateDecision(early: unknown): { verdict: string; by: string; note?: string | undefined } {
  if (early !== null && typeof early === 'object' && 'decision' in early) return (early as ApprovalOutcome).decision;
  const info = early as ErrorInfo;
  return { verdict: info.code, by: 'policy', note: info.detail };
}

/**
 * A card counted against the queue's bounds while it waits (docs/supervision.md#bounds): past a
 * bound the call is refused `denied` and nothing is queued.
 */
export async function queueAdmittedCard(
  deps: PersonQueueDeps & { admission: QueueAdmission },
  session: AgentSession,
  item: PendingApproval,
  options: QueueCardOptions<ErrorInfo>,
): Promise<ApprovalOutcome | ErrorInfo> {
  const admitted = deps.admission.admit(session.id, session.identity);
  if (!admitted.ok) return errorInfo('denied', admitted.detail, { limit: admitted.limit, reason: admitted.reason, waiting: admitted.waiting });
  try {
    return await queueCard(deps, item, options);
  } finally {
    admitted.release();
  }
}
