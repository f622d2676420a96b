import type { HeldApproval } from '../../../protocol/index.js';
import { armKey } from '../../model/arming.js';
import { subjectApp } from '../../model/cardSubject.js';
import { selectConnection, selectHeld, selectRefusal } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { clock } from '../shell/time.js';
import { ArmedButton } from './ArmedButton.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { CardSummary } from './CardSubject.js';
import { measureNow } from './useArming.js';

/**
 * Approved actions the pause holds (docs/supervision.md#pause-and-the-held-list): each
 * runs on Resume unless cancelled here; a cancelled one is answered denied and never runs.
 */
export function HeldList() {
  const held = useApp(selectHeld);
  if (held.length === 0) return null;
  return (
    <section className="held" aria-labelledby="held-heading" data-testid="held-section">
      <h3 id="held-heading">Held by the pause ({held.length})</h3>
      <p className="muted small">Approved, waiting for Resume. Cancel answers the agent “denied”.</p>
      <ul className="plain held-list">
        {held.map((h) => (
          <HeldRow key={h.approval_id} item={h} />
        ))}
      </ul>
    </section>
  );
}

function HeldRow({ item }: { item: HeldApproval }) {
  const id = item.approval_id;
  const key = armKey.held(id);
  const online = useApp(selectConnection).state === 'open';
  const note = useApp(selectRefusal(key));
  const command = useCommand();
  const by =
    item.decision.verdict === 'auto'
      ? `by a rule${item.decision.note !== undefined ? ` (${item.decision.note})` : ''}`
      : item.decision.by === 'human'
        ? 'by a person'
        : 'by policy';
  const cancel = () => {
    const s = appStore.getState();
    const now = Date.now();
    const why = s.whyNotCancel(id, now);
    if (why !== undefined) return s.refuse(key, why, now);
    void command('cancel_held', { approval_id: id });
  };
  return (
    <li className="held-item" data-testid="held-item" data-approval-id={id} data-arm-key={key}>
      <div className="held-what">
        <strong>
          <CardSummary card={item} />
        </strong>
        <div className="muted small">
          {subjectApp(item) !== '' ? <UntrustedText text={subjectApp(item)} /> : 'unnamed app'} · approved <UntrustedText text={by} /> · held since{' '}
          {clock(item.held_since)}
        </div>
      </div>
      <ArmedButton
        armKey={key}
        testId="held-cancel"
        className="deny"
        disabled={!online}
        title="Cancel this approved action: the agent is answered denied"
        onClick={(e) => {
          measureNow(e.currentTarget);
          cancel();
        }}
      >
        Cancel
      </ArmedButton>
      <p className="card-note" role="status" data-testid="held-note">
        {note?.text ?? ''}
      </p>
    </li>
  );
}
