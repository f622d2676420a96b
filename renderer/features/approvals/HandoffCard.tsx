import { useState, type MouseEvent } from 'react';
import { QUESTION_HANDOFF_LIMITS, type HandoffApproval } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ArmedButton } from './ArmedButton.js';
import { CardNote, QuestionHandoffCardFrame, type QuestionHandoffCardProps } from './QuestionCard.js';
import { measureNow } from './useArming.js';
import { CardWhere } from './CardWhere.js';

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
      </header>
      <CardWhere connection={card.connection} />
      <div className="question-text" data-testid="handoff-reason">
        <UntrustedText text={card.handoff.reason} block />
      </div>
      <p className="small" data-testid="handoff-held">
        {held === 0
          ? 'No input waits.'
          : `${held} ${held === 1 ? 'input waits' : 'inputs wait'} until you give control back (each still comes to you as a card).`}
      </p>
      <div className="answer-row">
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
      <CardNote id={id} online={online} />
    </QuestionHandoffCardFrame>
  );
}
