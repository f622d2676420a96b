import { useEffect, useRef } from 'react';
import { escapeHiddenPlain, type ApprovableCard } from '../../../protocol/index.js';
import { appStore } from '../../store/useApp.js';
import { ShowAllContext } from '../shell/showAll.js';
import { ModalDialog } from '../shell/ModalDialog.js';
import { formatDuration } from '../shell/time.js';
import { CardKindBody, CardKindRows } from './CardKindFields.js';
import { CardWhere } from './CardWhere.js';
import { RiskHints } from './RiskHints.js';

/**
 * A card whole, on demand (docs/supervision.md#cards-that-fit): every field, the pictures at their
 * size, a command or text to its end. It decides nothing: the person closes it and decides on the
 * card, which has not moved. The end of a text read here counts as read (`data-end-of`), as on the
 * card.
 */
export function CardDetails({ card, now, onClose }: { card: ApprovableCard; now: number; onClose: () => void }) {
  const body = useRef<HTMLDivElement>(null);
  useEndsSeen(body);
  return (
    <ShowAllContext.Provider value="whole">
      <ModalDialog
        title={escapeHiddenPlain(`${card.agent} · ${card.action} — the whole card`)}
        onClose={onClose}
        testId="card-details"
        className="card-details"
      >
        <div ref={body} className="card-details-body">
          <CardWhere connection={card.connection} />
          <RiskHints hints={card.risk_hints} />
          <CardKindBody card={card} />
          <dl className="card-fields">
            <CardKindRows card={card} />
            <div>
              <dt>Waiting</dt>
              <dd>{formatDuration(now - Date.parse(card.created_at))}</dd>
            </div>
            <div>
              <dt>Expires</dt>
              <dd>in {formatDuration(Math.max(0, Date.parse(card.expires_at) - now))}</dd>
            </div>
          </dl>
          <p className="muted small">Decide on the card: close this (Esc), and its buttons are where they were.</p>
        </div>
      </ModalDialog>
    </ShowAllContext.Provider>
  );
}

/** The ends of texts (`data-end-of`) that come wholly into view inside `root` count as read. */
function useEndsSeen(root: React.RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const el = root.current;
    if (el === null) return;
    const seen = new IntersectionObserver(
      (entries) => {
        const ids = entries.flatMap((e) =>
          e.isIntersecting && e.target instanceof HTMLElement && e.target.dataset['endOf'] !== undefined ? [e.target.dataset['endOf']] : [],
        );
        if (ids.length > 0) appStore.getState().noteEndsSeen(ids);
      },
      { threshold: 1 },
    );
    const watch = () => el.querySelectorAll('[data-end-of]').forEach((end) => seen.observe(end));
    watch();
    const added = new MutationObserver(watch);
    added.observe(el, { subtree: true, childList: true });
    return () => {
      seen.disconnect();
      added.disconnect();
    };
  }, [root]);
}
