import { useEffect, useState, useSyncExternalStore, type RefObject } from 'react';
import { PANES_STORAGE_KEY, parsePaneWidths, type PaneWidths } from '../../model/paneLayout.js';

/**
 * The person's pane widths, kept in localStorage so a reload or the next session opens as they
 * left it. Outside the app store on purpose: they are this browser's preference, not supervisor state.
 */
let current: PaneWidths = parsePaneWidths(readStored());
/** The panes the person has resized (stored); the others take what the window gives them. */
const chosen = new Set<string>(storedNames(readStored()));
const listeners = new Set<() => void>();

function storedNames(stored: string | null): string[] {
  try {
    const raw: unknown = stored === null ? null : JSON.parse(stored);
    return typeof raw === 'object' && raw !== null ? Object.keys(raw) : [];
  } catch {
    return [];
  }
}

/** Whether the person has set this pane's width (by dragging or with keys), in this browser. */
export function paneChosen(name: keyof PaneWidths): boolean {
  return chosen.has(name);
}

function readStored(): string | null {
  try {
    return window.localStorage.getItem(PANES_STORAGE_KEY);
  } catch {
    return null; // Storage can be refused (a privacy setting); the initial widths serve.
  }
}

/** The preferred widths now; a component re-renders when they change. */
export function usePaneWidths(): PaneWidths {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}

/** Sets some preferred widths and remembers them. */
export function setPaneWidths(update: Partial<PaneWidths>): void {
  current = { ...current, ...update };
  for (const name of Object.keys(update)) chosen.add(name);
  try {
    window.localStorage.setItem(PANES_STORAGE_KEY, JSON.stringify(Object.fromEntries(Object.entries(current).filter(([k]) => chosen.has(k)))));
  } catch {
    // Not remembered, still applied.
  }
  for (const l of listeners) l();
}

/** An element's inner size in CSS pixels, following every resize (before the first measurement: `guess`). */
export function useSize(ref: RefObject<HTMLElement | null>, guess: { width: number; height: number }): { width: number; height: number } {
  const [size, setSize] = useState(guess);
  useEffect(() => {
    const el = ref.current;
    if (el === null) return;
    const measure = () => setSize((s) => (s.width === el.clientWidth && s.height === el.clientHeight ? s : { width: el.clientWidth, height: el.clientHeight }));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return size;
}
