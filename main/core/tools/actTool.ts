import { randomBytes } from 'node:crypto';
import {
  MASKED_TEXT,
  OverseerError,
  SELECTION_HINT,
  VIEW_ONLY_ACTIONS,
  errorInfo,
  type Decision,
  type Element,
  type ElementActArgs,
  type ElementRef,
  type ErrorInfo,
  type HelperActResult,
  type ElementApproval,
  type Receipt,
} from '../../../protocol/index.js';
import { typedRiskHints } from '../supervision/riskHints.js';
import { changedBeyondView, viewMayChangeState } from '../supervision/viewOnly.js';
import type { AgentSession, Via } from '../session/agentSession.js';
import { bindTargets } from './readTools.js';
import { pictureOf } from './screenTools.js';
import { connectionRef, refused, supervise, type ActDeps, type Checked, type Progress } from './supervisedFlow.js';

export { MAX_WAITING_PER_AGENT, actionWait, type ActDeps, type Progress } from './supervisedFlow.js';

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

/** The helper's receipt as the agent's, with id and decision. */
function fromHelper(receiptId: string, h: HelperActResult, decision?: Decision): Receipt {
  const { element_ref: _ref, rebound: _rebound, candidate_refs: _candidates, ...rest } = h;
  return { ...rest, receipt_id: receiptId, ...(decision !== undefined ? { decision } : {}) };
}

/**
 * An ambiguous selector's candidates get target handles, as element_find's matches do when the
 * window is named (docs/tools.md#ambiguous-selectors): the agent can act on the one it means.
 */
function targetCandidates(session: AgentSession, connection: string, args: ElementActArgs, h: HelperActResult): void {
  const candidates = h.refusal?.code === 'ambiguous' ? h.refusal.data?.['candidates'] : undefined;
  if (args.window === undefined || h.window === undefined || h.candidate_refs === undefined || !Array.isArray(candidates)) return;
  bindTargets(session, connection, args.selector, h.window, candidates as Element[], h.candidate_refs);
}

/** The card picture of an element_act: the target window (supervisor and excluded apps masked) with the element outlined. */
async function windowPicture(deps: ActDeps, via: Via, item: ElementApproval, signal: AbortSignal): Promise<void> {
  try {
    const shot = await deps.helper.call('screen_capture', { window: item.window.window, ...CARD_PICTURE, keep: false }, { signal, timeoutMs: 5000, ...via });
    const picture = pictureOf(shot);
    const rect = item.target.rect;
    if (rect !== undefined) {
      const t = shot.transform;
      const x = Math.floor((rect.x - t.origin.x) / t.scale_x);
      const y = Math.floor((rect.y - t.origin.y) / t.scale_y);
      picture.outline = { x, y, w: Math.max(1, Math.ceil(rect.w / t.scale_x)), h: Math.max(1, Math.ceil(rect.h / t.scale_y)) };
    }
    item.picture = picture;
  } catch (error) {
    // The card still shows the element and its path; it says why there is no picture.
    item.picture_unavailable = error instanceof OverseerError ? `${error.code}: ${error.info.detail}`.slice(0, 500) : 'the screen could not be captured';
  }
}

/**
 * Size of an element card's picture: most windows 1:1 with the screen, so the card can show the
 * element at its own size and the viewer the whole window at full size (docs/supervision.md#card-pictures).
 * Bounded: a card is held in memory while it waits, and larger windows are downscaled to fit.
 */
const CARD_PICTURE = { max_width: 1920, max_height: 1200, format: 'jpeg', quality: 80 } as const;

/**
 * element_act, in the order of docs/supervision.md#order-of-checks: resolve and check the target
 * (no dispatch), then the supervised flow (policy, brakes, a person, holds); then dispatch the exact
 * thing approved — the helper re-checks process, window, identity, digest and the state the card
 * showed right before the call.
 */
export function elementAct(
  deps: ActDeps,
  session: AgentSession,
  args: ElementActArgs,
  signal: AbortSignal,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<Receipt> {
  const receiptId = `R${randomBytes(9).toString('base64url')}`;
  const r = base(receiptId, args);
  // Where the act goes is fixed when the call begins: the check, the card, its picture and the dispatch all go there.
  const via = session.via;
  const check = async (): Promise<Receipt | Checked<ElementApproval>> => {
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
    const checkedByHelper = await deps.helper.call(
      'element_act',
      {
        ...(bound !== undefined ? { element: bound } : { selector: args.selector, ...(args.window !== undefined ? { window: args.window } : {}) }),
        action: args.action,
        ...(args.text !== undefined ? { text: args.text } : {}),
        ...(args.rebind === true ? { rebind: true } : {}),
        check_only: true,
      },
      { signal, timeoutMs: 20_000, ...via },
    );
    const password = checkedByHelper.target?.state.password === true;
    if (checkedByHelper.target !== undefined && args.text !== undefined) r.text = password ? MASKED_TEXT : args.text;
    if (
      checkedByHelper.outcome === 'refused' ||
      checkedByHelper.element_ref === undefined ||
      checkedByHelper.target === undefined ||
      checkedByHelper.window === undefined
    ) {
      const { text: _text, ...answer } = fromHelper(receiptId, checkedByHelper);
      targetCandidates(session, via.connection, args, checkedByHelper);
      return { ...answer, ...(r.text !== undefined ? { text: r.text } : {}) };
    }
    const { target, window } = checkedByHelper;
    const ref = checkedByHelper.element_ref;
    Object.assign(r, { target, window });
    // A view-only action asks a person where it can change state (selection follows focus).
    const viewOnly = VIEW_ONLY_ACTIONS.has(args.action);
    const selects = viewOnly ? viewMayChangeState(target) : undefined;
    const mutating = !viewOnly || selects !== undefined;
    const card: Checked<ElementApproval>['card'] = {
      kind: 'element',
      receipt_id: receiptId,
      session: session.id,
      agent: session.client,
      action: args.action,
      password,
      target,
      ancestor_path: ref.ancestors ?? [],
      window,
      connection: connectionRef(deps, via.connection),
      risk_hints: [
        ...(selects !== undefined ? [SELECTION_HINT] : []),
        ...typedRiskHints(password ? undefined : args.text, [target.name, ...(ref.ancestors ?? []), window.title]),
      ],
    };
    if (r.text !== undefined) card.text = r.text;
    if (!password && target.value !== undefined) card.current_value = target.value;
    // How it will run where the element's own interface cannot carry it (typed): the person decides knowing it.
    if (checkedByHelper.method !== undefined) card.method = checkedByHelper.method;
    return {
      action: args.action,
      app: window.app,
      element: ref.key,
      mutating,
      card,
      journal: {
        target: { key: target.key, role: target.role, name: target.name ?? null },
        app: window.app,
        pid: window.pid,
        connection: connectionRef(deps, via.connection),
      },
      enrich: (item) => windowPicture(deps, via, item, signal),
      async dispatch(decision) {
        // A person's approval binds the state the card showed; an automatic decision binds identity only.
        const { shown: _shown, ...identity } = ref;
        const dispatchRef: ElementRef = decision.verdict === 'approved' ? ref : identity;
        let done: HelperActResult;
        const ended = deps.onDispatching?.(window);
        try {
          done = await deps.helper.call(
            'element_act',
            { element: dispatchRef, action: args.action, ...(args.text !== undefined ? { text: args.text } : {}) },
            // In the agent's scope but in no lane: a decided action never waits behind the agent's own reads.
            { timeoutMs: 30_000, scope: via.scope, connection: via.connection },
          );
        } catch (error) {
          // The helper died or stopped answering after dispatch may have begun: never retried, never guessed.
          const info = error instanceof OverseerError ? error.info : errorInfo('internal', 'the dispatch failed');
          return { ...r, outcome: 'unknown', action_call_made: 'unknown', error: info };
        } finally {
          ended?.();
        }
        if (mutating && observationId !== undefined) session.targets.spend(observationId);
        const final = fromHelper(receiptId, done, decision);
        if (password && final.text !== undefined) final.text = MASKED_TEXT;
        // What ran without a person is read back: a view that changed more than the view says so.
        if (viewOnly && decision.verdict === 'auto') {
          const changed = changedBeyondView(final.target, final.after);
          if (changed.length > 0) final.changed_state = changed;
        }
        return final;
      },
    };
  };
  return supervise(deps, session, r, check, progress, braked, signal, { tool: 'element_act', connection: via.connection });
}
