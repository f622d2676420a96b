import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import { selectSettled } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { pointerAt, pointerWithin } from './usePointerInQueue.js';
import { scrollerOf, shareOnScreen, viewOf } from './visibility.js';

/**
 * How long the queue holds still after a card left while the pointer rests where it was: longer
 * than a double click (GTK 400 ms, Windows 500 ms), so a second click lands on the outcome, not on
 * a card that moved or arrived. A card shown afterwards still arms for ARM_MS before anything
 * decides it.
 */
export const GUARD_MS = 500;

/** Placement aims higher than arming (90%): the next card is shown whole, its note line included. */
const WHOLE = 0.999;

/** Space kept between a card scrolled into view and the edge of the queue. */
const MARGIN_PX = 8;

/** While unsettled: how often the guard is checked (the pointer may leave, or the guard time pass). */
const RETRY_MS = 50;

const slotEl = (list: HTMLElement, id: string) => list.querySelector<HTMLElement>(`[data-slot="${CSS.escape(id)}"]`);

/** Whether a card that just left still shields the pointer that may have decided it. */
function guarded(list: HTMLElement, now: number): boolean {
  for (const slot of appStore.getState().slots) {
    if (slot.left === undefined || slot.line === true || now - slot.left >= GUARD_MS) continue;
    const el = slotEl(list, slot.id);
    if (el !== null && pointerWithin(el.getBoundingClientRect())) return true;
  }
  return false;
}

/** The selected card as shown (not while entering), or null. */
function selectedEl(list: HTMLElement): HTMLElement | null {
  const id = appStore.getState().selectedApproval;
  if (id === undefined) return null;
  const li = slotEl(list, id);
  return li === null || li.dataset['entering'] !== undefined ? null : li.querySelector<HTMLElement>('[data-testid="pending-card"]');
}

/**
 * Places what changed (undefined while the guard holds). The next card's visibility decides how
 * much collapses: when it is wholly on screen, only what follows the last shown card (nothing
 * shown moves).
 */
function place(list: HTMLElement): Follow | undefined {
  const s = appStore.getState();
  if (s.settled || guarded(list, Date.now())) return undefined;
  const left = s.slots.some((x) => x.left !== undefined && x.line !== true);
  const entering = new Set(s.slots.filter((x) => x.entering === true).map((x) => x.id));
  const next = selectedEl(list);
  s.settle(left && next !== null && shareOnScreen(next) < WHOLE);
  // After a decision the next card is followed; after an arrival only when it is the card to decide next (the queue had none).
  const selected = s.selectedApproval;
  return left || (selected !== undefined && entering.has(selected)) ? { fresh: entering } : undefined;
}

/** A scroll to do once the settled queue is laid out; cards just shown may end under the pointer (they arm from now on anyway). */
interface Follow {
  fresh: ReadonlySet<string>;
}

/**
 * Scrolls the selected card into view when it is not wholly on screen, unless that would bring a
 * card the person already saw under the pointer: the one scroll the queue makes by itself.
 */
function follow(list: HTMLElement, { fresh }: Follow): void {
  const card = selectedEl(list);
  if (card === null || shareOnScreen(card) >= WHOLE) return;
  const scroller = scrollerOf(card);
  if (scroller === undefined) return;
  const r = card.getBoundingClientRect();
  const view = viewOf(card);
  const dy = r.top < view.top ? r.top - view.top - MARGIN_PX : Math.min(r.bottom - view.bottom + MARGIN_PX, r.top - view.top - MARGIN_PX);
  if (Math.abs(dy) < 1) return;
  const p = pointerAt();
  if (p !== undefined) {
    for (const other of list.querySelectorAll<HTMLElement>('[data-testid="pending-card"]')) {
      if (fresh.has(other.dataset['approvalId'] ?? '')) continue;
      const o = other.getBoundingClientRect();
      if (p.x >= o.left && p.x <= o.right && p.y >= o.top - dy && p.y <= o.bottom - dy) return;
    }
  }
  scroller.scrollTop += dy;
}

/**
 * Where the next card appears (docs/supervision.md#where-the-next-card-appears): after a card
 * leaves, nothing moves while the pointer rests on it (GUARD_MS at most); then what left collapses
 * to one-line outcomes — only below the last card shown when the next card is already on screen,
 * everywhere when it is not — and entering cards are shown in their final place, before the
 * browser paints. The selected next card is scrolled into view if needed and if that moves no card
 * under the pointer.
 */
export function useQueuePlacement(list: RefObject<HTMLElement | null>): void {
  const settled = useApp(selectSettled);
  const following = useRef<Follow | undefined>(undefined);
  useLayoutEffect(() => {
    if (list.current === null) return;
    if (!appStore.getState().settled) {
      following.current = place(list.current) ?? following.current;
      return;
    }
    if (following.current !== undefined) {
      follow(list.current, following.current);
      following.current = undefined;
    }
  });
  useEffect(() => {
    if (settled) return;
    const retry = () => {
      if (list.current !== null) following.current = place(list.current) ?? following.current;
    };
    const timer = setInterval(retry, RETRY_MS);
    document.addEventListener('pointermove', retry, { passive: true });
    return () => {
      clearInterval(timer);
      document.removeEventListener('pointermove', retry);
    };
  }, [settled, list]);
}
