import { useCallback } from 'react';
import type { Aim } from '../../store/approvalsSlice.js';
import { appStore } from '../../store/useApp.js';
import { describeError, useApi } from '../shell/apiContext.js';
import { mayAct } from './decide.js';

/** What a person does with a question or handoff card (docs/supervision.md#questions-and-handoffs). */
export type QuestionHandoffDecision =
  { kind: 'choice'; choice: number } | { kind: 'answer'; answer: string } | { kind: 'decline'; note?: string } | { kind: 'resume'; note?: string };

/**
 * Sends a question's answer or a handoff's end, under the same rules as an approval: the control
 * aimed at must be armed (mayAct), the card leaves a placeholder at once and the selection moves
 * on; a refusal by the supervisor brings the card back with the reason.
 */
export function useQuestionHandoffDecide(): (approvalId: string, decision: QuestionHandoffDecision, aim: Aim) => boolean {
  const api = useApi();
  return useCallback(
    (approvalId, decision, aim) => {
      if (!mayAct(approvalId, aim)) return false;
      const s = appStore.getState();
      const verdict = decision.kind === 'resume' ? 'resumed' : decision.kind === 'decline' ? 'declined' : 'answered';
      s.markDecided(approvalId, verdict, Date.now());
      const answered = () => appStore.getState().decisionAnswered(approvalId, { ok: true });
      const failed = (error: unknown) =>
        appStore.getState().decisionAnswered(approvalId, { error: describeError(verdict === 'resumed' ? 'give control back' : 'answer', error) });
      const note = decision.kind === 'decline' || decision.kind === 'resume' ? decision.note?.trim() : undefined;
      const withNote = note !== undefined && note !== '' ? { note } : {};
      const sent =
        decision.kind === 'resume'
          ? api.command('resume_handoff', { approval_id: approvalId, ...withNote })
          : api.command(
              'answer_question',
              decision.kind === 'choice'
                ? { approval_id: approvalId, choice: decision.choice }
                : decision.kind === 'answer'
                  ? { approval_id: approvalId, answer: decision.answer }
                  : { approval_id: approvalId, decline: true, ...withNote },
            );
      sent.then(answered, failed);
      return true;
    },
    [api],
  );
}
