import { useEffect, useLayoutEffect, useReducer, type RefObject } from 'react';
import { ARM_MS, armsAt, VISIBLE_MIN, type Sighting } from '../../model/arming.js';
import { selectSeen, selectSelectedSince } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { shareIn, viewOf } from './visibility.js';

/** How often positions are measured between renders (layout can shift without the queue re-rendering). */
const MEASURE_MS = 100;

/**
 * The element's top-left corner on screen and the share of it on screen, or undefined when it is
 * not rendered. A card that marks its parts (`data-arm-part`: its words and its controls) is judged
 * by what the person reads and acts on — the least share of those parts on screen — not by a
 * picture cut at its edge (docs/supervision.md#arming-and-decisions).
 */
function sighting(el: HTMLElement, cache?: Map<Element, boolean>): Sighting | undefined {
  const key = el.dataset['armKey'];
  const r = el.getBoundingClientRect();
  if (key === undefined || (r.width === 0 && r.height === 0)) return undefined;
  const parts = [...el.querySelectorAll<HTMLElement>('[data-arm-part]')].filter((p) => p.closest('[data-arm-key]') === el);
  const shares = parts.length > 0 ? parts.map((p) => shareIn(p.getBoundingClientRect(), viewOf(p, cache))) : [shareIn(r, viewOf(el, cache))];
  const share = Math.round(Math.min(...shares) * 1000) / 1000;
  return [key, Math.round(r.left * 10) / 10, Math.round(r.top * 10) / 10, share];
}

function measureAll(root: HTMLElement): void {
  const sightings: Sighting[] = [];
  const cache = new Map<Element, boolean>();
  for (const el of root.querySelectorAll<HTMLElement>('[data-arm-key]')) {
    const s = sighting(el, cache);
    if (s !== undefined) sightings.push(s);
  }
  appStore.getState().noteSeen(sightings, Date.now(), true);
  // The end of a card's text (data-end-of, see UntrustedText) counts as read once it is on screen:
  // not cut off by a collapsed block, the queue's scroll viewport, its sticky head or the window.
  const ends: string[] = [];
  for (const el of root.querySelectorAll<HTMLElement>('[data-end-of]')) {
    const id = el.dataset['endOf'];
    if (id === undefined) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && shareIn(r, viewOf(el, cache)) >= VISIBLE_MIN) ends.push(id);
  }
  if (ends.length > 0) appStore.getState().noteEndsSeen(ends);
}

/**
 * Measures where every control that decides sits on screen (elements with `data-arm-key` under
 * `root`) and how much of it is visible, and which texts' ends (`data-end-of`) are on screen: after each render, on resize and scroll, and every
 * 100 ms for shifts nothing announces. A control that moved, or came back fully into view, arms
 * again; after the page was hidden, everything does.
 */
export function useArmingMeasure(root: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    if (root.current !== null) measureAll(root.current);
  });
  useEffect(() => {
    const measure = () => root.current !== null && measureAll(root.current);
    const timer = setInterval(measure, MEASURE_MS);
    const resize = new ResizeObserver(measure);
    if (root.current !== null) resize.observe(root.current);
    const onVisibility = () => {
      if (document.visibilityState === 'visible') appStore.getState().rearm(Date.now());
    };
    window.addEventListener('resize', measure);
    document.addEventListener('scroll', measure, true);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearInterval(timer);
      resize.disconnect();
      window.removeEventListener('resize', measure);
      document.removeEventListener('scroll', measure, true);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [root]);
}

/** Measures one control now (at the moment it is clicked), so a move since the last measurement counts. */
export function measureNow(el: Element | null): void {
  const target = el?.closest<HTMLElement>('[data-arm-key]');
  if (target === null || target === undefined) return;
  const s = sighting(target);
  if (s !== undefined) appStore.getState().noteSeen([s], Date.now());
}

/** Whether the control with this arm key is armed, and since when it has been arming (undefined while not on screen); re-renders when it arms. */
export function useArmed(key: string): { armed: boolean; since: number | undefined } {
  const seen = useApp(selectSeen(key));
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const at = armsAt(seen);
  const armed = at !== undefined && Date.now() >= at;
  useEffect(() => {
    if (at === undefined || armed) return;
    const timer = setTimeout(rerender, Math.max(0, at - Date.now()) + 5);
    return () => clearTimeout(timer);
  }, [at, armed]);
  // No arming progress to show while it is not (90%) on screen: it is not arming then.
  return { armed, since: at === undefined ? undefined : seen?.since };
}

/** Whether keys may decide the selected card yet (it must have been selected for the arming time); re-renders when they may. */
export function useKeysArmed(selected: boolean): boolean {
  const since = useApp(selectSelectedSince);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const at = since + ARM_MS;
  const ready = selected && Date.now() >= at;
  useEffect(() => {
    if (!selected || ready) return;
    const timer = setTimeout(rerender, Math.max(0, at - Date.now()) + 5);
    return () => clearTimeout(timer);
  }, [selected, ready, at]);
  return ready;
}
