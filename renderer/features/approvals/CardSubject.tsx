import type { PendingApproval } from '../../../protocol/index.js';
import { subjectParts } from '../../store/cardSubject.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** What a card acts on: `button "Send"`, or `412,300 in "Canvas"` (as `subjectLabel` writes it); the application's words shown as untrusted text. */
export function CardSubject({ card }: { card: PendingApproval }) {
  const p = subjectParts(card);
  return (
    <>
      {p.role !== undefined && <UntrustedText text={p.role} />}
      {p.name !== undefined && (
        <>
          {' '}
          "<UntrustedText text={p.name} />"
        </>
      )}
      {p.where}
      {p.title !== undefined && (
        <>
          {' in '}"<UntrustedText text={p.title} />"
        </>
      )}
    </>
  );
}

/** What a card asked, in one line: `claude · invoke button "Counter"`, `claude · click 412,300 in "Canvas"`. */
export function CardSummary({ card }: { card: PendingApproval }) {
  return (
    <>
      <UntrustedText text={card.agent} /> · {card.action} <CardSubject card={card} />
    </>
  );
}
