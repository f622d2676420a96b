import { useState, type MouseEvent } from 'react';
import { QUESTION_HANDOFF_LIMITS, escapeHiddenPlain, type HandoffApproval } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ArmedButton } from './ArmedButton.js';
import { AgentWords, QuestionHandoffCardFrame, type QuestionHandoffCardProps } from './QuestionCard.js';
import { CardNote } from './CardNote.js';
import { measureNow, useArmed } from './useArming.js';
import { ModalDialog } from '../shell/ModalDialog.js';
import { CardWhere } from './CardWhere.js';
import { DetailsButton } from './DetailsButton.js';

/**
 * An agent handed the desktop to the person (docs/supervision.md#questions-and-handoffs): why, how
 * long ago, how many inputs wait meanwhile, and the one control that gives control back, with an
 * optional note for the agent. It arms like every control that decides.
 */
export function HandoffCard({ card, now, selected, online, cardRef, onSelect, decide }: Omit<QuestionHandoffCardProps<HandoffApproval>, 'noting'>) {
  const id = card.approval_id;
  const key = armKey.card(id);
  const aim = { via: 'pointer', key } as const;
  const [note, setNote] = useState('');
  const [details, setDetails] = useState(false);
  const { armed } = useArmed(key);
  const held = card.handoff.held_inputs;
  const resume = () => decide(id, { kind: 'resume', note }, aim);
  return (
    <QuestionHandoffCardFrame
      card={card}
      selected={selected}
      cardRef={cardRef}
      onSelect={onSelect}
      label={`${card.agent} handed the desktop to you: ${card.handoff.reason}`}
      testId="handoff-card"
    >
      <header className="card-head">
        <span className="card-agent">
          <UntrustedText text={card.agent} />
        </span>
        <span className="card-action">hands over</span>
        <span className="card-expiry">for {formatDuration(now - Date.parse(card.created_at))}</span>
        <DetailsButton onOpen={() => setDetails(true)} />
      </header>
      <CardWhere connection={card.connection} />
      <div className="card-brief" data-arm-part="subject">
        <AgentWords text={card.handoff.reason} testId="handoff-reason" onDetails={() => setDetails(true)} />
      </div>
      <div className="card-visual">
        <p className="small" data-testid="handoff-held">
          {held === 0
            ? 'No input waits.'
            : `${held} ${held === 1 ? 'input waits' : 'inputs wait'} until you give control back (each still comes to you as a card).`}
        </p>
      </div>
      <div className="answer-row handoff-row" data-arm-part="controls">
        <input
          data-testid="handoff-note"
          aria-label="Note for the agent (optional)"
          placeholder="Note for the agent (optional)"
          maxLength={QUESTION_HANDOFF_LIMITS.answer}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          onClick={(e) => e.stopPropagation()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              measureNow(e.currentTarget);
              resume();
            }
          }}
        />
        <ArmedButton
          armKey={key}
          testId="resume-button"
          className="approve"
          disabled={!online}
          onClick={(e: MouseEvent<HTMLButtonElement>) => {
            e.stopPropagation();
            measureNow(e.currentTarget);
            resume();
          }}
        >
          Give control back
        </ArmedButton>
      </div>
      <CardNote id={id} online={online} armed={armed} />
      {details && (
        <ModalDialog title={escapeHiddenPlain(`${card.agent} hands over — the whole reason`)} onClose={() => setDetails(false)} testId="card-details">
          <CardWhere connection={card.connection} />
          <div className="question-text">
            <UntrustedText text={card.handoff.reason} block />
          </div>
        </ModalDialog>
      )}
    </QuestionHandoffCardFrame>
  );
}
