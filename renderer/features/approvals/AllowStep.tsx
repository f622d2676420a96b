import { useState } from 'react';
import type { PendingApproval } from '../../../protocol/index.js';
import { armKey } from '../../store/arming.js';
import { subjectApp } from '../../store/cardSubject.js';
import { selectRefusal } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ArmedButton } from './ArmedButton.js';
import { CardSubject } from './CardSubject.js';
import type { Decision } from './decide.js';
import { measureNow } from './useArming.js';

interface Props {
  card: PendingApproval;
  online: boolean;
  decide: (id: string, decision: Decision, aim: { via: 'pointer'; key: string; what: string }) => boolean;
}

/**
 * The second step of "allow for this session" (docs/supervision.md#allow-for-the-session): it names the exact scope — agent and
 * session, action, app, element — and lets the person narrow or widen it. It opens below the card's
 * buttons, so a repeated click on the first button can never land on Confirm; Confirm arms too.
 */
export function AllowStep({ card, online, decide }: Props) {
  const [scope, setScope] = useState<'element' | 'app'>('element');
  const id = card.approval_id;
  const key = armKey.confirm(id);
  const note = useApp(selectRefusal(key));
  const appName = subjectApp(card);
  const app = appName !== '' ? <UntrustedText text={appName} /> : 'an unnamed application';
  const element = <CardSubject card={card} />;
  return (
    <div className="allow-step" role="group" aria-labelledby={`allow-title-${id}`} data-testid="allow-step">
      <p id={`allow-title-${id}`} className="allow-title">
        Approve this, and let the agent do the same without asking until its session ends:
      </p>
      <dl className="allow-scope" data-testid="allow-scope">
        <div>
          <dt>Agent</dt>
          <dd>
            <UntrustedText text={card.agent} /> <span className="muted">(session {card.session.slice(0, 8)})</span>
          </dd>
        </div>
        <div>
          <dt>Action</dt>
          <dd>{card.action}</dd>
        </div>
        <div>
          <dt>App</dt>
          <dd>{app}</dd>
        </div>
        <div>
          <dt>Element</dt>
          <dd data-testid="allow-scope-element-label">{scope === 'element' ? element : <>any element of {app}</>}</dd>
        </div>
      </dl>
      <fieldset className="allow-choice">
        <legend className="visually-hidden">Which elements the rule covers</legend>
        <label>
          <input type="radio" name={`allow-scope-${id}`} data-testid="allow-scope-element" checked={scope === 'element'} onChange={() => setScope('element')} />
          this element only: <code>{element}</code>
        </label>
        <label>
          <input type="radio" name={`allow-scope-${id}`} data-testid="allow-scope-app" checked={scope === 'app'} onChange={() => setScope('app')} />
          any element of <code>{app}</code>
        </label>
      </fieldset>
      <p className="card-note" role="status" data-testid="allow-note">
        {note?.text ?? ''}
      </p>
      <div className="allow-buttons">
        <button type="button" data-testid="allow-cancel" onClick={() => appStore.getState().setAllowing(undefined)}>
          Cancel
        </button>
        <ArmedButton
          armKey={key}
          measured
          testId="allow-confirm"
          className="approve"
          disabled={!online}
          onClick={(e) => {
            e.stopPropagation();
            measureNow(e.currentTarget);
            decide(id, { kind: 'allow', scope }, { via: 'pointer', key, what: 'the confirm button' });
          }}
        >
          Confirm: approve and allow
        </ArmedButton>
      </div>
    </div>
  );
}
