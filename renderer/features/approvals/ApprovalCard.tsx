import { useState, type KeyboardEvent, type MouseEvent, type Ref } from 'react';
import { unreachable, type ApprovableCard } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { subjectLabel } from '../../model/cardSubject.js';
import { isRemote, mayAllowForSession } from '../../model/connectionWords.js';
import { mustReadToEnd, unreadWait } from '../../model/readToEnd.js';
import { selectEndSeen, selectRefusal } from '../../store/selectors.js';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import { appStore, useApp } from '../../store/useApp.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { AllowStep } from './AllowStep.js';
import { CardKindBody, CardKindRows } from './CardKindFields.js';
import { CardWhere } from './CardWhere.js';
import { RiskHints } from './RiskHints.js';
import { ArmedButton } from './ArmedButton.js';
import { mayAct, type Decision } from './decide.js';
import { measureNow, useArmed, useKeysArmed } from './useArming.js';

interface Props {
  card: ApprovableCard;
  now: number;
  selected: boolean;
  denying: boolean;
  allowing: boolean;
  online: boolean;
  cardRef?: Ref<HTMLElement>;
  onSelect: () => void;
  decide: (id: string, decision: Decision, aim: { via: 'pointer'; key: string; what?: string }) => boolean;
}

/**
 * One pending action: who, what, on which element, how long it waited and when it expires. Its
 * buttons arm once the card has been still on screen for the arming time; a click before that,
 * or on a card that just moved, is refused with the reason on the card's note line.
 */
export function ApprovalCard({ card, now, selected, denying, allowing, online, cardRef, onSelect, decide }: Props) {
  const id = card.approval_id;
  const key = armKey.card(id);
  const aim = { via: 'pointer', key } as const;
  const note = useApp(selectRefusal(id));
  const { armed } = useArmed(key);
  const keysArmed = useKeysArmed(selected);
  // A command or a long text is approved only once its end has been on screen: Approve waits (Deny never does).
  const endSeen = useApp(selectEndSeen(id));
  const unread = mustReadToEnd(card) && !endSeen;
  const waited = now - Date.parse(card.created_at);
  const left = Date.parse(card.expires_at) - now;
  const on = isRemote(card.connection) ? ` on ${card.connection.name} (${card.connection.where})` : '';
  /** A click on a card control: measured now, so a card that moved since the last measurement counts as moved. */
  const aimed = (e: MouseEvent<HTMLButtonElement>, then: () => void) => {
    e.stopPropagation();
    measureNow(e.currentTarget);
    then();
  };
  const open = (step: 'deny' | 'allow') => {
    if (!mayAct(id, aim)) return;
    onSelect();
    if (step === 'deny') appStore.getState().setDenying(id);
    else appStore.getState().setAllowing(id);
  };
  return (
    <article
      ref={cardRef}
      className={`card${selected ? ' selected' : ''}${card.risk_hints.length > 0 ? ' risky' : ''}${on !== '' ? ' remote' : ''}`}
      tabIndex={0}
      aria-current={selected ? 'true' : undefined}
      aria-label={escapeHiddenPlain(`${card.agent} wants to ${card.action.replace(/_/g, ' ')} ${cardWhat(card)}${on}`)}
      data-testid="pending-card"
      data-approval-id={id}
      data-arm-key={key}
      data-keys-armed={selected ? String(armed && keysArmed && !unread) : undefined}
      onClick={onSelect}
      onFocus={onSelect}
    >
      <header className="card-head">
        <span className="card-agent">
          <UntrustedText text={card.agent} />
        </span>
        <span className="card-action" data-testid="card-action">
          {card.action}
        </span>
        <span className={`card-expiry${left < 15_000 ? ' soon' : ''}`} data-testid="card-expiry">
          {left > 0 ? `expires in ${formatDuration(left)}` : 'expiring…'}
        </span>
      </header>
      <CardWhere connection={card.connection} />
      <RiskHints hints={card.risk_hints} />
      <CardKindBody card={card} />
      <dl className="card-fields">
        <CardKindRows card={card} />
        <div>
          <dt>Waiting</dt>
          <dd data-testid="card-waited">{formatDuration(waited)}</dd>
        </div>
      </dl>
      {denying ? (
        <DenyForm
          onCancel={() => appStore.getState().setDenying(undefined)}
          onConfirm={(reason) => decide(id, { kind: 'deny', reason }, aim)}
          disabled={!online}
        />
      ) : (
        <div className="card-buttons">
          <ArmedButton
            armKey={key}
            testId="approve-button"
            className="approve"
            disabled={!online}
            title="Approve (A)"
            waitsFor={unread ? unreadWait(card) : undefined}
            onClick={(e) => aimed(e, () => decide(id, { kind: 'approve' }, aim))}
          >
            Approve
          </ArmedButton>
          <ArmedButton armKey={key} testId="deny-button" className="deny" disabled={!online} title="Deny (D)" onClick={(e) => aimed(e, () => open('deny'))}>
            Deny…
          </ArmedButton>
          {mayAllowForSession(card) && (
            <ArmedButton
              armKey={key}
              testId="allow-session-button"
              disabled={!online}
              title="Approve and allow for this session: a second step names the scope (S)"
              ariaExpanded={allowing}
              onClick={(e) => aimed(e, () => open('allow'))}
            >
              Allow for session…
            </ArmedButton>
          )}
        </div>
      )}
      <p className="card-note" data-testid="card-note-line">
        <span role="status" data-testid="card-note">
          {note?.text ?? ''}
        </span>
        {note === undefined && (
          <span className="muted" aria-hidden="true">
            {!online
              ? 'Not connected: nothing can be decided now.'
              : !armed
                ? 'Arming — read the card first.'
                : unread
                  ? `Approve ${unreadWait(card)}.`
                  : selected && !keysArmed
                    ? 'Selected — keys work in a moment.'
                    : ''}
          </span>
        )}
      </p>
      {allowing && mayAllowForSession(card) && <AllowStep card={card} online={online} decide={decide} />}
    </article>
  );
}

/** What the card's accessible name says it acts on: `button Send`, `a shell command`, `connection lab`, or where a screen input lands. */
function cardWhat(card: ApprovableCard): string {
  switch (card.kind) {
    case 'add_connection':
      return `connection ${card.add_connection.name}`;
    case 'remote_exec':
      return 'a shell command';
    case 'element':
      return `${card.target.role} ${card.target.name ?? ''}`;
    case 'screen':
      return subjectLabel(card);
    default:
      return unreachable(card);
  }
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
      <input
        data-testid="deny-reason"
        aria-label="Reason for denying (optional)"
        placeholder="Reason (optional) — Enter denies, Escape cancels"
        maxLength={2000}
        autoFocus
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        onKeyDown={onKeyDown}
        onClick={(e) => e.stopPropagation()}
      />
      <button
        type="button"
        className="deny"
        data-testid="deny-confirm"
        disabled={disabled}
        onClick={(e) => {
          e.stopPropagation();
          measureNow(e.currentTarget);
          onConfirm(reason);
        }}
      >
        Deny
      </button>
      <button type="button" data-testid="deny-cancel" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
