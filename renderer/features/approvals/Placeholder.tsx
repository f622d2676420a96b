import type { PendingApproval } from '../../../protocol/index.js';
import { outcomeLine } from '../../model/outcome.js';
import { selectIsHeld, selectRecord, selectRefusal } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { CardSummary } from './CardSubject.js';

/** Outcome lines quote refusal details and deny reasons: longer than a name, still bounded. */
export const OUTCOME_LIMIT = 400;

/**
 * What a card leaves behind when it leaves the queue: first the same height in the same place (so
 * nothing below moves under the pointer), then one line (`line`, at most 48 px), saying what was
 * decided and, as it becomes known, what happened. A click here is answered too: nothing more is
 * sent.
 */
export function Placeholder({ card, line: oneLine = false }: { card: PendingApproval; line?: boolean }) {
  const id = card.approval_id;
  const record = useApp(selectRecord(id));
  const held = useApp(selectIsHeld(id));
  const note = useApp(selectRefusal(id));
  const line = record === undefined ? { tone: 'wait' as const, text: 'Left the queue — waiting for its outcome…' } : outcomeLine(record, held);
  const onClick = () => {
    const s = appStore.getState();
    s.refuse(
      id,
      record?.verdict !== undefined ? 'Already decided here — nothing more was sent.' : 'This card already left the queue — nothing was sent.',
      Date.now(),
    );
  };
  if (oneLine)
    return (
      <div
        className={`placeholder placeholder-line tone-${line.tone}`}
        data-testid="placeholder"
        data-approval-id={id}
        data-tone={line.tone}
        data-line="true"
        onClick={onClick}
      >
        <p className={`outcome tone-${line.tone}`} role="status" data-testid="outcome-line">
          <UntrustedText text={line.text} limit={OUTCOME_LIMIT} />
        </p>
        <p className="placeholder-what small">
          {note !== undefined ? (
            <span className="card-note-text" role="status" data-testid="placeholder-note">
              {note.text}
            </span>
          ) : (
            <CardSummary card={card} />
          )}
        </p>
      </div>
    );
  return (
    <div className={`placeholder tone-${line.tone}`} data-testid="placeholder" data-approval-id={id} data-tone={line.tone} onClick={onClick}>
      <div className="placeholder-what small">
        <CardSummary card={card} />
      </div>
      <p className={`outcome tone-${line.tone}`} role="status" data-testid="outcome-line">
        <UntrustedText text={line.text} limit={OUTCOME_LIMIT} />
      </p>
      <p className="card-note" role="status" data-testid="placeholder-note">
        {note?.text ?? ''}
      </p>
    </div>
  );
}
