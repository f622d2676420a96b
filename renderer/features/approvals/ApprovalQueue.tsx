import { useEffect, useRef } from 'react';
import { selectConnection, selectDenying, selectPending, selectSelectedApproval } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { useNow } from '../shell/time.js';
import { chooseWindow } from '../windows/WindowsList.js';
import { ApprovalCard } from './ApprovalCard.js';
import { useDecide } from './decide.js';
import { useApprovalKeys } from './useApprovalKeys.js';

/** The approval queue: one card per pending action, keyboard driven (↑↓ j k, A, D, S). */
export function ApprovalQueue() {
  const pending = useApp(selectPending);
  const selected = useApp(selectSelectedApproval);
  const denying = useApp(selectDenying);
  const online = useApp(selectConnection).state === 'open';
  const now = useNow(1000);
  const decide = useDecide();
  const command = useCommand();
  const listRef = useRef<HTMLUListElement>(null);
  const selectedRef = useRef<HTMLElement>(null);
  useApprovalKeys(decide);

  // Highlight the selected card's target: choose its window (the tree follows) and show the tree.
  const selectedCard = pending.find((p) => p.approval_id === selected);
  const targetWindow = selectedCard?.window.window;
  useEffect(() => {
    if (targetWindow === undefined || !online) return;
    chooseWindow(command, targetWindow);
  }, [targetWindow, online, command]);

  // Keep keyboard focus with the selection when it was in the queue (or lost with a removed card).
  useEffect(() => {
    const active = document.activeElement;
    const inQueue = active === null || active === document.body || (listRef.current?.contains(active) ?? false);
    if (inQueue && selectedRef.current !== null && !selectedRef.current.contains(active)) selectedRef.current.focus({ preventScroll: false });
    selectedRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [selected]);

  const select = (id: string) => {
    const s = appStore.getState();
    if (s.selectedApproval !== id) s.selectApproval(id);
    if (s.view !== 'tree') s.setView('tree');
  };

  return (
    <section className="queue" aria-labelledby="queue-heading" data-testid="approval-queue">
      <div className="panel-head">
        <h2 id="queue-heading">
          Approvals <span className={`count${pending.length > 0 ? ' count-alert' : ''}`}>{pending.length}</span>
        </h2>
        <span className="muted small">↑↓ select · A approve · D deny · S allow for session</span>
      </div>
      {pending.length === 0 ? (
        <p className="muted">Nothing waits for you. Actions that change an application will appear here.</p>
      ) : (
        <ul className="plain cards" ref={listRef} aria-label="Pending approvals">
          {pending.map((card) => (
            <li key={card.approval_id}>
              <ApprovalCard
                card={card}
                now={now}
                selected={card.approval_id === selected}
                denying={card.approval_id === denying}
                online={online}
                {...(card.approval_id === selected ? { cardRef: selectedRef } : {})}
                onSelect={() => select(card.approval_id)}
                onDecide={(d) => decide(card.approval_id, d)}
                onDenying={(open) => {
                  select(card.approval_id);
                  appStore.getState().setDenying(open ? card.approval_id : undefined);
                }}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
