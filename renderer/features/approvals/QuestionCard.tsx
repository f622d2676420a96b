import { useState, type KeyboardEvent, type MouseEvent, type Ref } from 'react';
import { QUESTION_HANDOFF_LIMITS, escapeHiddenPlain, type HandoffApproval, type PendingApproval, type QuestionApproval } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { selectRefusal } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ArmedButton } from './ArmedButton.js';
import { mayAct } from './decide.js';
import type { QuestionHandoffDecision } from './decideQuestionHandoff.js';
import { measureNow, useArmed } from './useArming.js';
import { CardWhere } from './CardWhere.js';

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
  const [written, setWritten] = useState('');
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
  return (
    <QuestionHandoffCardFrame
      card={card}
      selected={selected}
      cardRef={cardRef}
      onSelect={onSelect}
      label={`${card.agent} asks: ${card.question.text}`}
      testId="question-card"
    >
      <header className="card-head">
        <span className="card-agent">
          <UntrustedText text={card.agent} />
        </span>
        <span className="card-action">asks</span>
        <span className={`card-expiry${left < 15_000 ? ' soon' : ''}`} data-testid="card-expiry">
          {left > 0 ? `expires in ${formatDuration(left)}` : 'expiring…'}
        </span>
      </header>
      <CardWhere connection={card.connection} />
      <div className="question-text" data-testid="question-text">
        <UntrustedText text={card.question.text} block />
      </div>
      {choices.length > 0 && (
        <div className="choices" role="group" aria-labelledby={`offers-${id}`}>
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
      )}
      {noting ? (
        <NoteForm
          label="Note for the agent (optional)"
          placeholder="Why not (optional) — Enter declines, Escape cancels"
          confirm="Decline"
          testId="decline"
          disabled={!online}
          onCancel={() => appStore.getState().setDenying(undefined)}
          onConfirm={(note) => decide(id, { kind: 'decline', note }, aim)}
        />
      ) : (
        <div className="answer-row">
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
      <CardNote id={id} online={online} />
    </QuestionHandoffCardFrame>
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
  children,
}: {
  card: PendingApproval;
  selected: boolean;
  cardRef?: Ref<HTMLElement> | undefined;
  onSelect: () => void;
  label: string;
  testId: string;
  children: React.ReactNode;
}) {
  return (
    <article
      ref={cardRef}
      className={`card question-card${selected ? ' selected' : ''}`}
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

/** The reserved note line under a card's controls: why a click did nothing, or that it is still arming. */
export function CardNote({ id, online }: { id: string; online: boolean }) {
  const note = useApp(selectRefusal(id));
  const { armed } = useArmed(armKey.card(id));
  return (
    <p className="card-note" data-testid="card-note-line">
      <span role="status" data-testid="card-note">
        {note?.text ?? ''}
      </span>
      {note === undefined && (
        <span className="muted" aria-hidden="true">
          {!online ? 'Not connected: nothing can be sent now.' : !armed ? 'Arming — read the card first.' : ''}
        </span>
      )}
    </p>
  );
}

/** A one-line note with its confirm and cancel buttons (a decline's reason, a handoff's note). */
export function NoteForm({
  label,
  placeholder,
  confirm,
  testId,
  disabled,
  onCancel,
  onConfirm,
}: {
  label: string;
  placeholder: string;
  confirm: string;
  testId: string;
  disabled: boolean;
  onCancel: () => void;
  onConfirm: (note: string) => void;
}) {
  const [note, setNote] = useState('');
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      measureNow(e.currentTarget);
      onConfirm(note);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <div className="deny-form" role="group" aria-label={confirm}>
      <input
        data-testid={`${testId}-note`}
        aria-label={label}
        placeholder={placeholder}
        maxLength={QUESTION_HANDOFF_LIMITS.answer}
        autoFocus
        value={note}
        onChange={(e) => setNote(e.target.value)}
        onKeyDown={onKeyDown}
        onClick={(e) => e.stopPropagation()}
      />
      <button
        type="button"
        className="deny"
        data-testid={`${testId}-confirm`}
        disabled={disabled}
        onClick={(e) => {
          e.stopPropagation();
          measureNow(e.currentTarget);
          onConfirm(note);
        }}
      >
        {confirm}
      </button>
      <button type="button" data-testid={`${testId}-cancel`} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
