import { useMemo } from 'react';
import type { HandoffApproval } from '../../../protocol/index.js';
import { selectPending } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import './brake.css';

/** Longest part of a handoff reason the banner shows (the card shows all of it). */
const BANNER_LIMIT = 200;

/**
 * While an agent has handed the desktop over, a banner under the brakes says so on every view:
 * who, why, and how many inputs wait. Control is given back on the handoff's card in the queue
 * (it arms like every control that decides); the banner's button selects that card and shows it.
 */
export function HandoffBanner() {
  const pending = useApp(selectPending);
  const handoffs = useMemo(() => pending.filter((p): p is HandoffApproval => p.kind === 'handoff'), [pending]);
  if (handoffs.length === 0) return null;
  const show = (id: string) => {
    const s = appStore.getState();
    s.selectApproval(id);
    // The person asked to see it: the one scroll made for them, as moving the selection with keys does.
    document.querySelector(`[data-approval-id="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'nearest' });
  };
  return (
    <div className="banner banner-handoff" role="status" data-testid="handoff-banner">
      {handoffs.map((h) => (
        <p key={h.approval_id} className="handoff-line" data-testid="handoff-banner-line">
          <strong>
            <UntrustedText text={h.agent} /> handed the desktop to you:
          </strong>{' '}
          “<UntrustedText text={h.handoff.reason} limit={BANNER_LIMIT} />
          ”.{' '}
          {h.handoff.held_inputs > 0
            ? `${h.handoff.held_inputs} ${h.handoff.held_inputs === 1 ? 'input waits' : 'inputs wait'} until you give control back.`
            : 'Agents’ inputs wait until you give control back.'}{' '}
          <button type="button" className="link" data-testid="handoff-show" onClick={() => show(h.approval_id)}>
            Give control back…
          </button>
        </p>
      ))}
    </div>
  );
}
