import { unreachable, type PendingApproval } from '../../../protocol/index.js';
import { subjectParts } from '../../model/cardSubject.js';
import { isRemote } from '../../model/connectionWords.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** What a card acts on: `button "Send"`, or `412,300 in "Canvas"` (as `subjectLabel` writes it); the application's words shown as untrusted text. */
export function CardSubject({ card }: { card: PendingApproval }) {
  switch (card.kind) {
    case 'remote_exec':
      return <UntrustedText text={card.remote_exec.command} limit={SUMMARY_LIMIT} expandable={false} />;
    case 'add_connection':
      return (
        <>
          "{card.add_connection.name}" (
          <UntrustedText text={card.add_connection.kind === 'ssh' ? card.add_connection.host : card.add_connection.url} limit={SUMMARY_LIMIT} />)
        </>
      );
    case 'agent_grant':
      return (
        <>
          a credential as "<UntrustedText text={card.agent_grant.grant_name} limit={SUMMARY_LIMIT} />"
        </>
      );
    case 'element':
    case 'screen':
    case 'question':
    case 'handoff':
      return <SubjectWords card={card} />;
    default:
      return unreachable(card);
  }
}

/** An element's role and name, or where a screen input lands, as `subjectParts` gives them. */
function SubjectWords({ card }: { card: PendingApproval }) {
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

/** What a card asked, in one line: `claude · invoke button "Counter"`, `claude · click 412,300 in "Canvas"`, `claude · asks "Which file?"`; `· on lab` when not on this desktop. */
export function CardSummary({ card }: { card: PendingApproval }) {
  return (
    <>
      <SummaryText card={card} />
      {isRemote(card.connection) && (
        <strong className="summary-where" data-testid="summary-where">
          {' '}
          · on {card.connection.name}
        </strong>
      )}
    </>
  );
}

function SummaryText({ card }: { card: PendingApproval }) {
  switch (card.kind) {
    case 'question':
      return (
        <>
          <UntrustedText text={card.agent} /> · asks "
          <UntrustedText text={card.question.text} limit={SUMMARY_LIMIT} />"
        </>
      );
    case 'handoff':
      return (
        <>
          <UntrustedText text={card.agent} /> · handed the desktop over "
          <UntrustedText text={card.handoff.reason} limit={SUMMARY_LIMIT} />"
        </>
      );
    case 'element':
    case 'screen':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return (
        <>
          <UntrustedText text={card.agent} /> · {card.action} <CardSubject card={card} />
        </>
      );
    default:
      return unreachable(card);
  }
}
