import type { PendingApproval } from '../../../protocol/index.js';
import { subjectLabel } from '../../store/cardSubject.js';
import { outcomeLine } from '../../store/outcome.js';
import { selectIsHeld, selectRecord, selectRefusal } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';

/** What a card asked, in one line: `claude · invoke button "Counter"`, `claude · click 412,300 in "Canvas"`. */
export function cardSummary(card: PendingApproval): string {
  return `${card.agent} · ${card.action} ${subjectLabel(card)}`;
}

/**
 * What a card leaves behind when it leaves the queue: the same height in the same place (so nothing
 * below moves under the pointer), saying what was decided and, as it becomes known, what happened.
 * A click here is answered too: nothing more is sent.
 */
export function Placeholder({ card }: { card: PendingApproval }) {
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
  return (
    <div className={`placeholder tone-${line.tone}`} data-testid="placeholder" data-approval-id={id} data-tone={line.tone} onClick={onClick}>
      <div className="placeholder-what small">{cardSummary(card)}</div>
      <p className={`outcome tone-${line.tone}`} role="status" data-testid="outcome-line">
        {line.text}
      </p>
      <p className="card-note" role="status" data-testid="placeholder-note">
        {note?.text ?? ''}
      </p>
    </div>
  );
}
