import {
  LOCAL_CONNECTION_NAME,
  RULE_SCOPE_HINT,
  type ConnectionRef,
  errorInfo,
  fail,
  type ActionWaitArgs,
  type AnyAction,
  type Decision,
  type ElementApproval,
  type ErrorInfo,
  type OmitEach,
  type ScreenApproval,
  type ScreenToolName,
  type Receipt,
  type WindowInfo,
} from '../../../protocol/index.js';
import type { LandingGuard } from '../supervision/landingGuard.js';
import type { Clock } from '../runtime/clock.js';
import type { AllowScope, ApprovalOutcome, ApprovalQueue, RuleSubject, WithdrawReason } from '../supervision/approvals.js';
import { ApprovalQueue as Queue } from '../supervision/approvals.js';
import { QUEUE_BOUNDS, type Admitted, type QueueAdmission } from '../supervision/admission.js';
import type { Brakes } from '../supervision/brakes.js';
import type { HandoffGate } from '../supervision/handoff.js';
import type { HoldList } from '../supervision/holds.js';
import type { Policy } from '../supervision/policy.js';
import type { HelperRouter } from '../connections/manager.js';
import { queueCard } from './personQueue.js';
import type { ActFlow, AgentSession } from '../session/agentSession.js';

/** What a supervised action needs from the supervisor. */
export interface ActDeps {
  /** Every call names its connection: the one the act was checked on, fixed when the call began. */
  helper: HelperRouter;
  /** Where a connection goes, for cards, receipts and the journal (local only, when not given). */
  connectionRef?: (name: string) => ConnectionRef;
  /** Why a connection cannot be used now (disabled, removed), checked again right before dispatch. */
  connectionRefusal?: (name: string) => ErrorInfo | undefined;
  /**
   * Which incarnation of a connection name is there now (manager.ts `tagOf`: the name, or `name~N`
   * after a removal and re-add or a change of where it goes); undefined when there is none.
   */
  connectionTag?: (name: string) => string | undefined;
  approvals: ApprovalQueue;
  holds: HoldList;
  brakes: Brakes;
  policy: Policy;
  /** Who may add to the person's queue (per session, per identity, in all). */
  admission: QueueAdmission;
  /** Handoffs to the person: while one lasts on a connection, every input on it waits (docs/supervision.md#questions-and-handoffs). */
  handoffs?: HandoffGate;
  clock: Clock;
  settings: () => { approval_expiry_s: number; approval_wait_ms: number };
  /** How often a waiting call sends MCP progress (default 5 s). */
  progressIntervalMs?: number;
  /** Journals approval events (before anything is answered). */
  journalEvent: (record: { kind: 'approval_pending' | 'approval_resolved'; [k: string]: unknown }) => Promise<void>;
  /** Journals a final receipt that no agent call is waiting for: the tool that made it, and the connection it acted on. */
  journalFinal: (session: AgentSession, receipt: Receipt, aim: ActAim) => Promise<void>;
  /** Told as a dispatch begins; what it answers is called once it ended, so what the person sees of that window is read again then. */
  onDispatching?: (window: WindowInfo) => () => void;
  /** Keeps the picture of the screen after a screen input for the timeline (base64 JPEG); answers its SHA-256. */
  keepPicture?: (receiptId: string, jpegBase64: string) => Promise<string>;
  /** Told around each screen input sent where windows have no known places, so the person's decisions meanwhile are held back. */
  landing?: LandingGuard;
}

/**
 * The reason a transport gives when it cancels a call because the connection that carried it closed
 * before its answer (docs/supervision.md#when-an-agent-has-gone): any other cancellation is the agent's own.
 */
export const CALL_DEPARTED = 'overseer: the connection that carried this call closed before it was answered';

/** Why a call whose signal was aborted is gone: its connection closed (or its session's transport), or the agent cancelled it. */
export function callGone(reason: unknown): { note: string; reason: WithdrawReason } {
  if (typeof reason === 'string' && reason !== CALL_DEPARTED) return { note: 'the agent cancelled this call', reason: 'call_cancelled' };
  return { note: 'agent disconnected: the connection of this call closed before it was answered', reason: 'agent_disconnected' };
}

/** Progress callback while an act waits (MCP progress notifications). */
export type Progress = (progress: number, total: number | undefined, message: string) => void;

/**
 * Most actions of one agent session waiting for a person at once (docs/supervision.md#bounds): an
 * agent that floods the queue would bury the card the person is looking for; past the bound it is
 * told to wait for the decisions it has. Identities and the whole queue have bounds too (`QUEUE_BOUNDS`).
 */
export const MAX_WAITING_PER_AGENT = QUEUE_BOUNDS.perSession;

/**
 * The refusal of an act whose connection name points elsewhere now than when the act was checked
 * (removed and added again, or changed where it goes), or undefined when it is the same desktop.
 */
export function changedSince(deps: Pick<ActDeps, 'connectionTag'>, connection: string, tag: string): ErrorInfo | undefined {
  const now = deps.connectionTag?.(connection) ?? connection;
  if (now === tag) return undefined;
  return errorInfo('connection_unavailable', `the connection "${connection}" was removed or changed since this was asked: nothing was sent`, {
    connection,
    reason: 'changed',
    hint: `ask again: it would go to "${connection}" as it is now`,
  });
}

/** Where a connection goes, as a card shows it. */
export function connectionRef(deps: Pick<ActDeps, 'connectionRef'>, name: string): ConnectionRef {
  return (
    deps.connectionRef?.(name) ?? {
      name,
      kind: name === LOCAL_CONNECTION_NAME ? 'local' : 'ssh',
      where: name === LOCAL_CONNECTION_NAME ? 'this desktop' : name,
    }
  );
}

export function refused(r: Receipt, refusal: ErrorInfo, decision?: Decision): Receipt {
  return { ...r, outcome: 'refused', refusal, ...(decision !== undefined ? { decision } : {}) };
}

/** What the agent is told when a brake answers its call while the act is in `phase`. */
function brakedReceipt(r: Receipt, phase: ActFlow['phase'], info: ErrorInfo, at: string): Receipt {
  // The same early answer ends a call whose agent left (DELETE): it is withdrawn by policy, not braked by a person.
  const stopped: Decision =
    info.code === 'withdrawn' ? { verdict: 'withdrawn', by: 'policy', at, note: info.detail } : { verdict: 'braked', by: 'human', at, note: info.detail };
  if (phase === 'dispatching') {
    const { note: _note, ...decision } = stopped;
    return { ...r, outcome: 'unknown', action_call_made: 'unknown', error: info, decision: r.decision ?? decision };
  }
  return refused(r, info, stopped);
}

/** The cards a changing action makes: element_act's, or a screen input's. */
export type ActCard = ElementApproval | ScreenApproval;

/** A card before the queue gives it its id and times. */
export type CardDraft<C extends ActCard> = OmitEach<C, 'approval_id' | 'created_at' | 'expires_at'>;

/** A checked action, ready for policy, brakes and a person: what it is, its card, and how to run exactly it. */
export interface Checked<C extends ActCard = ActCard> {
  /** What policy decides on: the action, the application and the element (or window) it lands on. */
  action: AnyAction;
  app: string;
  element: string;
  /** Needs a person unless a rule allows it. */
  mutating: boolean;
  /** The card a person decides on (approval_id, times and decision are filled in here). */
  card: CardDraft<C>;
  /** What the approval_pending journal record says of the target (no pictures, no password text). */
  journal: Record<string, unknown>;
  /**
   * Why a session rule of this scope cannot cover this action (keys or text that can leave what the
   * rule names: docs/supervision.md#rules-and-keys); undefined when it can.
   */
  outOfRule?(scope: AllowScope): string | undefined;
  /**
   * Runs exactly what was checked and approved; a helper failure after dispatch began answers
   * `unknown`. `rule` is the session rule that allowed it without a person: what it covers is all
   * the dispatch may reach.
   */
  dispatch(decision: Decision, rule?: { id: string; scope: AllowScope }): Promise<Receipt>;
  /** Adds what only a person needs to the card (a picture), once it is known a person will be asked. */
  enrich?(card: C): Promise<void>;
}

/** What a changing action is and where it goes: the tool the agent called, and the connection it is aimed at. */
export interface ActAim {
  tool: 'element_act' | ScreenToolName;
  connection: string;
}

/**
 * The supervised part of every changing action (docs/supervision.md#order-of-checks), after its
 * own checks: policy deny; brakes (a stop refuses every act); ask a person for mutating actions;
 * wait while paused (listed as held); then dispatch the exact thing approved. Nothing is retried
 * blindly. An emergency stop (`braked`) answers the call at once, whatever its phase. `check`
 * answers a refusal receipt, or the checked action; `r` is the receipt as known so far.
 */
export async function supervise(
  deps: ActDeps,
  session: AgentSession,
  r: Receipt,
  check: () => Promise<Receipt | Checked>,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
  signal: AbortSignal | undefined,
  aim: ActAim,
): Promise<Receipt> {
  const { connection } = aim;
  const receiptId = r.receipt_id;
  const stamp = (): string => deps.approvals.stamp();
  const entry: ActFlow = { done: Promise.resolve(r), current: r, phase: 'checking' };
  // The call left (its connection closed, or the agent cancelled it): its card or hold is withdrawn at once.
  let gone: { note: string; reason: WithdrawReason } | undefined;
  let waitingAs: string | undefined;
  const onAbort = (): void => {
    gone = callGone(signal?.reason);
    if (waitingAs !== undefined && !deps.approvals.withdraw(waitingAs, gone.note, gone.reason)) deps.holds.withdraw(waitingAs, gone.note, gone.reason);
  };
  if (signal?.aborted === true) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  // The desktop this act is aimed at, fixed now: a card, a rule and a held act are bound to it.
  const tag = deps.connectionTag?.(connection) ?? connection;
  const flow = (async (): Promise<Receipt> => {
    const handedOff = await waitForHandoff(deps, session, r, entry, connection);
    if (handedOff !== undefined) return handedOff;
    const checked = await check();
    if (!('dispatch' in checked)) return checked;
    let verdict = deps.policy.decide(
      { session: session.id, connection: tag, action: checked.action, app: checked.app, element: checked.element },
      checked.mutating,
    );
    // A rule covers only what stays where it reaches: anything else goes to the person, saying so.
    const beyondRule = verdict.kind === 'auto' && verdict.scope !== undefined ? checked.outOfRule?.(verdict.scope) : undefined;
    if (beyondRule !== undefined) {
      verdict = { kind: 'ask' };
      checked.card.risk_hints = [RULE_SCOPE_HINT, ...checked.card.risk_hints];
      checked.journal = { ...checked.journal, beyond_rule: beyondRule };
    }
    const rule = verdict.kind === 'auto' && verdict.rule !== undefined && verdict.scope !== undefined ? { id: verdict.rule, scope: verdict.scope } : undefined;
    if (verdict.kind === 'deny')
      return refused(r, errorInfo('denied', verdict.detail, { rule: verdict.rule }), { verdict: 'denied', by: 'policy', at: stamp(), note: verdict.detail });
    if (deps.brakes.refusing)
      return refused(
        r,
        errorInfo('braked', `the ${deps.brakes.state === 'emergency' ? 'emergency stop' : 'stop'} is engaged: no act runs until a person resumes`, {
          brake: deps.brakes.state,
        }),
        { verdict: 'braked', by: 'human', at: stamp() },
      );
    // Read through a function: the session can end, or the call leave, while this flow awaits.
    const ended = (): { note: string; reason: WithdrawReason } | undefined =>
      session.ended !== undefined ? { note: `agent disconnected (${session.ended})`, reason: 'agent_disconnected' } : gone;
    const left = ended();
    if (left !== undefined)
      return refused(r, errorInfo('withdrawn', left.note, { reason: left.reason }), { verdict: 'withdrawn', by: 'policy', at: stamp(), note: left.note });

    let decision: Decision = {
      verdict: 'auto',
      by: 'policy',
      at: stamp(),
      ...(verdict.kind === 'auto' && verdict.rule !== undefined ? { note: `rule ${verdict.rule}` } : {}),
    };
    const item = approvalItem(deps, checked);
    waitingAs = item.approval_id;
    const subject: RuleSubject = {
      connection: tag,
      action: checked.action,
      app: checked.app,
      element: checked.element,
      ...(checked.outOfRule !== undefined ? { outOfRule: (scope: AllowScope) => checked.outOfRule?.(scope) } : {}),
    };
    // What waits for the person — a card, or an approved action the pause holds — counts against the queue's bounds until it ends.
    let admitted: Admitted | undefined;
    const admit = (what: string): Receipt | undefined => {
      // Counted before the first await, so a burst cannot slip past the bound.
      const a = deps.admission.admit(session.id, session.identity);
      if (a.ok) {
        admitted = a;
        return undefined;
      }
      return refused(r, errorInfo('denied', a.detail, { limit: a.limit, reason: a.reason, waiting: a.waiting }), {
        verdict: 'denied',
        by: 'policy',
        at: stamp(),
        note: `${what}: ${a.reason.replaceAll('_', ' ')}`,
      });
    };
    try {
      if (verdict.kind === 'ask' && checked.mutating) {
        const refusal = admit('too many actions waiting for a person');
        if (refusal !== undefined) return refusal;
        entry.phase = 'asking';
        await checked.enrich?.(item);
        const outcome = await queueCard(deps, item, {
          journal: checked.journal,
          subject,
          gate: (): ApprovalOutcome | undefined => {
            if (deps.brakes.refusing)
              return {
                decision: {
                  verdict: 'braked',
                  by: 'human',
                  at: stamp(),
                  note: `the ${deps.brakes.state === 'emergency' ? 'emergency stop' : 'stop'} engaged before the card was shown`,
                },
              };
            const away = ended();
            if (away !== undefined) return { decision: { verdict: 'withdrawn', by: 'policy', at: stamp(), note: away.note }, withdrawn: away.reason };
            return undefined;
          },
        });
        decision = outcome.decision;
        if (decision.verdict !== 'approved') return refused(r, notApproved(outcome), decision);
      }
      r.decision = decision;

      entry.phase = 'held';
      if (deps.brakes.state === 'paused' && admitted === undefined) {
        const refusal = admit('too many actions held by the pause');
        if (refusal !== undefined) return refusal;
      }
      const hold = await deps.holds.hold({ ...item, decision });
      if (hold.kind === 'refused')
        return refused(r, hold.refusal, hold.decision ?? { verdict: hold.refusal.code === 'withdrawn' ? 'withdrawn' : 'braked', by: 'human', at: stamp() });
    } finally {
      admitted?.release();
    }
    if (deps.brakes.refusing)
      return refused(r, errorInfo('braked', 'a brake engaged before dispatch', { brake: deps.brakes.state }), { verdict: 'braked', by: 'human', at: stamp() });
    const away = ended();
    if (away !== undefined)
      return refused(r, errorInfo('withdrawn', `${away.note}, before dispatch`, { reason: away.reason }), {
        verdict: 'withdrawn',
        by: 'policy',
        at: stamp(),
        note: away.note,
      });
    // Disabled, removed, or now another desktop of the same name while the card waited or the pause
    // held it: refused, as nothing was sent (never re-aimed elsewhere).
    const unusable = deps.connectionRefusal?.(connection) ?? changedSince(deps, connection, tag);
    if (unusable !== undefined) return refused(r, unusable, decision);
    entry.phase = 'dispatching';
    return checked.dispatch(decision, decision.verdict === 'auto' ? rule : undefined);
  })();
  // The race is registered before the journaling below, so whichever answers first is known to it.
  const first = firstAnswer(deps, flow, braked, progress, deps.settings().approval_wait_ms, (early) => {
    entry.pending = early.kind === 'timeout' ? { ...r, outcome: 'pending' } : brakedReceipt(r, entry.phase, early.info, stamp());
    return entry.pending;
  });
  void flow.finally(() => signal?.removeEventListener('abort', onAbort)).catch(() => {});
  entry.done = flow.then(
    async (final) => {
      entry.phase = 'done';
      // Answered before the flow ended: the final receipt is journaled on its own, and kept for action_wait.
      if (entry.pending !== undefined) await deps.journalFinal(session, final, aim);
      else session.acts.delete(receiptId);
      return final;
    },
    (error: unknown) => {
      entry.phase = 'done';
      if (entry.pending === undefined) session.acts.delete(receiptId);
      throw error;
    },
  );
  entry.done.catch(() => {});
  session.acts.set(receiptId, entry);
  return first;
}

/**
 * While the desktop is handed to the person, an input waits before it is even checked (what it
 * would act on may change under the person's hands), counted against the queue's bounds like an
 * action the pause holds. Answers a refusal when it may never run; undefined when it goes on.
 */
async function waitForHandoff(deps: ActDeps, session: AgentSession, r: Receipt, entry: ActFlow, connection: string): Promise<Receipt | undefined> {
  const gate = deps.handoffs;
  // Handoffs are per connection: the person holding one desktop holds inputs bound for it alone.
  if (gate === undefined || !gate.handedOff(connection)) return undefined;
  const admitted = deps.admission.admit(session.id, session.identity);
  if (!admitted.ok)
    return refused(r, errorInfo('denied', admitted.detail, { limit: admitted.limit, reason: admitted.reason, waiting: admitted.waiting }), {
      verdict: 'denied',
      by: 'policy',
      at: deps.approvals.stamp(),
      note: `too many inputs held by the handoff: ${admitted.reason.replaceAll('_', ' ')}`,
    });
  entry.phase = 'held';
  try {
    const end = await gate.wait({ receiptId: r.receipt_id, session: session.id, connection, action: r.action });
    if (end?.kind === 'withdrawn')
      return refused(r, errorInfo('withdrawn', end.note), { verdict: 'withdrawn', by: 'policy', at: deps.approvals.stamp(), note: end.note });
    return undefined;
  } finally {
    admitted.release();
    entry.phase = 'checking';
  }
}

/** Refusal code and decision of an approval that did not end in approval. */
function notApproved(outcome: ApprovalOutcome): ErrorInfo {
  const d = outcome.decision;
  const code = d.verdict === 'denied' ? 'denied' : d.verdict === 'expired' ? 'expired' : d.verdict === 'withdrawn' ? 'withdrawn' : 'braked';
  if (code === 'withdrawn') return errorInfo(code, d.note ?? 'the agent went away', { reason: outcome.withdrawn ?? 'agent_disconnected' });
  return errorInfo(code, d.note ?? `the action was ${d.verdict}`);
}

/** What answers a waiting call first: the final receipt, the wait's end, or a brake. */
export type Early = { kind: 'timeout' } | { kind: 'braked'; info: ErrorInfo };

/**
 * Resolves with the flow's final receipt, or — when the wait ends or a brake answers first — with
 * `onEarly`'s receipt, decided synchronously so that nothing can slip between the two. Sends MCP
 * progress every interval while it waits.
 */
export function firstAnswer<T>(
  deps: Pick<ActDeps, 'clock' | 'progressIntervalMs'>,
  flow: Promise<T>,
  braked: Promise<ErrorInfo>,
  progress: Progress | undefined,
  waitMs: number,
  onEarly: (early: Early) => T,
  waitingFor = 'waiting for a person to approve',
): Promise<T> {
  const { clock } = deps;
  const started = clock.now();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const tick =
      progress === undefined ? undefined : clock.setInterval(() => progress(clock.now() - started, waitMs, waitingFor), deps.progressIntervalMs ?? 5000);
    const end = (): boolean => {
      if (settled) return false;
      settled = true;
      clock.clearTimeout(timer);
      clock.clearInterval(tick);
      return true;
    };
    const timer = clock.setTimeout(() => end() && resolve(onEarly({ kind: 'timeout' })), waitMs);
    flow.then(
      (final) => end() && resolve(final),
      (error: unknown) => end() && reject(error instanceof Error ? error : new Error(String(error))),
    );
    void braked.then((info) => end() && resolve(onEarly({ kind: 'braked', info })));
  });
}

/** The card with its id and times. */
function approvalItem(deps: ActDeps, checked: Checked): ActCard {
  const expiryMs = deps.settings().approval_expiry_s * 1000;
  const created = deps.clock.now();
  return {
    ...checked.card,
    approval_id: Queue.newId(),
    created_at: new Date(created).toISOString(),
    expires_at: new Date(created + expiryMs).toISOString(),
  };
}

/** action_wait: keeps waiting for a pending act's final receipt (a brake answers it at once). */
export async function actionWait(
  deps: Pick<ActDeps, 'clock' | 'progressIntervalMs' | 'approvals'>,
  session: AgentSession,
  args: ActionWaitArgs,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<Receipt> {
  const flow = session.acts.get(args.receipt_id);
  if (flow === undefined || flow.pending === undefined)
    throw fail(
      'snapshot_unknown',
      `no pending action with receipt_id ${args.receipt_id} for this agent (it was never issued, or its final receipt was already given)`,
    );
  let early = false;
  const answer = await firstAnswer(deps, flow.done, braked, progress, args.timeout_ms ?? 45_000, (e) => {
    early = true;
    // What the flow knows now (a person may have decided since the first answer), never more.
    const now: Receipt = { ...flow.current, outcome: 'pending' };
    return e.kind === 'timeout' ? now : brakedReceipt(now, flow.phase, e.info, deps.approvals.stamp());
  });
  if (!early) session.acts.delete(args.receipt_id);
  return answer;
}
