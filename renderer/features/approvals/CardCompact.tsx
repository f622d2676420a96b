import { useState } from 'react';
import { isPrivateUrl, unreachable, type ApprovableCard, type ElementApproval, type RemoteExecApproval } from '../../../protocol/index.js';
import { lineCount, segments } from '../../model/untrustedText.js';
import { selectEndSeen } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { formatDuration } from '../shell/time.js';
import { TargetLabel } from './TargetLabel.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { AddConnectionFields } from './AddConnectionFields.js';
import { GrantRequestFields } from './GrantRequestFields.js';
import { SetValueDiff } from './CardKindFields.js';
import { ElementCardPicture } from './ElementCardPicture.js';
import { ScreenInputFields } from './ScreenInputFields.js';
import { ScreenInputPicture } from './ScreenInputPicture.js';

/**
 * What a card in the queue says in words, compactly (docs/supervision.md#cards-that-fit): what it
 * acts on and, for the kinds that change text, the text. The whole card — every field, the
 * pictures at full size — is in its details. A new kind of card is a compile error here.
 */
export function CardBrief({ card }: { card: ApprovableCard }) {
  switch (card.kind) {
    case 'element':
      return <ElementBrief card={card} />;
    case 'screen':
      return (
        <dl className="card-fields">
          <ScreenInputFields card={card} brief />
        </dl>
      );
    case 'remote_exec':
      return <RemoteExecBrief card={card} />;
    case 'add_connection': {
      const added = card.add_connection;
      return (
        <p className="card-subject" data-testid="card-subject">
          adds the connection <strong>“{added.name}”</strong> ({added.kind === 'ssh' ? 'ssh' : 'OSWorld HTTP'}), enabled once approved:
        </p>
      );
    }
    case 'agent_grant':
      return (
        <p className="card-subject" data-testid="card-subject">
          asks for its own credential to connect to Overseer:
        </p>
      );
    default:
      return unreachable(card);
  }
}

/**
 * What fills the rest of a card in the queue: the picture of where it lands (as tall as the card
 * leaves room for), the command it runs, or the entry it adds.
 */
export function CardVisual({ card }: { card: ApprovableCard }) {
  switch (card.kind) {
    case 'element':
      return <ElementCardPicture card={card} />;
    case 'screen':
      return <ScreenInputPicture card={card} />;
    case 'remote_exec':
      return (
        <div className="command-box command-fill">
          <UntrustedText text={card.remote_exec.command} block testId="remote-exec-command" endOf={card.approval_id} />
        </div>
      );
    case 'add_connection': {
      const added = card.add_connection;
      return (
        <div className="card-scroll" tabIndex={0} aria-label="The connection entry" data-testid="add-connection-entry">
          <AddConnectionFields config={added} publicUrl={added.kind === 'osworld_http' && !isPrivateUrl(added.url)} />
        </div>
      );
    }
    case 'agent_grant':
      return (
        <div className="card-scroll" tabIndex={0} aria-label="Who asks for a credential">
          <GrantRequestFields card={card} />
        </div>
      );
    default:
      return unreachable(card);
  }
}

/** An element card's words: the element, its window and app, the set_value diff and how it is done. */
function ElementBrief({ card }: { card: ElementApproval }) {
  const t = card.target;
  return (
    <>
      <p className="card-subject" data-testid="card-subject">
        <TargetLabel target={t} />{' '}
        <span className="muted">
          in “<UntrustedText text={card.window.title} />” (<UntrustedText text={card.window.app} />)
        </span>
      </p>
      {card.action === 'set_value' && <SetValueDiff card={card} />}
      {card.method !== undefined && (
        <p className="card-method small" data-testid="card-method">
          <span className="muted">How: </span>
          <UntrustedText text={card.method} />
        </p>
      )}
    </>
  );
}

/** A remote_exec card's words: that it runs a command there, how long it is, whether its end has been on screen. */
function RemoteExecBrief({ card }: { card: RemoteExecApproval }) {
  const exec = card.remote_exec;
  const seen = useApp(selectEndSeen(card.approval_id));
  const [lines] = useState(() => lineCount(segments(exec.command)));
  const size = `${lines} ${lines === 1 ? 'line' : 'lines'}, ${[...exec.command].length} characters`;
  return (
    <div className="remote-exec" data-testid="remote-exec">
      <p className="card-subject" data-testid="card-subject">
        Runs this shell command there as the connection’s user ({size}; ended after{' '}
        <span data-testid="remote-exec-timeout">{formatDuration(exec.timeout_ms)}</span>):
      </p>
      <p className={`remote-exec-status small${seen ? '' : ' unread'}`} data-testid="remote-exec-status" data-seen={String(seen)}>
        {seen
          ? 'You have seen this command to its end.'
          : `⚠ Not all of it is shown (${size}): open Details to read it to its end. Approve waits until you have.`}
      </p>
    </div>
  );
}
