import { Fragment } from 'react';
import { isPrivateUrl, unreachable, type ApprovableCard, type ElementApproval } from '../../../protocol/index.js';
import { mustReadToEnd, textMasked } from '../../model/readToEnd.js';
import { displayValue } from '../../model/tree.js';
import { TargetLabel } from './TargetLabel.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { AddConnectionFields } from './AddConnectionFields.js';
import { ElementCardPicture } from './ElementCardPicture.js';
import { GrantRequestFields } from './GrantRequestFields.js';
import { RemoteExecFields } from './RemoteExecFields.js';
import { ScreenInputFields } from './ScreenInputFields.js';
import { ScreenInputPicture } from './ScreenInputPicture.js';

/**
 * What a card of each kind shows above its field list: a command, a connection entry, an element's
 * set_value diff and picture, or a screen input's pictures. A new kind of card is a compile error here.
 */
export function CardKindBody({ card }: { card: ApprovableCard }) {
  switch (card.kind) {
    case 'remote_exec':
      return <RemoteExecFields card={card} />;
    case 'add_connection': {
      const added = card.add_connection;
      return <AddConnectionFields config={added} publicUrl={added.kind === 'osworld_http' && !isPrivateUrl(added.url)} />;
    }
    case 'element':
      return (
        <>
          {card.action === 'set_value' && <SetValueDiff card={card} />}
          {card.method !== undefined && (
            <p className="card-method small" data-testid="card-method">
              <span className="muted">How: </span>
              <UntrustedText text={card.method} />
            </p>
          )}
          <ElementCardPicture card={card} />
        </>
      );
    case 'screen':
      return <ScreenInputPicture card={card} />;
    case 'agent_grant':
      return <GrantRequestFields card={card} />;
    default:
      return unreachable(card);
  }
}

/** The rows of a card's field list that depend on its kind: an element and its path and app, or where a screen input lands. */
export function CardKindRows({ card }: { card: ApprovableCard }) {
  switch (card.kind) {
    case 'element': {
      const t = card.target;
      return (
        <>
          <div>
            <dt>Target</dt>
            <dd>
              <TargetLabel target={t} />
            </dd>
          </div>
          <PathRow steps={card.ancestor_path} />
          <div>
            <dt>App</dt>
            <dd>
              <UntrustedText text={card.window.app} /> · “<UntrustedText text={card.window.title} />” · pid {card.window.pid}
            </dd>
          </div>
        </>
      );
    }
    case 'screen':
      return (
        <>
          <ScreenInputFields card={card} />
          <PathRow steps={card.ancestor_path} />
        </>
      );
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return <PathRow steps={card.ancestor_path} />;
    default:
      return unreachable(card);
  }
}

/** A set_value card's diff: the element's current value and the new one, masked for a password field. */
export function SetValueDiff({ card }: { card: ElementApproval }) {
  const masked = textMasked(card);
  return (
    <div className="diff" data-testid="set-value-diff">
      <div>
        <div className="muted small">Current</div>
        <div className="diff-box diff-old">
          <ShownValue masked={masked} value={card.current_value ?? displayValue(card.target)} testId="diff-old-text" />
        </div>
      </div>
      <div aria-hidden="true" className="diff-arrow">
        →
      </div>
      <div>
        <div className="muted small">New</div>
        <div className="diff-box diff-new">
          <ShownValue masked={masked} value={card.text} testId="diff-new-text" endOf={mustReadToEnd(card) ? card.approval_id : undefined} />
        </div>
      </div>
    </div>
  );
}

/** The element's ancestors, root first (element_act's cards; the list is empty on every other kind). */
function PathRow({ steps }: { steps: readonly string[] }) {
  if (steps.length === 0) return null;
  return (
    <div>
      <dt>Path</dt>
      <dd className="small">
        {steps.map((step, i) => (
          <Fragment key={i}>
            {i > 0 && ' › '}
            <AncestorStep step={step} />
          </Fragment>
        ))}
      </dd>
    </div>
  );
}

/** An ancestor step as people read it: `window "Overseer Fixture"`, `group` (the helper sends `role:name`; the role is the helper's, the name the application's). */
function ancestorParts(step: string): { role: string; name?: string } {
  const colon = step.indexOf(':');
  if (colon < 0) return { role: step };
  const name = step.slice(colon + 1);
  return name === '' ? { role: step.slice(0, colon) } : { role: step.slice(0, colon), name };
}

function AncestorStep({ step }: { step: string }) {
  const { role, name } = ancestorParts(step);
  return (
    <>
      <UntrustedText text={role} />
      {name !== undefined && (
        <>
          {' '}
          “<UntrustedText text={name} />”
        </>
      )}
    </>
  );
}

/** A value of the set_value diff: masked for a password field, marked as absent when there is none. */
function ShownValue({ masked, value, testId, endOf }: { masked: boolean; value: string | undefined; testId: string; endOf?: string | undefined }) {
  if (masked) return <span data-testid={testId}>••••</span>;
  if (value === undefined)
    return (
      <span className="untrusted-empty" data-testid={testId}>
        no value
      </span>
    );
  return <UntrustedText text={value} block testId={testId} {...(endOf !== undefined ? { endOf } : {})} />;
}
