import { useCallback, useRef, useState, type MouseEvent, type Ref } from 'react';
import { unreachable, type ApprovableCard } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { subjectLabel } from '../../model/cardSubject.js';
import { isRemote, mayAllowForSession } from '../../model/connectionWords.js';
import { mustReadToEnd, unreadWait } from '../../model/readToEnd.js';
import { selectEndSeen } from '../../store/selectors.js';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import { appStore, useApp } from '../../store/useApp.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { AllowStep } from './AllowStep.js';
import { CardBrief, CardVisual } from './CardCompact.js';
import { CardDetails } from './CardDetails.js';
import { ShowAllContext } from '../shell/showAll.js';
import { CardNote } from './CardNote.js';
import { DetailsButton } from './DetailsButton.js';
import { CardWhere } from './CardWhere.js';
import { PictureRoom, useHeight } from './pictureRoom.js';
import { DenyStep } from './DenyStep.js';
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
 * One pending action, compact enough that it fits its place in the queue whole
 * (docs/supervision.md#cards-that-fit): who, what, on which element or where, the picture, and
 * the buttons; every field in its details. Its buttons arm once its words and buttons have been
 * still on screen for the arming time; a click before that, or on a card that just moved, is
 * refused with the reason on the card's note line. Denying asks for a reason in the picture's
 * place, at the card's width; allowing for the session is a second step in a dialog.
 */
export function ApprovalCard({ card, now, selected, denying, allowing, online, cardRef, onSelect, decide }: Props) {
  const id = card.approval_id;
  const key = armKey.card(id);
  const aim = { via: 'pointer', key } as const;
  const { armed } = useArmed(key);
  const keysArmed = useKeysArmed(selected);
  const [details, setDetails] = useState(false);
  const openDetails = useCallback(() => setDetails(true), []);
  const [reason, setReason] = useState('');
  const visual = useRef<HTMLDivElement>(null);
  const room = useHeight(visual);
  // A command or a long text is approved only once its end has been on screen: Approve waits (Deny never does).
  const endSeen = useApp(selectEndSeen(id));
  const unread = mustReadToEnd(card) && !endSeen;
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
  const deny = () => decide(id, { kind: 'deny', reason }, aim);
  return (
    <ShowAllContext.Provider value={openDetails}>
      <article
        ref={cardRef}
        className={`card compact${denying ? ' denying' : ''}${selected ? ' selected' : ''}${card.risk_hints.length > 0 ? ' risky' : ''}${on !== '' ? ' remote' : ''}`}
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
          <DetailsButton onOpen={() => setDetails(true)} />
        </header>
        <CardWhere connection={card.connection} />
        <div className="card-brief" data-arm-part="subject">
          <RiskHints hints={card.risk_hints} />
          <CardBrief card={card} />
        </div>
        <div className="card-visual" ref={visual}>
          <PictureRoom.Provider value={room}>
            <CardVisual card={card} />
          </PictureRoom.Provider>
        </div>
        <div className="card-buttons" data-arm-part="controls">
          {
            <>
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
              {mayAllowForSession(card) ? (
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
              ) : (
                <span />
              )}
            </>
          }
        </div>
        <CardNote
          id={id}
          online={online}
          armed={armed}
          hint={unread ? `Approve ${unreadWait(card)}.` : selected && !keysArmed ? 'Selected — keys work in a moment.' : ''}
        />
        {details && <CardDetails card={card} now={now} onClose={() => setDetails(false)} />}
        {denying && (
          <DenyStep card={card} online={online} reason={reason} onReason={setReason} onDeny={deny} onCancel={() => appStore.getState().setDenying(undefined)} />
        )}
        {allowing && mayAllowForSession(card) && <AllowStep card={card} online={online} decide={decide} />}
      </article>
    </ShowAllContext.Provider>
  );
}

/** What the card's accessible name says it acts on: `button Send`, `a shell command`, `connection lab`, or where a screen input lands. */
function cardWhat(card: ApprovableCard): string {
  switch (card.kind) {
    case 'add_connection':
      return `connection ${card.add_connection.name}`;
    case 'remote_exec':
      return 'a shell command';
    case 'agent_grant':
      return `a credential for ${card.agent_grant.grant_name}`;
    case 'element':
      return `${card.target.role} ${card.target.name ?? ''}`;
    case 'screen':
      return subjectLabel(card);
    default:
      return unreachable(card);
  }
}
