import { useCallback } from 'react';
import type { PolicyRule } from '../../../protocol/index.js';
import { armKey, wholeOnScreen } from '../../model/arming.js';
import { QUEUE_NOTE, type Aim } from '../../store/approvalsSlice.js';
import { appStore } from '../../store/useApp.js';
import { describeError, useApi } from '../shell/apiContext.js';

/**
 * A person's decision on one card. `allow` is the confirmed second step of "allow for this session";
 * `also` names the queued cards the person saw listed there and approves with it.
 */
export type Decision = { kind: 'approve' } | { kind: 'allow'; scope: 'element' | 'app'; also?: readonly string[] } | { kind: 'deny'; reason?: string };

/** Where the "Not decided" note for an aim goes: beside the confirm button when it was aimed at, else on the card. */
const noteTarget = (id: string, aim: Aim): string => (aim.via === 'pointer' && aim.key === armKey.confirm(id) ? aim.key : id);

/**
 * Checks an aim at a card (a click on one of its controls, or a key at the selected card): true
 * when it may act now (`approving`: approve it now, which a command's unread end prevents); otherwise the reason appears next to what was aimed at and nothing is sent.
 * A key aimed at a card that is not (90%) on screen is refused on the queue's own line, which
 * stays in view, and the card is brought into view to be read
 * (docs/supervision.md#arming-and-decisions).
 */
export function mayAct(id: string, aim: Aim, approving = false): boolean {
  const s = appStore.getState();
  const now = Date.now();
  // Approving asks more of some cards (a command must have been read to its end); denying never does.
  const why = approving ? s.whyNotApprove(id, aim, now) : s.whyNot(id, aim, now);
  if (why === undefined) return true;
  const seen = s.seen[armKey.card(id)];
  if (aim.via === 'key' && s.selectedApproval === id && !wholeOnScreen(seen)) {
    const share = seen === undefined ? 0 : Math.floor(seen.visible * 100);
    s.refuse(QUEUE_NOTE, `Not decided: only ${share}% of the selected card was on screen — it is shown now; read it, then decide.`, now);
    document.querySelector(`[data-arm-key="${CSS.escape(armKey.card(id))}"]`)?.scrollIntoView({ block: 'nearest' });
    return false;
  }
  s.refuse(noteTarget(id, aim), why, now);
  return false;
}

/**
 * Sends a decision, or says why not. The card leaves a placeholder at once (nothing below it
 * moves), the selection moves to the next card, and the placeholder follows the decision to its
 * outcome.
 */
export function useDecide(): (approvalId: string, decision: Decision, aim: Aim) => boolean {
  const api = useApi();
  return useCallback(
    (approvalId, decision, aim) => {
      if (!mayAct(approvalId, aim, decision.kind !== 'deny')) return false;
      const s = appStore.getState();
      const verdict = decision.kind === 'approve' ? 'approved' : decision.kind === 'allow' ? 'allowed' : 'denied';
      s.markDecided(approvalId, verdict, Date.now(), decision.kind === 'allow' ? decision.scope : undefined);
      // The queued cards named in the allow step are decided here too: each leaves its placeholder now, and comes back if refused.
      const also = decision.kind === 'allow' ? (decision.also ?? []) : [];
      for (const id of also) appStore.getState().markDecided(id, 'approved', Date.now());
      const answered = (result: { ok: true; rule?: PolicyRule | undefined; also_refused?: { approval_id: string; why: string }[] | undefined }) => {
        appStore.getState().decisionAnswered(approvalId, { ok: true });
        if (result.rule !== undefined) appStore.getState().addRule(result.rule);
        for (const id of also) {
          const refused = result.also_refused?.find((r) => r.approval_id === id);
          appStore.getState().decisionAnswered(id, refused === undefined ? { ok: true } : { error: `not approved with the rule: ${refused.why}` });
        }
      };
      const failed = (error: unknown) => {
        const why = describeError(decision.kind === 'deny' ? 'deny' : 'approve', error);
        for (const id of [approvalId, ...also]) appStore.getState().decisionAnswered(id, { error: why });
      };
      if (decision.kind === 'deny') {
        const reason = decision.reason?.trim();
        api.command('deny', reason !== undefined && reason !== '' ? { approval_id: approvalId, reason } : { approval_id: approvalId }).then(answered, failed);
      } else
        api
          .command(
            'approve',
            decision.kind === 'allow'
              ? {
                  approval_id: approvalId,
                  allow: { scope: decision.scope, ...(decision.also !== undefined && decision.also.length > 0 ? { also: [...decision.also] } : {}) },
                }
              : { approval_id: approvalId },
          )
          .then(answered, failed);
      return true;
    },
    [api],
  );
}
