import { useState, type MouseEvent, type Ref } from 'react';
import { QUESTION_HANDOFF_LIMITS, escapeHiddenPlain, type HandoffApproval, type PendingApproval, type QuestionApproval } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { appStore } from '../../store/useApp.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ArmedButton } from './ArmedButton.js';
import { mayAct } from './decide.js';
import type { QuestionHandoffDecision } from './decideQuestionHandoff.js';
import { measureNow, useArmed } from './useArming.js';
import { CardWhere } from './CardWhere.js';
import { DetailsButton } from './DetailsButton.js';
import { CardNote } from './CardNote.js';
import { ReasonField } from './ReasonField.js';
import { ModalDialog } from '../shell/ModalDialog.js';

/** What a question or handoff card needs from the queue. */
export interface QuestionHandoffCardProps<C extends QuestionApproval | HandoffApproval> {
  card: C;
  now: number;
  selected: boolean;
  /** The card whose decline note (or handoff note) is being written. */
  noting: boolean;
  online: boolean;
  cardRef?: Ref<HTMLElement>;
  onSelect: () => void;
  decide: (id: string, decision: QuestionHandoffDecision, aim: { via: 'pointer'; key: string; what?: string }) => boolean;
}

/**
 * An agent's question (docs/supervision.md#questions-and-handoffs): its words shown as untrusted
 * text; its choices as the agent's words — "<agent> offers these answers:", each quoted after
 * "Answer", in a style unlike Overseer's own buttons, and marked when it reads like one of them —;
 * a written answer, or a decline with an optional note. Every control
 * arms with the card, like an approval's: nothing is answered by a click meant for something else.
 */
export function QuestionCard({ card, now, selected, noting, online, cardRef, onSelect, decide }: QuestionHandoffCardProps<QuestionApproval>) {
  const id = card.approval_id;
  const key = armKey.card(id);
  const aim = { via: 'pointer', key } as const;
  const { armed } = useArmed(key);
  const [written, setWritten] = useState('');
  const [note, setNote] = useState('');
  const [details, setDetails] = useState(false);
  const left = Date.parse(card.expires_at) - now;
  const choices = card.question.choices ?? [];
  const aimed = (e: MouseEvent<HTMLButtonElement>, then: () => void) => {
    e.stopPropagation();
    measureNow(e.currentTarget);
    then();
  };
  const answer = () => {
    if (written.trim() === '') {
      appStore.getState().refuse(id, 'Not answered: write an answer first (or pick a choice, or decline).', Date.now());
      return;
    }
    decide(id, { kind: 'answer', answer: written }, aim);
  };
  const decline = () => decide(id, { kind: 'decline', note }, aim);
  return (
    <QuestionHandoffCardFrame
      card={card}
      selected={selected}
      cardRef={cardRef}
      onSelect={onSelect}
      label={`${card.agent} asks: ${card.question.text}`}
      testId="question-card"
      denying={noting}
    >
      <header className="card-head">
        <span className="card-agent">
          <UntrustedText text={card.agent} />
        </span>
        <span className="card-action">asks</span>
        <span className={`card-expiry${left < 15_000 ? ' soon' : ''}`} data-testid="card-expiry">
          {left > 0 ? `expires in ${formatDuration(left)}` : 'expiring…'}
        </span>
        <DetailsButton onOpen={() => setDetails(true)} />
      </header>
      <CardWhere connection={card.connection} />
      <div className="card-brief" data-arm-part="subject">
        <AgentWords text={card.question.text} testId="question-text" onDetails={() => setDetails(true)} />
      </div>
      <div className="card-visual">
        {noting ? (
          <ReasonField
            label="Note for the agent (optional): it is told why not"
            placeholder="Why not (optional) — Enter declines, Escape cancels"
            testId="decline-note"
            maxLength={QUESTION_HANDOFF_LIMITS.answer}
            value={note}
            onChange={setNote}
            onEnter={decline}
            onEscape={() => appStore.getState().setDenying(undefined)}
          />
        ) : (
          choices.length > 0 && (
            <div className="choices card-scroll" role="group" aria-labelledby={`offers-${id}`} tabIndex={0}>
              <p className="choices-intro small" id={`offers-${id}`}>
                <UntrustedText text={card.agent} /> offers these answers:
              </p>
              <ul className="choice-list">
                {choices.map((choice, i) => {
                  const imitates = card.question.imitates?.[i] ?? undefined;
                  return (
                    <li key={i} className="choice" data-testid="choice" data-imitates={imitates ?? undefined}>
                      <ArmedButton
                        armKey={key}
                        testId="choice-button"
                        className="choice-quote"
                        disabled={!online}
                        onClick={(e) => aimed(e, () => decide(id, { kind: 'choice', choice: i }, aim))}
                      >
                        <span className="choice-verb">Answer</span>{' '}
                        <span className="agent-words" data-testid="choice-text">
                          “<UntrustedText text={choice} limit={QUESTION_HANDOFF_LIMITS.choice} expandable={false} />”
                        </span>
                      </ArmedButton>
                      {imitates !== undefined && (
                        <p className="choice-imitates small" role="note" data-testid="choice-imitates">
                          ⚠ Looks like Overseer’s own control ({imitates}): this only answers the question.
                        </p>
                      )}
                    </li>
                  );
                })}
              </ul>
            </div>
          )
        )}
      </div>
      {noting ? (
        <div className="card-buttons" data-arm-part="controls" role="group" aria-label="Decline">
          <button
            type="button"
            className="deny"
            data-testid="decline-confirm"
            disabled={!online}
            onClick={(e) => {
              e.stopPropagation();
              measureNow(e.currentTarget);
              decline();
            }}
          >
            Decline
          </button>
          <button type="button" data-testid="decline-cancel" onClick={() => appStore.getState().setDenying(undefined)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="answer-row" data-arm-part="controls">
          <input
            data-testid="answer-input"
            aria-label={choices.length > 0 ? 'Or write your own answer' : 'Your answer'}
            placeholder={choices.length > 0 ? 'Or write your own answer' : 'Your answer'}
            maxLength={QUESTION_HANDOFF_LIMITS.answer}
            value={written}
            onChange={(e) => setWritten(e.target.value)}
            onClick={(e) => e.stopPropagation()}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                measureNow(e.currentTarget);
                answer();
              }
            }}
          />
          <ArmedButton armKey={key} testId="answer-button" className="approve" disabled={!online} onClick={(e) => aimed(e, answer)}>
            Answer
          </ArmedButton>
          <ArmedButton
            armKey={key}
            testId="decline-button"
            className="deny"
            disabled={!online}
            onClick={(e) =>
              aimed(e, () => {
                if (!mayAct(id, aim)) return;
                onSelect();
                appStore.getState().setDenying(id);
              })
            }
          >
            Decline…
          </ArmedButton>
        </div>
      )}
      <CardNote id={id} online={online} armed={armed} />
      {details && (
        <ModalDialog title={escapeHiddenPlain(`${card.agent} asks — the whole question`)} onClose={() => setDetails(false)} testId="card-details">
          <CardWhere connection={card.connection} />
          <div className="question-text">
            <UntrustedText text={card.question.text} block />
          </div>
          {choices.length > 0 && (
            <ol className="small">
              {choices.map((c, i) => (
                <li key={i}>
                  “<UntrustedText text={c} />”
                </li>
              ))}
            </ol>
          )}
          <p className="muted small">Answer on the card: close this (Esc), and its controls are where they were.</p>
        </ModalDialog>
      )}
    </QuestionHandoffCardFrame>
  );
}

/**
 * An agent's question or handoff reason on its card: a few lines of the agent's words, and when
 * they do not all show, a button that opens all of them.
 */
export function AgentWords({ text, testId, onDetails }: { text: string; testId: string; onDetails: () => void }) {
  const [whole, setWhole] = useState(true);
  return (
    <div className="question-text" data-testid={testId}>
      <UntrustedText text={text} block expandable={false} onWhole={setWhole} />
      {!whole && (
        <button
          type="button"
          className="untrusted-toggle"
          data-testid="agent-words-all"
          aria-haspopup="dialog"
          onClick={(e) => {
            e.stopPropagation();
            onDetails();
          }}
        >
          read all of it
        </button>
      )}
    </div>
  );
}

/** The frame every question and handoff card shares with approval cards: selection, arming key, focus. */
export function QuestionHandoffCardFrame({
  card,
  selected,
  cardRef,
  onSelect,
  label,
  testId,
  denying,
  children,
}: {
  card: PendingApproval;
  selected: boolean;
  cardRef?: Ref<HTMLElement> | undefined;
  onSelect: () => void;
  label: string;
  testId: string;
  /** A note for the agent is being written in the picture's place. */
  denying?: boolean;
  children: React.ReactNode;
}) {
  return (
    <article
      ref={cardRef}
      className={`card compact question-card${selected ? ' selected' : ''}${denying === true ? ' denying' : ''}`}
      tabIndex={0}
      aria-current={selected ? 'true' : undefined}
      aria-label={escapeHiddenPlain(label).slice(0, 300)}
      data-testid={testId}
      data-approval-id={card.approval_id}
      data-arm-key={armKey.card(card.approval_id)}
      onClick={onSelect}
      onFocus={onSelect}
    >
      {children}
    </article>
  );
}
