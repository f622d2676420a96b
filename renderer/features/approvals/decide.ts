import { useCallback } from 'react';
import { appStore } from '../../store/useApp.js';
import { describeError, useApi } from '../shell/apiContext.js';

/** A person's decision on one card. */
export type Decision = { kind: 'approve' } | { kind: 'allow_for_session' } | { kind: 'deny'; reason?: string };

/**
 * Sends a decision. Refused within 400 ms of the previous one (a held or repeated key never decides
 * twice); the card leaves the queue at once and the selection moves to the next card.
 */
export function useDecide(): (approvalId: string, decision: Decision) => boolean {
  const api = useApi();
  return useCallback(
    (approvalId, decision) => {
      const s = appStore.getState();
      const now = Date.now();
      if (s.connection.state !== 'open' || !s.canDecide(now) || !s.pending.some((p) => p.approval_id === approvalId)) return false;
      s.markDecided(approvalId, now);
      const sent =
        decision.kind === 'deny'
          ? api.command('deny', decision.reason !== undefined && decision.reason.trim() !== '' ? { approval_id: approvalId, reason: decision.reason.trim() } : { approval_id: approvalId })
          : api.command('approve', decision.kind === 'allow_for_session' ? { approval_id: approvalId, allow: { scope: 'element' } } : { approval_id: approvalId });
      sent.catch((error: unknown) => appStore.getState().setNotice(describeError(decision.kind === 'deny' ? 'deny' : 'approve', error)));
      return true;
    },
    [api],
  );
}
