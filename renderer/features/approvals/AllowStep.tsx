import { useEffect, useMemo, useState } from 'react';
import { cardText, type PendingApproval } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { subjectApp } from '../../model/cardSubject.js';
import { cardConnectionName } from '../../model/connectionWords.js';
import { selectPending, selectRefusal } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useApi } from '../shell/apiContext.js';
import { ModalDialog } from '../shell/ModalDialog.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ArmedButton } from './ArmedButton.js';
import { CardSubject, CardSummary } from './CardSubject.js';
import type { Decision } from './decide.js';
import { measureNow } from './useArming.js';

interface Props {
  card: PendingApproval;
  online: boolean;
  decide: (id: string, decision: Decision, aim: { via: 'pointer'; key: string; what: string }) => boolean;
}

/**
 * The queued cards a rule of this scope would cover, as the supervisor's own matcher says (UI command
 * `allow_preview`): asked when the step opens and when the scope changes, never recomputed here.
 * Cards that leave the queue meanwhile drop out of the list; cards that arrive later are not added,
 * so what Confirm approves is what the person read.
 */
function useCovered(id: string, scope: 'element' | 'app'): { cards: PendingApproval[]; state: 'asking' | 'known' | 'unknown' } {
  const api = useApi();
  const pending = useApp(selectPending);
  const [answer, setAnswer] = useState<{ for: string; ids: string[] | undefined }>({ for: '', ids: undefined });
  const asked = `${id}/${scope}`;
  useEffect(() => {
    let current = true;
    api.command('allow_preview', { approval_id: id, scope }).then(
      (r) => current && setAnswer({ for: asked, ids: r.covered }),
      () => current && setAnswer({ for: asked, ids: undefined }),
    );
    return () => {
      current = false;
    };
  }, [api, id, scope, asked]);
  const cards = useMemo(() => {
    if (answer.for !== asked || answer.ids === undefined) return [];
    const byId = new Map(pending.map((p) => [p.approval_id, p]));
    return answer.ids.flatMap((x) => byId.get(x) ?? []);
  }, [answer, asked, pending]);
  return { cards, state: answer.for !== asked ? 'asking' : answer.ids === undefined ? 'unknown' : 'known' };
}

/**
 * The second step of "allow for this session" (docs/supervision.md#allow-for-the-session): it names the exact scope — agent and
 * session, action, app, element — and lets the person narrow or widen it, and names the queued cards
 * the rule covers, which Confirm approves too unless the person unticks them. It opens over the
 * card, in a dialog: a repeated click on the card's button can never land on Confirm, and Confirm arms too.
 */
export function AllowStep({ card, online, decide }: Props) {
  const [scope, setScope] = useState<'element' | 'app'>('element');
  const [alsoWanted, setAlsoWanted] = useState(true);
  const id = card.approval_id;
  const covered = useCovered(id, scope);
  const also = alsoWanted ? covered.cards.map((c) => c.approval_id) : [];
  const key = armKey.confirm(id);
  const note = useApp(selectRefusal(key));
  const appName = subjectApp(card);
  const app = appName !== '' ? <UntrustedText text={appName} /> : 'an unnamed application';
  const element = <CardSubject card={card} />;
  return (
    <ModalDialog
      title="Allow for the session: the second step"
      onClose={() => appStore.getState().setAllowing(undefined)}
      testId="allow-dialog"
      inPlace
      backdropCloses={false}
      avoid={() => document.querySelector(`[data-approval-id="${CSS.escape(id)}"] [data-testid="allow-session-button"]`)?.getBoundingClientRect()}
    >
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
            <dt>Desktop</dt>
            <dd data-testid="allow-scope-desktop">
              <UntrustedText text={cardConnectionName(card) === 'local' ? 'this desktop only' : `${cardConnectionName(card)} only`} />
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
            <input
              type="radio"
              name={`allow-scope-${id}`}
              data-testid="allow-scope-element"
              checked={scope === 'element'}
              onChange={() => setScope('element')}
            />
            this element only: <code>{element}</code>
          </label>
          <label>
            <input type="radio" name={`allow-scope-${id}`} data-testid="allow-scope-app" checked={scope === 'app'} onChange={() => setScope('app')} />
            any element of <code>{app}</code>
          </label>
        </fieldset>
        <QueuedCovered covered={covered} wanted={alsoWanted} onWanted={setAlsoWanted} id={id} />
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
              decide(id, { kind: 'allow', scope, also }, { via: 'pointer', key, what: 'the confirm button' });
            }}
          >
            {also.length > 0 ? `Confirm: approve, allow, and approve the ${also.length} queued` : 'Confirm: approve and allow'}
          </ArmedButton>
        </div>
      </div>
    </ModalDialog>
  );
}

/** "Also approve these N queued cards": the list the supervisor named, and whether Confirm approves them too. */
function QueuedCovered({
  covered,
  wanted,
  onWanted,
  id,
}: {
  covered: ReturnType<typeof useCovered>;
  wanted: boolean;
  onWanted: (wanted: boolean) => void;
  id: string;
}) {
  if (covered.state === 'asking') return <p className="muted small">Looking for queued cards this rule covers…</p>;
  if (covered.state === 'unknown')
    return (
      <p className="muted small" data-testid="allow-also-unknown">
        Which queued cards this rule covers is not known: they keep waiting for you.
      </p>
    );
  const n = covered.cards.length;
  if (n === 0)
    return (
      <p className="muted small" data-testid="allow-also-none">
        No other queued card is covered by this rule.
      </p>
    );
  return (
    <div className="allow-also" data-testid="allow-also">
      <label>
        <input
          type="checkbox"
          data-testid="allow-also-check"
          checked={wanted}
          onChange={(e) => onWanted(e.target.checked)}
          aria-describedby={`allow-also-${id}`}
        />
        Also approve {n === 1 ? 'this queued card' : `these ${n} queued cards`}:
      </label>
      <ul id={`allow-also-${id}`} className="plain allow-also-list">
        {covered.cards.map((c) => (
          <li key={c.approval_id} data-testid="allow-also-item" data-approval-id={c.approval_id}>
            <CardSummary card={c} />
            <CoveredText text={cardText(c)} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** What a covered card would type or set, after its summary: ` → “hello”` (nothing for a card that types nothing). */
function CoveredText({ text }: { text: string | undefined }) {
  if (text === undefined) return null;
  return (
    <>
      {' '}
      → “<UntrustedText text={text} />”
    </>
  );
}
