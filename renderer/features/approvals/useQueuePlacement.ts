import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import { VISIBLE_MIN } from '../../store/arming.js';
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
 * Places what changed: false while the guard holds. The next card's visibility decides how much
 * collapses: when it is on screen, only what follows the last shown card (nothing shown moves).
 */
function place(list: HTMLElement): { placed: boolean; follow: boolean } {
  const s = appStore.getState();
  if (s.settled) return { placed: true, follow: false };
  if (guarded(list, Date.now())) return { placed: false, follow: false };
  const left = s.slots.some((x) => x.left !== undefined && x.line !== true);
  const next = selectedEl(list);
  s.settle(left && next !== null && shareOnScreen(next) < VISIBLE_MIN);
  return { placed: true, follow: left };
}

/**
 * Scrolls the selected card into view when it is not (90%) on screen, unless that would bring a
 * card under the pointer: the one scroll the queue makes by itself after a decision.
 */
function follow(list: HTMLElement): void {
  const card = selectedEl(list);
  if (card === null || shareOnScreen(card) >= VISIBLE_MIN) return;
  const scroller = scrollerOf(card);
  if (scroller === undefined) return;
  const r = card.getBoundingClientRect();
  const view = viewOf(card);
  const dy = r.top < view.top ? r.top - view.top - MARGIN_PX : Math.min(r.bottom - view.bottom + MARGIN_PX, r.top - view.top - MARGIN_PX);
  if (Math.abs(dy) < 1) return;
  const p = pointerAt();
  if (p !== undefined) {
    for (const other of list.querySelectorAll<HTMLElement>('[data-testid="pending-card"]')) {
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
  const following = useRef(false);
  useLayoutEffect(() => {
    if (list.current === null) return;
    if (!appStore.getState().settled) {
      const r = place(list.current);
      if (r.follow) following.current = true;
      return;
    }
    if (following.current) {
      following.current = false;
      follow(list.current);
    }
  });
  useEffect(() => {
    if (settled) return;
    const retry = () => {
      if (list.current !== null && place(list.current).follow) following.current = true;
    };
    const timer = setInterval(retry, RETRY_MS);
    document.addEventListener('pointermove', retry, { passive: true });
    return () => {
      clearInterval(timer);
      document.removeEventListener('pointermove', retry);
    };
  }, [settled, list]);
}
