// The person's consent to a new grant (docs/agents.md#consent): an agent_grant card in the same
// queue as every other card, journaled like them. Requests for consent come from clients no one has
// approved yet, so they are bounded apart from any agent's share of the queue.
import { randomBytes } from 'node:crypto';
import { errorInfo, type AgentGrantApproval, type GrantRequestInfo } from '../../../protocol/index.js';
import { ApprovalQueue } from '../supervision/approvals.js';
import { queueCard, type PersonQueueDeps } from '../tools/personQueue.js';

/** Most agent_grant cards waiting at once: a client that keeps asking cannot bury the person's queue. */
export const MAX_PENDING_GRANT_CARDS = 4;
/** The least time a grant card waits for the person (a client's sign-in page waits with it). */
const MIN_GRANT_WAIT_MS = 5 * 60_000;

/** What the person decided on an agent_grant card. */
export type GrantDecision = { approved: true } | { approved: false; why: string };

/** What asking for consent needs: the queue and journal, the clock, the card's expiry, and whether a brake refuses new requests. */
export interface ConsentDeps extends PersonQueueDeps {
  now: () => number;
  /** Milliseconds a card waits (the person's approval expiry setting). */
  expiryMs: () => number;
  /** Why no consent may be asked now (a Stop or an emergency stop), or undefined. */
  refused: () => string | undefined;
}

/** Asks the person whether a client gets its own grant, one card at a time per request, within MAX_PENDING_GRANT_CARDS. */
export class GrantConsent {
  private pending = 0;

  constructor(private readonly deps: ConsentDeps) {}

  /** Shows the card and waits for the decision; `signal` (the request closed) withdraws it. */
  async ask(request: GrantRequestInfo, signal: AbortSignal): Promise<GrantDecision> {
    const refused = this.deps.refused();
    if (refused !== undefined) return { approved: false, why: refused };
    if (this.pending >= MAX_PENDING_GRANT_CARDS)
      return { approved: false, why: `${MAX_PENDING_GRANT_CARDS} agents already wait for the person's consent; try again once they are answered` };
    const created = this.deps.now();
    const waitMs = Math.max(this.deps.expiryMs(), MIN_GRANT_WAIT_MS);
    const item: AgentGrantApproval = {
      kind: 'agent_grant',
      action: 'agent_grant',
      agent_grant: request,
      approval_id: ApprovalQueue.newId(),
      receipt_id: `R${randomBytes(9).toString('base64url')}`,
      // No session yet: the request is its own, so withdrawing it touches nothing else.
      session: `grant-request-${randomBytes(6).toString('base64url')}`,
      agent: request.claimed_name,
      password: false,
      ancestor_path: [],
      risk_hints: [],
      created_at: new Date(created).toISOString(),
      expires_at: new Date(created + waitMs).toISOString(),
    };
    this.pending++;
    const onAbort = (): void => void this.deps.approvals.withdraw(item.approval_id, 'the client stopped waiting for consent', 'call_cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = await queueCard(this.deps, item, {
        journal: { agent_grant: { claimed_name: request.claimed_name, client_id: request.client_id, redirect_uri: request.redirect_uri, kind: request.kind } },
        gate: () => (signal.aborted ? errorInfo('withdrawn', 'the client stopped waiting for consent') : undefined),
      });
      if (!('decision' in outcome)) return { approved: false, why: outcome.detail };
      if (outcome.decision.verdict === 'approved') return { approved: true };
      return { approved: false, why: outcome.decision.note ?? `the person's consent was ${outcome.decision.verdict}` };
    } finally {
      this.pending--;
      signal.removeEventListener('abort', onAbort);
    }
  }
}
