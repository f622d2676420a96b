import { randomBytes } from 'node:crypto';
import {
  OverseerError,
  VIEW_ONLY_ACTIONS,
  errorInfo,
  fail,
  type ActionWaitArgs,
  type Decision,
  type ElementActArgs,
  type ElementRef,
  type ErrorInfo,
  type HelperActResult,
  type PendingApproval,
  type Receipt,
  type WindowInfo,
} from '../../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { HelperCaller } from '../helperSupervisor.js';
import type { ApprovalOutcome, ApprovalQueue } from '../supervision/approvals.js';
import { ApprovalQueue as Queue, riskHints } from '../supervision/approvals.js';
import type { Brakes } from '../supervision/brakes.js';
import type { HoldList } from '../supervision/holds.js';
import type { Policy } from '../supervision/policy.js';
import type { ActFlow, AgentSession } from './agentSession.js';

/** What element_act needs from the supervisor. */
export interface ActDeps {
  helper: HelperCaller;
  approvals: ApprovalQueue;
  holds: HoldList;
  brakes: Brakes;
  policy: Policy;
  clock: Clock;
  settings: () => { approval_expiry_s: number; approval_wait_ms: number };
  /** How often a waiting call sends MCP progress (default 5 s). */
  progressIntervalMs?: number;
  /** Journals approval events (before anything is answered). */
  journalEvent: (record: { kind: 'approval_pending' | 'approval_resolved'; [k: string]: unknown }) => Promise<void>;
  /** Journals a final receipt that no agent call is waiting for. */
  journalFinal: (session: AgentSession, receipt: Receipt) => Promise<void>;
  /** Told after every dispatch, so what the person sees of that window is read again. */
  onDispatched?: (window: WindowInfo) => void;
}

/** Progress callback while an act waits (MCP progress notifications). */
export type Progress = (progress: number, total: number | undefined, message: string) => void;

const MASK = '••••••';
/**
 * Most element_acts of one agent waiting for a person at once. An agent that floods the queue
 * would bury the card the person is looking for, and every change re-sends the whole queue to
 * every UI; past the bound it is told to wait for the decisions it has.
 */
export const MAX_WAITING_PER_AGENT = 16;

/** A receipt carries set_value text only once the target is known (masked for a password field, then). */
function base(receiptId: string, args: ElementActArgs): Receipt {
  return {
    receipt_id: receiptId,
    action: args.action,
    outcome: 'refused',
    action_call_made: false,
    verification: 'not_checked',
    after_read: { status: 'unavailable' },
  };
}

function refused(r: Receipt, refusal: ErrorInfo, decision?: Decision): Receipt {
  return { ...r, outcome: 'refused', refusal, ...(decision !== undefined ? { decision } : {}) };
}

/** The helper's receipt as the agent's, with id and decision. */
function fromHelper(receiptId: string, h: HelperActResult, decision?: Decision): Receipt {
  const { element_ref: _ref, rebound: _rebound, ...rest } = h;
  return { ...rest, receipt_id: receiptId, ...(decision !== undefined ? { decision } : {}) };
}

/** What the agent is told when a brake answers its call while the act is in `phase`. */
function brakedReceipt(r: Receipt, phase: ActFlow['phase'], info: ErrorInfo, at: string): Receipt {
  if (phase === 'dispatching')
    return { ...r, outcome: 'unknown', action_call_made: 'unknown', error: info, decision: r.decision ?? { verdict: 'braked', by: 'human', at } };
  return refused(r, info, { verdict: 'braked', by: 'human', at, note: info.detail });
}

/** Refusal code and decision of an approval that did not end in approval. */
function notApproved(outcome: ApprovalOutcome): ErrorInfo {
  const d = outcome.decision;
  const code = d.verdict === 'denied' ? 'denied' : d.verdict === 'expired' ? 'expired' : d.verdict === 'withdrawn' ? 'withdrawn' : 'braked';
  return errorInfo(code, d.note ?? `the action was ${d.verdict}`);
}

/**
 * element_act, in the order of docs/supervision.md#order-of-checks: resolve and check the target (no dispatch); policy deny; brakes
 * (a stop refuses every act); ask a person for mutating actions; wait while paused (listed as held);
 * then dispatch the exact thing approved — the helper re-checks process, window, identity, digest
 * and the state the card showed right before the call. Nothing is retried blindly. An emergency
 * stop (`braked`) answers the call at once, whatever its phase.
 */
export async function elementAct(
  deps: ActDeps,
  session: AgentSession,
  args: ElementActArgs,
  signal: AbortSignal,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<Receipt> {
  const receiptId = `R${randomBytes(9).toString('base64url')}`;
  const r = base(receiptId, args);
  const stamp = (): string => deps.approvals.stamp();
  const entry: ActFlow = { done: Promise.resolve(r), current: r, phase: 'checking' };
  const flow = (async (): Promise<Receipt> => {
    let bound: ElementRef | undefined;
    let observationId: string | undefined;
    if (args.target !== undefined) {
      try {
        ({ ref: bound, observationId } = session.targets.resolve(args.target));
      } catch (error) {
        if (error instanceof OverseerError) return refused(r, error.info);
        throw error;
      }
    }
    const check = await deps.helper.call(
      'element_act',
      {
        ...(bound !== undefined ? { element: bound } : { selector: args.selector, ...(args.window !== undefined ? { window: args.window } : {}) }),
        action: args.action,
        ...(args.text !== undefined ? { text: args.text } : {}),
        ...(args.rebind === true ? { rebind: true } : {}),
        check_only: true,
      },
      { signal, timeoutMs: 20_000 },
    );
    const password = check.target?.state.password === true;
    if (check.target !== undefined && args.text !== undefined) r.text = password ? MASK : args.text;
    if (check.outcome === 'refused' || check.element_ref === undefined || check.target === undefined || check.window === undefined) {
      const { text: _text, ...answer } = fromHelper(receiptId, check);
      return { ...answer, ...(r.text !== undefined ? { text: r.text } : {}) };
    }
    const { target, window } = check;
    const ref = check.element_ref;
    Object.assign(r, { target, window });

    const verdict = deps.policy.decide(session.id, args.action, window.app, ref.key);
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
    // Read through a function: the session can end while this flow awaits.
    const ended = (): string | undefined => session.ended;
    if (ended() !== undefined)
      return refused(r, errorInfo('withdrawn', `the agent went away (${ended()})`), { verdict: 'withdrawn', by: 'policy', at: stamp() });

    const mutating = !VIEW_ONLY_ACTIONS.has(args.action);
    let decision: Decision = {
      verdict: 'auto',
      by: 'policy',
      at: stamp(),
      ...(verdict.kind === 'auto' && verdict.rule !== undefined ? { note: `rule ${verdict.rule}` } : {}),
    };
    const item = approvalItem(deps, session, receiptId, args, r, ref);
    if (verdict.kind === 'ask') {
      // Bounded per agent, counted before the first await, so a burst cannot slip past the bound.
      if (session.waitingForPerson >= MAX_WAITING_PER_AGENT)
        return refused(
          r,
          errorInfo(
            'denied',
            `${MAX_WAITING_PER_AGENT} actions of this agent already wait for a person; wait for their decisions (action_wait) before asking for more`,
            { limit: MAX_WAITING_PER_AGENT },
          ),
          { verdict: 'denied', by: 'policy', at: stamp(), note: 'too many actions waiting for a person' },
        );
      entry.phase = 'asking';
      session.waitingForPerson++;
      let outcome: ApprovalOutcome;
      try {
        outcome = await askPerson(deps, item);
      } finally {
        session.waitingForPerson--;
      }
      decision = outcome.decision;
      if (decision.verdict !== 'approved') return refused(r, notApproved(outcome), decision);
    }
    r.decision = decision;

    entry.phase = 'held';
    const hold = await deps.holds.hold({ ...item, decision });
    if (hold.kind === 'refused')
      return refused(r, hold.refusal, hold.decision ?? { verdict: hold.refusal.code === 'withdrawn' ? 'withdrawn' : 'braked', by: 'human', at: stamp() });
    if (deps.brakes.refusing)
      return refused(r, errorInfo('braked', 'a brake engaged before dispatch', { brake: deps.brakes.state }), { verdict: 'braked', by: 'human', at: stamp() });
    if (ended() !== undefined)
      return refused(r, errorInfo('withdrawn', `the agent went away before dispatch (${ended()})`), { verdict: 'withdrawn', by: 'policy', at: stamp() });

    // A person's approval binds the state the card showed; an automatic decision binds identity only.
    const { shown: _shown, ...identity } = ref;
    const dispatchRef: ElementRef = decision.verdict === 'approved' ? ref : identity;
    entry.phase = 'dispatching';
    let done: HelperActResult;
    try {
      done = await deps.helper.call(
        'element_act',
        { element: dispatchRef, action: args.action, ...(args.text !== undefined ? { text: args.text } : {}) },
        { timeoutMs: 30_000 },
      );
    } catch (error) {
      // The helper died or stopped answering after dispatch may have begun: never retried, never guessed.
      const info = error instanceof OverseerError ? error.info : errorInfo('internal', 'the dispatch failed');
      return { ...r, outcome: 'unknown', action_call_made: 'unknown', error: info };
    } finally {
      deps.onDispatched?.(window);
    }
    if (mutating && observationId !== undefined) session.targets.spend(observationId);
    const final = fromHelper(receiptId, done, decision);
    if (password && final.text !== undefined) final.text = MASK;
    return final;
  })();
  // The race is registered before the journaling below, so whichever answers first is known to it.
  const first = firstAnswer(deps, flow, braked, progress, deps.settings().approval_wait_ms, (early) => {
    entry.pending = early.kind === 'timeout' ? { ...r, outcome: 'pending' } : brakedReceipt(r, entry.phase, early.info, stamp());
    return entry.pending;
  });
  entry.done = flow.then(
    async (final) => {
      entry.phase = 'done';
      // Answered before the flow ended: the final receipt is journaled on its own, and kept for action_wait.
      if (entry.pending !== undefined) await deps.journalFinal(session, final);
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

/** What answers a waiting call first: the final receipt, the wait's end, or a brake. */
type Early = { kind: 'timeout' } | { kind: 'braked'; info: ErrorInfo };

/**
 * Resolves with the flow's final receipt, or — when the wait ends or a brake answers first — with
 * `onEarly`'s receipt, decided synchronously so that nothing can slip between the two. Sends MCP
 * progress every interval while it waits.
 */
function firstAnswer(
  deps: Pick<ActDeps, 'clock' | 'progressIntervalMs'>,
  flow: Promise<Receipt>,
  braked: Promise<ErrorInfo>,
  progress: Progress | undefined,
  waitMs: number,
  onEarly: (early: Early) => Receipt,
): Promise<Receipt> {
  const { clock } = deps;
  const started = clock.now();
  return new Promise<Receipt>((resolve, reject) => {
    let settled = false;
    const tick =
      progress === undefined
        ? undefined
        : clock.setInterval(() => progress(clock.now() - started, waitMs, 'waiting for a person to approve'), deps.progressIntervalMs ?? 5000);
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

/** The card a person decides on: the exact action, arguments and element as checked. */
function approvalItem(deps: ActDeps, session: AgentSession, receiptId: string, args: ElementActArgs, r: Receipt, ref: ElementRef): PendingApproval {
  const target = r.target;
  const window = r.window;
  if (target === undefined || window === undefined) throw fail('internal', 'approval without a target');
  const expiryMs = deps.settings().approval_expiry_s * 1000;
  const password = target.state.password === true;
  const created = deps.clock.now();
  const item: PendingApproval = {
    approval_id: Queue.newId(),
    receipt_id: receiptId,
    session: session.id,
    agent: session.client,
    action: args.action,
    password,
    target,
    ancestor_path: ref.ancestors ?? [],
    window,
    created_at: new Date(created).toISOString(),
    expires_at: new Date(created + expiryMs).toISOString(),
    risk_hints: riskHints([target.name, password ? undefined : args.text, ...(ref.ancestors ?? []), window.title]),
  };
  if (r.text !== undefined) item.text = r.text;
  if (!password && target.value !== undefined) item.current_value = target.value;
  return item;
}

/** Queues the exact thing for a person and journals the request and its resolution. */
async function askPerson(deps: ActDeps, item: PendingApproval): Promise<ApprovalOutcome> {
  const expiryMs = Date.parse(item.expires_at) - Date.parse(item.created_at);
  const { target, window } = item;
  await deps.journalEvent({
    kind: 'approval_pending',
    approval_id: item.approval_id,
    receipt_id: item.receipt_id,
    session: item.session,
    agent: item.agent,
    action: item.action,
    target: { key: target.key, role: target.role, name: target.name ?? null },
    app: window.app,
    pid: window.pid,
    expires_at: item.expires_at,
  });
  const outcome = await deps.approvals.request(item, expiryMs);
  await deps.journalEvent({
    kind: 'approval_resolved',
    approval_id: item.approval_id,
    receipt_id: item.receipt_id,
    verdict: outcome.decision.verdict,
    by: outcome.decision.by,
    ...(outcome.decision.note !== undefined ? { note: outcome.decision.note } : {}),
    ...(outcome.allow !== undefined ? { allow_for_session: outcome.allow } : {}),
  });
  return outcome;
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
