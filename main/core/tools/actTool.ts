import { randomBytes } from 'node:crypto';
import { OverseerError, VIEW_ONLY_ACTIONS, errorInfo, fail, type ActionWaitArgs, type Decision, type ElementActArgs, type ElementRef, type ErrorInfo, type HelperActResult, type PendingApproval, type Receipt } from '../../../protocol/index.js';
import type { HelperSupervisor } from '../helperSupervisor.js';
import type { ApprovalOutcome, ApprovalQueue } from '../supervision/approvals.js';
import { ApprovalQueue as Queue, riskHints } from '../supervision/approvals.js';
import type { Brakes } from '../supervision/brakes.js';
import type { Policy } from '../supervision/policy.js';
import type { AgentSession } from './agentSession.js';

/** What element_act needs from the supervisor. */
export interface ActDeps {
  helper: HelperSupervisor;
  approvals: ApprovalQueue;
  brakes: Brakes;
  policy: Policy;
  settings: () => { approval_expiry_s: number; approval_wait_ms: number };
  /** Journals approval events (before anything is answered). */
  journalEvent: (record: { kind: 'approval_pending' | 'approval_resolved'; [k: string]: unknown }) => Promise<void>;
  /** Journals a final receipt that no agent call is waiting for. */
  journalFinal: (session: AgentSession, receipt: Receipt) => Promise<void>;
}

/** Progress callback while an act waits (MCP progress notifications). */
export type Progress = (progress: number, total: number | undefined, message: string) => void;

const MASK = '••••••';
const now = (): string => new Date().toISOString();

function base(receiptId: string, args: ElementActArgs): Receipt {
  const r: Receipt = { receipt_id: receiptId, action: args.action, outcome: 'refused', action_call_made: false, verification: 'not_checked', after_read: { status: 'unavailable' } };
  if (args.text !== undefined) r.text = args.text;
  return r;
}

function refused(r: Receipt, refusal: ErrorInfo, decision?: Decision): Receipt {
  return { ...r, outcome: 'refused', refusal, ...(decision !== undefined ? { decision } : {}) };
}

/** The helper's receipt as the agent's, with id and decision. */
function fromHelper(receiptId: string, h: HelperActResult, decision?: Decision): Receipt {
  const { element_ref: _ref, rebound: _rebound, ...rest } = h;
  return { ...rest, receipt_id: receiptId, ...(decision !== undefined ? { decision } : {}) };
}

/** Waits for a promise at most `ms`; undefined on timeout. Sends progress every 5 s. */
async function within<T>(p: Promise<T>, ms: number, progress?: Progress): Promise<T | undefined> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = progress === undefined ? undefined : setInterval(() => progress(Date.now() - started, ms, 'waiting for a person to approve'), 5000);
  try {
    return await Promise.race([p, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (tick !== undefined) clearInterval(tick);
  }
}

/**
 * element_act: resolve and check the target (no dispatch), apply policy and brakes, ask a person
 * for mutating actions, then dispatch the exact thing approved — the helper re-checks process,
 * window, identity and digest right before the call. Nothing is retried blindly.
 */
export async function elementAct(deps: ActDeps, session: AgentSession, args: ElementActArgs, signal: AbortSignal, progress?: Progress): Promise<Receipt> {
  const receiptId = `R${randomBytes(9).toString('base64url')}`;
  const r = base(receiptId, args);
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
    { ...(bound !== undefined ? { element: bound } : { selector: args.selector, ...(args.window !== undefined ? { window: args.window } : {}) }), action: args.action, ...(args.text !== undefined ? { text: args.text } : {}), ...(args.rebind === true ? { rebind: true } : {}), check_only: true },
    { signal, timeoutMs: 20_000 },
  );
  const password = check.target?.state.password === true;
  if (password && r.text !== undefined) r.text = MASK;
  if (check.outcome === 'refused' || check.element_ref === undefined || check.target === undefined || check.window === undefined) return { ...fromHelper(receiptId, check), ...(r.text !== undefined ? { text: r.text } : {}) };
  const target = check.target;
  const window = check.window;
  const ref = check.element_ref;
  Object.assign(r, { target, window });
  const verdict = deps.policy.decide(session.id, args.action, window.app, ref.key);
  if (verdict.kind === 'deny') return refused(r, errorInfo('denied', verdict.detail, { rule: verdict.rule }), { verdict: 'denied', by: 'policy', at: now(), note: verdict.detail });
  const mutating = !VIEW_ONLY_ACTIONS.has(args.action);
  if (mutating && deps.brakes.refusing) return refused(r, errorInfo('braked', `the ${deps.brakes.state} brake is engaged`), { verdict: 'braked', by: 'human', at: now() });

  const flow = (async (): Promise<Receipt> => {
    let decision: Decision = { verdict: 'auto', by: 'policy', at: now(), ...(verdict.kind === 'auto' && verdict.rule !== undefined ? { note: `rule ${verdict.rule}` } : {}) };
    if (verdict.kind === 'ask') {
      const outcome = await askPerson(deps, session, receiptId, args, r, ref);
      decision = outcome.decision;
      if (decision.verdict !== 'approved') return refused(r, errorInfo(decision.verdict === 'denied' ? 'denied' : decision.verdict === 'expired' ? 'expired' : 'braked', decision.note ?? `the action was ${decision.verdict}`), decision);
      if (outcome.allowForSession) deps.policy.allowForSession(session.id, args.action, window.app, ref.key);
    }
    await deps.brakes.whilePaused();
    if (mutating && deps.brakes.refusing) return refused(r, errorInfo('braked', `the ${deps.brakes.state} brake engaged before dispatch`), { verdict: 'braked', by: 'human', at: now() });
    let done: HelperActResult;
    try {
      done = await deps.helper.call('element_act', { element: ref, action: args.action, ...(args.text !== undefined ? { text: args.text } : {}) }, { timeoutMs: 30_000 });
    } catch (error) {
      // The helper died or stopped answering after dispatch may have begun: never retried, never guessed.
      const info = error instanceof OverseerError ? error.info : errorInfo('internal', 'the dispatch failed');
      return { ...r, decision, outcome: 'unknown', action_call_made: 'unknown', error: info };
    }
    if (mutating && observationId !== undefined) session.targets.spend(observationId);
    const final = fromHelper(receiptId, done, decision);
    if (password && final.text !== undefined) final.text = MASK;
    return final;
  })();
  const tracked = flow.then(async (final) => {
    if (session.acts.get(receiptId)?.pending !== undefined) await deps.journalFinal(session, final);
    return final;
  });
  session.acts.set(receiptId, { done: tracked });
  const first = await within(flow, deps.settings().approval_wait_ms, progress);
  if (first !== undefined) {
    session.acts.delete(receiptId);
    return first;
  }
  const pending: Receipt = { ...r, outcome: 'pending' };
  const entry = session.acts.get(receiptId);
  if (entry !== undefined) entry.pending = pending;
  return pending;
}

/** Queues the exact thing for a person and journals the request and its resolution. */
async function askPerson(deps: ActDeps, session: AgentSession, receiptId: string, args: ElementActArgs, r: Receipt, ref: ElementRef): Promise<ApprovalOutcome> {
  const target = r.target;
  const window = r.window;
  if (target === undefined || window === undefined) throw fail('internal', 'approval without a target');
  const expiryMs = deps.settings().approval_expiry_s * 1000;
  const password = target.state.password === true;
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
    created_at: now(),
    expires_at: new Date(Date.now() + expiryMs).toISOString(),
    risk_hints: riskHints([target.name, password ? undefined : args.text, ...(ref.ancestors ?? []), window.title]),
  };
  if (r.text !== undefined) item.text = r.text;
  if (!password && target.value !== undefined) item.current_value = target.value;
  await deps.journalEvent({ kind: 'approval_pending', approval_id: item.approval_id, receipt_id: receiptId, session: session.id, agent: session.client, action: args.action, target: { key: target.key, role: target.role, name: target.name ?? null }, app: window.app, pid: window.pid, expires_at: item.expires_at });
  const outcome = await deps.approvals.request(item, expiryMs);
  await deps.journalEvent({ kind: 'approval_resolved', approval_id: item.approval_id, receipt_id: receiptId, verdict: outcome.decision.verdict, by: outcome.decision.by, ...(outcome.decision.note !== undefined ? { note: outcome.decision.note } : {}), allow_for_session: outcome.allowForSession });
  return outcome;
}

/** action_wait: keeps waiting for a pending act's final receipt. */
export async function actionWait(session: AgentSession, args: ActionWaitArgs, progress?: Progress): Promise<Receipt> {
  const flow = session.acts.get(args.receipt_id);
  if (flow === undefined) throw fail('snapshot_unknown', `no pending action with receipt_id ${args.receipt_id} for this agent`);
  const final = await within(flow.done, args.timeout_ms ?? 45_000, progress);
  if (final === undefined) return flow.pending ?? { receipt_id: args.receipt_id, action: 'invoke', outcome: 'pending', action_call_made: false, verification: 'not_checked', after_read: { status: 'unavailable' } };
  session.acts.delete(args.receipt_id);
  return final;
}
