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

/** Longest part of a question or handoff reason a one-line summary shows. */
const SUMMARY_LIMIT = 120;

/** What a card asked, in one line: `claude · invoke button "Counter"`, `claude · click 412,300 in "Canvas"`, `claude · asks "Which file?"`. */
export function CardSummary({ card }: { card: PendingApproval }) {
  if (card.question !== undefined || card.handoff !== undefined)
    return (
      <>
        <UntrustedText text={card.agent} /> · {card.question !== undefined ? 'asks' : 'handed the desktop over'} "
        <UntrustedText text={card.question?.text ?? card.handoff?.reason ?? ''} limit={SUMMARY_LIMIT} />"
      </>
    );
  return (
    <>
      <UntrustedText text={card.agent} /> · {card.action} <CardSubject card={card} />
    </>
  );
}
