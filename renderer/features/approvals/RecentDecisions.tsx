import { useMemo } from 'react';
import { outcomeLine } from '../../model/outcome.js';
import { selectHeld, selectRecords } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { clock } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { CardSummary } from './CardSubject.js';
import { OUTCOME_LIMIT } from './Placeholder.js';

/** How many recent decisions are listed. */
const RECENT = 10;

/** The last cards that left the queue, newest first, with their outcome: kept after the placeholders collapse. */
export function RecentDecisions() {
  const records = useApp(selectRecords);
  const held = useApp(selectHeld);
  const heldIds = useMemo(() => new Set(held.map((h) => h.approval_id)), [held]);
  if (records.length === 0) return null;
  return (
    <section className="recent" aria-labelledby="recent-heading" data-testid="recent-decisions">
      <h3 id="recent-heading">Recent decisions</h3>
      <ul className="plain recent-list">
        {records.slice(0, RECENT).map((r) => {
          const line = outcomeLine(r, heldIds.has(r.approval_id));
          return (
            <li key={r.approval_id} className="recent-item" data-testid="recent-decision" data-approval-id={r.approval_id}>
              <span className="muted small">{clock(new Date(r.at).toISOString())}</span>{' '}
              <span className="recent-what">
                <CardSummary card={r.card} />
              </span>
              <div className={`outcome tone-${line.tone}`} data-testid="recent-outcome">
                <UntrustedText text={line.text} limit={OUTCOME_LIMIT} />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
