import { useState, type KeyboardEvent, type Ref } from 'react';
import type { PendingApproval } from '../../../protocol/index.js';
import { displayValue } from '../../store/tree.js';
import { formatDuration } from '../shell/time.js';
import type { Decision } from './decide.js';

interface Props {
  card: PendingApproval;
  now: number;
  selected: boolean;
  denying: boolean;
  online: boolean;
  cardRef?: Ref<HTMLElement>;
  onSelect: () => void;
  onDecide: (d: Decision) => void;
  onDenying: (open: boolean) => void;
}

/** One pending action: who, what, on which element, how long it waited and when it expires. */
export function ApprovalCard({ card, now, selected, denying, online, cardRef, onSelect, onDecide, onDenying }: Props) {
  const waited = now - Date.parse(card.created_at);
  const left = Date.parse(card.expires_at) - now;
  const t = card.target;
  const masked = card.password || t.redacted === true || t.state.password === true;
  return (
    <article
      ref={cardRef}
      className={`card${selected ? ' selected' : ''}${card.risk_hints.length > 0 ? ' risky' : ''}`}
      tabIndex={0}
      aria-current={selected ? 'true' : undefined}
      aria-label={`${card.agent} wants to ${card.action.replace(/_/g, ' ')} ${t.role} ${t.name ?? ''}`}
      data-testid="pending-card"
      data-approval-id={card.approval_id}
      onClick={onSelect}
      onFocus={onSelect}
    >
      <header className="card-head">
        <span className="card-agent">{card.agent}</span>
        <span className="card-action" data-testid="card-action">
          {card.action}
        </span>
        <span className={`card-expiry${left < 15_000 ? ' soon' : ''}`} data-testid="card-expiry">
          {left > 0 ? `expires in ${formatDuration(left)}` : 'expiring…'}
        </span>
      </header>
      {card.risk_hints.length > 0 && (
        <p className="risk" role="note" data-testid="risk-hints">
          ⚠ Check carefully: {card.risk_hints.map((h) => `“${h}”`).join(', ')}
        </p>
      )}
      {card.action === 'set_value' && (
        <div className="diff" data-testid="set-value-diff">
          <div>
            <div className="muted small">Current</div>
            <code className="diff-old">{masked ? '••••' : (card.current_value ?? displayValue(t) ?? '(empty)')}</code>
          </div>
          <div aria-hidden="true" className="diff-arrow">
            →
          </div>
          <div>
            <div className="muted small">New</div>
            <code className="diff-new">{masked ? '••••' : (card.text ?? '(empty)')}</code>
          </div>
        </div>
      )}
      <dl className="card-fields">
        <div>
          <dt>Target</dt>
          <dd>
            <strong>{t.role}</strong> {t.name !== undefined && `“${t.name}”`} {t.automation_id !== undefined && <span className="aid">#{t.automation_id}</span>}
          </dd>
        </div>
        {card.ancestor_path.length > 0 && (
          <div>
            <dt>Path</dt>
            <dd className="small">{card.ancestor_path.join(' › ')}</dd>
          </div>
        )}
        <div>
          <dt>App</dt>
          <dd>
            {card.window.app} · “{card.window.title}” · pid {card.window.pid}
          </dd>
        </div>
        <div>
          <dt>Waiting</dt>
          <dd data-testid="card-waited">{formatDuration(waited)}</dd>
        </div>
      </dl>
      {denying ? (
        <DenyForm onCancel={() => onDenying(false)} onConfirm={(reason) => onDecide({ kind: 'deny', reason })} disabled={!online} />
      ) : (
        <div className="card-buttons">
          <button type="button" className="approve" data-testid="approve-button" disabled={!online} onClick={() => onDecide({ kind: 'approve' })} title="Approve (A)">
            Approve
          </button>
          <button type="button" className="deny" data-testid="deny-button" disabled={!online} onClick={() => onDenying(true)} title="Deny (D)">
            Deny…
          </button>
          <button type="button" data-testid="allow-session-button" disabled={!online} onClick={() => onDecide({ kind: 'allow_for_session' })} title="Approve and allow for this session (S)">
            Approve and allow for this session
          </button>
        </div>
      )}
    </article>
  );
}

function DenyForm({ onCancel, onConfirm, disabled }: { onCancel: () => void; onConfirm: (reason: string) => void; disabled: boolean }) {
  const [reason, setReason] = useState('');
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      onConfirm(reason);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <div className="deny-form" role="group" aria-label="Deny">
      <input data-testid="deny-reason" aria-label="Reason for denying (optional)" placeholder="Reason (optional) — Enter denies, Escape cancels" maxLength={2000} autoFocus value={reason} onChange={(e) => setReason(e.target.value)} onKeyDown={onKeyDown} onClick={(e) => e.stopPropagation()} />
      <button type="button" className="deny" data-testid="deny-confirm" disabled={disabled} onClick={() => onConfirm(reason)}>
        Deny
      </button>
      <button type="button" data-testid="deny-cancel" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
