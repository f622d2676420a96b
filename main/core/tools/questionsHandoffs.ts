// computer_ask and computer_ctrl (docs/tools.md#computer_ask, docs/tools.md#computer_ctrl): the agent
// talks to the supervising person through the same queue as approvals (same bounds, arming,
// placement, brakes and withdrawal), never through a rule. Each waits like element_act: after the
// approval wait it answers `pending`, and action_wait gives the final answer.
import { randomBytes } from 'node:crypto';
import {
  QUESTION_HANDOFF_LIMITS,
  errorInfo,
  fail,
  type ActionWaitArgs,
  type AskAnswer,
  type ComputerAskArgs,
  type ComputerCtrlArgs,
  type CtrlAnswer,
  type CtrlState,
  type ErrorInfo,
  type HandoffAnswer,
  type CardBase,
  type HandoffApproval,
  type PendingApproval,
  type QuestionApproval,
  type QuestionHandoffAnswer,
} from '../../../protocol/index.js';
import type { ApprovalOutcome } from '../supervision/approvals.js';
import { ApprovalQueue } from '../supervision/approvals.js';
import type { HandoffGate } from '../supervision/handoff.js';
import { imitatedControl } from '../supervision/riskHints.js';
import type { AgentSession } from '../session/agentSession.js';
import { queueAdmittedCard } from './personQueue.js';
import { connectionRef, firstAnswer, type ActDeps, type Progress } from './supervisedFlow.js';

/** Whether a person is watching, as computer_ctrl tells agents. */
export interface PersonState {
  ui_attached: number;
  watching: boolean;
  last_active?: string;
}

/** What the question and handoff tools need: the supervised flow's parts, the handoff gate, and what the person is doing. */
export interface QuestionHandoffDeps extends ActDeps {
  handoffs: HandoffGate;
  person: () => PersonState;
  /** Whether the person offers the screen tier. */
  screenOffered: () => boolean;
  /** Journals (and shows) the final answer of a question or handoff that answered `pending` first. */
  journalQuestionHandoffFinal: (session: AgentSession, tool: string, answer: QuestionHandoffAnswer) => Promise<void>;
}

/** How long a handoff lasts at most: past it the card expires and held inputs go on to their own cards. */
export const HANDOFF_EXPIRY_MS = QUESTION_HANDOFF_LIMITS.timeout_ms;

const newReceiptId = (): string => `R${randomBytes(9).toString('base64url')}`;

/** What a call is answered when it cannot wait for a person at all (a brake, its agent gone, the queue's bounds); undefined when it can. */
function cannotAsk(deps: QuestionHandoffDeps, session: AgentSession): ErrorInfo | undefined {
  if (deps.brakes.refusing)
    return errorInfo(
      'braked',
      `the ${deps.brakes.state === 'emergency' ? 'emergency stop' : 'stop'} is engaged: nothing new reaches the person until they resume`,
      {
        brake: deps.brakes.state,
      },
    );
  if (session.ended !== undefined) return errorInfo('withdrawn', `the agent went away (${session.ended})`);
  return undefined;
}

/** The refusal of a card that ended without the person answering it (braked, withdrawn, expired). */
function ended(outcome: ApprovalOutcome): ErrorInfo {
  const d = outcome.decision;
  const code = d.verdict === 'expired' ? 'expired' : d.verdict === 'withdrawn' ? 'withdrawn' : 'braked';
  return errorInfo(code, d.note ?? `the card was ${d.verdict}`);
}

/** Queues one card and waits for it, counted against the queue's bounds and journaled (personQueue.ts). */
function askPerson(
  deps: QuestionHandoffDeps,
  session: AgentSession,
  item: PendingApproval,
  journal: Record<string, unknown>,
  before?: () => void,
): Promise<ApprovalOutcome | ErrorInfo> {
  return queueAdmittedCard(deps, session, item, { journal, gate: () => cannotAsk(deps, session), ...(before !== undefined ? { before } : {}) });
}

/** What every card of the queue for this agent carries, its times set: a question or handoff adds its kind and what it asks. */
function cardBase(deps: QuestionHandoffDeps, session: AgentSession, receiptId: string, expiresInMs: number): CardBase {
  const created = deps.clock.now();
  return {
    approval_id: ApprovalQueue.newId(),
    receipt_id: receiptId,
    session: session.id,
    agent: session.client,
    password: false,
    ancestor_path: [],
    risk_hints: [],
    created_at: new Date(created).toISOString(),
    expires_at: new Date(created + expiresInMs).toISOString(),
  };
}

/**
 * Runs a question or handoff flow like an act: its first answer is the final one, or `pending` after the approval
 * wait, or `braked` when an emergency stop answers the call; a flow that outlived its first answer
 * is kept for action_wait and its final answer journaled on its own.
 */
function waitLikeAnAct<T extends QuestionHandoffAnswer>(
  deps: QuestionHandoffDeps,
  session: AgentSession,
  tool: string,
  base: Pick<T, 'receipt_id' | 'kind'>,
  flow: Promise<T>,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
  waitMs: number,
): Promise<T> {
  const entry: { done: Promise<QuestionHandoffAnswer>; pending?: QuestionHandoffAnswer; tool: string } = { done: flow, tool };
  const waitingFor = base.kind === 'question' ? 'waiting for the person to answer' : 'waiting for the person to give control back';
  const first = firstAnswer(
    deps,
    flow,
    braked,
    progress,
    waitMs,
    (early) => {
      const answer = (early.kind === 'timeout' ? { ...base, outcome: 'pending' } : { ...base, outcome: 'refused', refusal: early.info }) as T;
      entry.pending = answer;
      return answer;
    },
    waitingFor,
  );
  entry.done = flow.then(
    async (final) => {
      if (entry.pending !== undefined) await deps.journalQuestionHandoffFinal(session, tool, final);
      else session.questionsHandoffs.delete(base.receipt_id);
      return final;
    },
    (error: unknown) => {
      if (entry.pending === undefined) session.questionsHandoffs.delete(base.receipt_id);
      throw error;
    },
  );
  entry.done.catch(() => {});
  session.questionsHandoffs.set(base.receipt_id, entry);
  return first;
}

/** computer_ask: a question card; answered, declined, pending, or refused (braked, withdrawn, expired, the queue's bounds). */
export function computerAsk(
  deps: QuestionHandoffDeps,
  session: AgentSession,
  args: ComputerAskArgs,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<AskAnswer> {
  const base = { receipt_id: newReceiptId(), kind: 'question' as const };
  const expiresInMs = args.timeout_ms ?? deps.settings().approval_expiry_s * 1000;
  const flow = (async (): Promise<AskAnswer> => {
    const refused = (refusal: ErrorInfo): AskAnswer => ({ ...base, outcome: 'refused', refusal });
    const now = cannotAsk(deps, session);
    if (now !== undefined) return refused(now);
    const item: QuestionApproval = {
      ...cardBase(deps, session, base.receipt_id, expiresInMs),
      kind: 'question',
      action: 'ask',
      question: {
        text: args.question,
        ...(args.choices !== undefined ? { choices: args.choices, imitates: args.choices.map((c) => imitatedControl(c) ?? null) } : {}),
      },
    };
    const outcome = await askPerson(deps, session, item, { question: args.question, ...(args.choices !== undefined ? { choices: args.choices } : {}) });
    if (!('decision' in outcome)) return refused(outcome);
    const d = outcome.decision;
    if (d.verdict === 'approved' && outcome.answer !== undefined)
      return {
        ...base,
        outcome: 'answered',
        answer: outcome.answer.text,
        ...(outcome.answer.choice !== undefined ? { choice: outcome.answer.choice } : {}),
        at: d.at,
      };
    if (d.verdict === 'denied' && d.by === 'human') return { ...base, outcome: 'declined', ...(d.note !== undefined ? { note: d.note } : {}), at: d.at };
    return refused(ended(outcome));
  })();
  return waitLikeAnAct(deps, session, 'computer_ask', base, flow, progress, braked, Math.min(deps.settings().approval_wait_ms, expiresInMs + 1000));
}

/** computer_ctrl: what governs this agent now, or a handoff to the person. */
export function computerCtrl(
  deps: QuestionHandoffDeps,
  session: AgentSession,
  args: ComputerCtrlArgs,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<CtrlAnswer> {
  if (args.handoff === undefined) return Promise.resolve(ctrlState(deps, session));
  const mine = deps.handoffs.of(session.id);
  if (mine !== undefined)
    throw fail('invalid_argument', `this agent already handed the desktop to the person (${mine.receiptId}); wait for it with action_wait`, {
      receipt_id: mine.receiptId,
    });
  const reason = args.handoff.reason;
  // A handoff gives the person the desktop this agent acts on now: its active connection.
  const connection = session.connection;
  const base = { receipt_id: newReceiptId(), kind: 'handoff' as const };
  const flow = (async (): Promise<HandoffAnswer> => {
    const refused = (refusal: ErrorInfo): HandoffAnswer => ({ ...base, outcome: 'refused', refusal });
    const now = cannotAsk(deps, session);
    if (now !== undefined) return refused(now);
    const item: HandoffApproval = {
      ...cardBase(deps, session, base.receipt_id, HANDOFF_EXPIRY_MS),
      kind: 'handoff',
      action: 'handoff',
      handoff: { reason, connection, held_inputs: deps.handoffs.held(connection).length },
      connection: connectionRef(deps, connection),
    };
    let begun = false;
    try {
      const outcome = await askPerson(deps, session, item, { reason }, () => {
        deps.handoffs.begin({ approvalId: item.approval_id, receiptId: base.receipt_id, session: session.id, connection, reason });
        begun = true;
      });
      if (!('decision' in outcome)) return refused(outcome);
      const d = outcome.decision;
      if (d.verdict === 'approved') return { ...base, outcome: 'resumed', resumed: true, ...(d.note !== undefined ? { note: d.note } : {}), at: d.at };
      return refused(ended(outcome));
    } finally {
      if (begun) deps.handoffs.end(item.approval_id);
    }
  })();
  return waitLikeAnAct(deps, session, 'computer_ctrl', base, flow, progress, braked, deps.settings().approval_wait_ms);
}

/** computer_ctrl's read-only answer: brakes, the person, this agent's connection, tiers, waiting and held items, and its rules. */
export function ctrlState(deps: QuestionHandoffDeps, session: AgentSession): CtrlState {
  const kindOf = (action: string): 'action' | 'question' | 'handoff' => (action === 'ask' ? 'question' : action === 'handoff' ? 'handoff' : 'action');
  const handoff = deps.handoffs.of(session.id);
  const screenOffered = deps.screenOffered();
  return {
    kind: 'state',
    brake: deps.brakes.state,
    person: deps.person(),
    connection: { id: session.connection, handed_off: deps.handoffs.handedOff(session.connection) },
    tiers: { accessibility: session.tiers.has('accessibility'), screen: screenOffered && session.tiers.has('screen'), screen_offered: screenOffered },
    pending: deps.approvals
      .list()
      .filter((i) => i.session === session.id)
      .map((i) => ({ receipt_id: i.receipt_id, kind: kindOf(i.action), action: i.action, since: i.created_at, expires_at: i.expires_at })),
    held: [
      ...deps.holds
        .list()
        .filter((h) => h.session === session.id)
        .map((h) => ({ receipt_id: h.receipt_id, action: h.action, since: h.held_since, by: 'pause' as const })),
      ...deps.handoffs
        .held()
        .filter((h) => h.session === session.id)
        .map((h) => ({ receipt_id: h.receiptId, action: h.action, since: h.since, by: 'handoff' as const })),
    ],
    rules: deps.policy
      .list()
      .filter((r) => r.kind === 'deny_app' || r.session === session.id)
      .map((r) =>
        r.kind === 'deny_app'
          ? { id: r.id, kind: r.kind, pattern: r.pattern }
          : { id: r.id, kind: r.kind, action: r.action, app: r.app, scope: r.scope, ...(r.element !== undefined ? { element: r.element } : {}) },
      ),
    ...(handoff !== undefined ? { handoff: { receipt_id: handoff.receiptId, reason: handoff.reason, since: handoff.since } } : {}),
  };
}

/** action_wait for a question or handoff: keeps waiting for its final answer (a brake answers at once); undefined when the id is not one. */
export function questionHandoffWait(
  deps: QuestionHandoffDeps,
  session: AgentSession,
  args: ActionWaitArgs,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<QuestionHandoffAnswer> | undefined {
  const flow = session.questionsHandoffs.get(args.receipt_id);
  if (flow?.pending === undefined) return undefined;
  const pending = flow.pending;
  let early = false;
  return firstAnswer<QuestionHandoffAnswer>(deps, flow.done, braked, progress, args.timeout_ms ?? 45_000, (e): QuestionHandoffAnswer => {
    early = true;
    // What the flow knows now: still waiting, or answered by a brake.
    const outcome = e.kind === 'timeout' ? { outcome: 'pending' as const } : { outcome: 'refused' as const, refusal: e.info };
    return pending.kind === 'question'
      ? { receipt_id: pending.receipt_id, kind: 'question', ...outcome }
      : { receipt_id: pending.receipt_id, kind: 'handoff', ...outcome };
  }).then((answer) => {
    if (!early) session.questionsHandoffs.delete(args.receipt_id);
    return answer;
  });
}
