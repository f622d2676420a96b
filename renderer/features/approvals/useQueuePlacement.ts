import { useEffect, useLayoutEffect, useState, type RefObject } from 'react';
import { queuePlaces } from '../../model/queuePlaces.js';
import { selectSettled } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { pointerWithin } from './usePointerInQueue.js';

/**
 * How long a place holds still after its card left while the pointer rests on it: longer than a
 * double click (GTK 400 ms, Windows 500 ms), so a second click lands on the outcome, not on a card
 * shown there. A card shown afterwards still arms for ARM_MS before anything decides it.
 */
export const GUARD_MS = 500;

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

/** Settles the queue now unless the guard holds: placeholders become outcome lines, and waiting cards take the free places. */
function place(list: HTMLElement): void {
  const s = appStore.getState();
  if (!s.settled && !guarded(list, Date.now())) s.settle();
}

/**
 * Where the next card appears (docs/supervision.md#where-the-next-card-appears): after a card
 * leaves, nothing changes while the pointer rests on it (GUARD_MS at most); then, in one layout
 * before the browser paints, what left becomes its one-line outcome and the cards that wait take
 * the free places. Places never move, so nothing shown moves.
 */
export function useQueuePlacement(list: RefObject<HTMLElement | null>): void {
  const settled = useApp(selectSettled);
  useLayoutEffect(() => {
    if (list.current !== null) place(list.current);
  });
  useEffect(() => {
    if (settled) return;
    const retry = () => list.current !== null && place(list.current);
    const timer = setInterval(retry, RETRY_MS);
    document.addEventListener('pointermove', retry, { passive: true });
    return () => {
      clearInterval(timer);
      document.removeEventListener('pointermove', retry);
    };
  }, [settled, list]);
}

/**
 * The queue's places for the room its column has below `list`'s top: sets how many there are
 * (the store shows no more cards than fit whole) and returns their height. Measured on every
 * resize of the column; only a change of the window (the person's own doing) changes them.
 */
export function useQueuePlaces(column: RefObject<HTMLElement | null>, list: RefObject<HTMLElement | null>): number {
  const [height, setHeight] = useState(() => queuePlaces(Number.NaN).height);
  useLayoutEffect(() => {
    const col = column.current;
    if (col === null) return;
    const measure = () => {
      const top = list.current?.getBoundingClientRect().top ?? col.getBoundingClientRect().top;
      const c = col.getBoundingClientRect();
      const padding = parseFloat(getComputedStyle(col).paddingBottom) || 0;
      // The list's top in the column's content, whatever it is scrolled to.
      const room = c.top + col.clientTop + col.clientHeight - (top + col.scrollTop) - padding;
      const places = queuePlaces(room);
      setHeight(places.height);
      appStore.getState().setCapacity(places.capacity);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(col);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [column, list]);
  return height;
}
