import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import { unreachable, type PendingApproval } from '../../../protocol/index.js';
import type { Slot } from '../../store/approvalsSlice.js';
import { cardWindowId } from '../../model/cardSubject.js';
import { cardConnectionName } from '../../model/connectionWords.js';
import { QUEUE_NOTE } from '../../store/approvalsSlice.js';
import { emptyQueueText, inFlight } from '../../model/outcome.js';
import {
  selectAgents,
  selectAllowing,
  selectBrake,
  selectConnection,
  selectDenying,
  selectHeld,
  selectLive,
  selectPending,
  selectRecords,
  selectRefusal,
  selectSelectedApproval,
  selectSettled,
  selectSlots,
  selectViewedConnection,
} from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { useNow } from '../shell/time.js';
import { chooseWindow } from '../windows/WindowsList.js';
import { ApprovalCard } from './ApprovalCard.js';
import { useDecide, type Decision } from './decide.js';
import { useQuestionHandoffDecide } from './decideQuestionHandoff.js';
import { HandoffCard } from './HandoffCard.js';
import { QuestionCard } from './QuestionCard.js';
import { HeldList } from './HeldList.js';
import { Placeholder } from './Placeholder.js';
import { RecentDecisions } from './RecentDecisions.js';
import { useApprovalKeys } from './useApprovalKeys.js';
import { useArmingMeasure } from './useArming.js';
import { usePointerInQueue } from './usePointerInQueue.js';
import { useQueuePlacement, useQueuePlaces } from './useQueuePlacement.js';
import './approvals.css';

/** How often placeholders are considered for collapsing and old notes dropped. */
const TICK_MS = 250;

/**
 * The approval queue, keyboard driven (↑↓ j k, A, D, S), in places of one height that never move
 * (docs/supervision.md#where-the-next-card-appears): as many as fit the column whole. A card that
 * leaves keeps its frame while the pointer rests on it, then shows its one-line outcome, and its
 * place is free; a new card takes the first free place, or waits, counted in the head, until one
 * is. Its head stays in view, so a note about a key is always seen. Below the places: what the
 * pause holds, and the recent decisions with their outcomes.
 */
export function ApprovalQueue() {
  const slots = useApp(selectSlots);
  const pending = useApp(selectPending);
  const held = useApp(selectHeld);
  const records = useApp(selectRecords);
  const brake = useApp(selectBrake);
  const selected = useApp(selectSelectedApproval);
  const denying = useApp(selectDenying);
  const allowing = useApp(selectAllowing);
  const online = useApp(selectConnection).state === 'open';
  const live = useApp(selectLive);
  const queueNote = useApp(selectRefusal(QUEUE_NOTE));
  const settled = useApp(selectSettled);
  const agents = useApp(selectAgents).length;
  const now = useNow(1000);
  const decide = useDecide();
  const command = useCommand();
  const rootRef = useRef<HTMLElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const selectedRef = useRef<HTMLElement>(null);
  useApprovalKeys(decide, listRef);
  useQueuePlacement(listRef);
  const columnRef = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    columnRef.current = rootRef.current?.closest<HTMLElement>('.queue-column') ?? rootRef.current;
  }, []);
  const placeHeight = useQueuePlaces(columnRef, listRef);
  useArmingMeasure(rootRef);
  usePointerInQueue(rootRef);

  useEffect(() => {
    const timer = setInterval(() => appStore.getState().tick(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);

  // Highlight the selected card's target: choose its window (the tree follows) and show the tree.
  const selectedCard = slots.find((x) => x.id === selected && x.left === undefined)?.card;
  const viewed = useApp(selectViewedConnection);
  // Only on the desktop the tree shows: a window id of another connection means nothing here (docs/supervision.md#where-an-action-lands).
  const targetWindow = selectedCard === undefined || cardConnectionName(selectedCard) !== viewed ? undefined : cardWindowId(selectedCard);
  useEffect(() => {
    if (targetWindow === undefined || !online) return;
    chooseWindow(command, targetWindow);
  }, [targetWindow, online, command]);

  // Keep keyboard focus with the selection when it was in the queue (or lost with a decided card),
  // once it is shown. Never scroll for it: useQueuePlacement decides when the queue may move.
  // Focus that never was in the queue stays where the person put it: a page that opens starts at
  // the top of the screen (the brakes), not at a card.
  const focusWasInQueue = useRef(false);
  useEffect(() => {
    const onFocusIn = (e: FocusEvent) => {
      focusWasInQueue.current = e.target instanceof Node && (listRef.current?.contains(e.target) ?? false);
    };
    document.addEventListener('focusin', onFocusIn);
    return () => document.removeEventListener('focusin', onFocusIn);
  }, []);
  const selectedShown = slots.some((x) => x.id === selected && x.left === undefined);
  useEffect(() => {
    const active = document.activeElement;
    const lost = active === null || active === document.body;
    const inQueue = (lost && focusWasInQueue.current) || (active !== null && (listRef.current?.contains(active) ?? false));
    if (inQueue && selectedRef.current !== null && !selectedRef.current.contains(active)) selectedRef.current.focus({ preventScroll: true });
  }, [selected, selectedShown]);

  const select = (id: string) => {
    const s = appStore.getState();
    s.selectApproval(id);
    if (s.view !== 'tree') s.setView('tree');
  };

  const shown = slots.filter((x) => x.left === undefined).length;
  const waiting = pending.length;
  const unshown = waiting - shown;
  return (
    <section className="queue" ref={rootRef} aria-labelledby="queue-heading" data-testid="approval-queue" data-settled={settled} data-sticky-root>
      <div className="queue-head" data-sticky-head data-testid="queue-head">
        <div className="panel-head">
          <h2 id="queue-heading">
            Approvals <span className={`count${waiting > 0 ? ' count-alert' : ''}`}>{waiting}</span>
          </h2>
          <span className="queue-more small" data-testid="queue-more" role="status">
            {unshown > 0 ? `${unshown} more ${unshown === 1 ? 'waits' : 'wait'} for a free place below` : ''}
          </span>
        </div>
        <p className="queue-line small">
          <span role="status" data-testid="queue-note" className={queueNote !== undefined ? 'queue-note' : undefined}>
            {queueNote?.text ?? ''}
          </span>
          {queueNote === undefined && <span className="muted">↑↓ select · A approve · D deny · S allow for session</span>}
        </p>
      </div>
      <ul className="plain cards" ref={listRef} aria-label="Pending approvals" style={{ gridAutoRows: `${placeHeight}px` }}>
        {slots.map((slot) => (
          <QueueSlot
            key={slot.id}
            slot={slot}
            now={now}
            selected={slot.id === selected}
            denying={slot.id === denying}
            allowing={slot.id === allowing}
            online={online}
            selectedRef={selectedRef}
            onSelect={() => select(slot.id)}
            decide={decide}
          />
        ))}
      </ul>
      {waiting === 0 && (
        <p className="muted" data-testid="queue-empty">
          {emptyQueueText(
            live,
            held.map((h) => h.approval_id),
            records.filter((r) => inFlight(r, now)).map((r) => r.approval_id),
            brake === 'paused',
            agents,
          )}
        </p>
      )}
      <HeldList />
      <RecentDecisions />
    </section>
  );
}

interface SlotProps {
  slot: Slot;
  now: number;
  selected: boolean;
  denying: boolean;
  allowing: boolean;
  online: boolean;
  selectedRef: RefObject<HTMLElement | null>;
  onSelect: () => void;
  decide: (id: string, decision: Decision, aim: { via: 'pointer'; key: string; what?: string }) => boolean;
}

/** One place in the queue: a card while it waits, then its frame (while the pointer may rest on it), then its one-line outcome. */
function QueueSlot({ slot, now, selected, denying, allowing, online, selectedRef, onSelect, decide }: SlotProps) {
  const decideQuestionHandoff = useQuestionHandoffDecide();
  const isLive = slot.left === undefined;
  const line = !isLive && slot.line === true;
  /** The card a kind of pending item is shown as: a question, a handoff, or an action to approve or deny. */
  const liveCard = (card: PendingApproval) => {
    const shared = { now, selected, online, ...(selected ? { cardRef: selectedRef } : {}), onSelect };
    switch (card.kind) {
      case 'question':
        return <QuestionCard card={card} {...shared} noting={denying} decide={decideQuestionHandoff} />;
      case 'handoff':
        return <HandoffCard card={card} {...shared} decide={decideQuestionHandoff} />;
      case 'element':
      case 'screen':
      case 'remote_exec':
      case 'add_connection':
      case 'agent_grant':
        return <ApprovalCard card={card} {...shared} denying={denying} allowing={allowing} decide={decide} />;
      default:
        return unreachable(card);
    }
  };
  return (
    <li data-slot={slot.id} className={isLive ? 'slot-live' : line ? 'slot-line' : 'slot-left'}>
      {isLive ? liveCard(slot.card) : <Placeholder card={slot.card} line={line} />}
    </li>
  );
}
