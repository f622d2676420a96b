/**
 * The widths of the panes a person can resize, and how they give way when the window is small
 * (docs/supervision.md#both-themes-and-small-screens). Pure: the components measure the space
 * and keep the preferences (localStorage); this decides what fits.
 */

/** A resizable pane: the narrowest and widest it may be, and its width before anyone resized it. */
export interface PaneSpec {
  min: number;
  max: number;
  initial: number;
}

/**
 * The resizable panes: the sidebar (agents, helper, windows), the approval queue, what sits beside
 * the tree (details or the screen; widths), and what sits below it when the centre is too narrow
 * for both side by side (a height). The queue's minimum keeps a card's three buttons whole
 * (Approve, Deny…, Allow for session… need a 320 px card).
 */
export const PANES = {
  sidebar: { min: 180, max: 480, initial: 220 },
  queue: { min: 410, max: 760, initial: 410 },
  detail: { min: 180, max: 900, initial: 250 },
  screen: { min: 180, max: 1400, initial: 520 },
  below: { min: 120, max: 1200, initial: 260 },
} as const satisfies Record<string, PaneSpec>;

/** The name of a resizable pane. */
export type PaneName = keyof typeof PANES;
/** A width for every pane: what the person chose, or what fits. */
export type PaneWidths = Record<PaneName, number>;

/** The element tree is never narrower than this while the window is at least 1024 px wide: at 110 px no row showed a whole name (docs/supervision.md#both-themes-and-small-screens). */
export const TREE_MIN = 280;
/** How wide a separator between panes is (its grab area; the line drawn is thinner). */
export const SPLITTER_WIDTH = 8;
/** The centre column's own padding (the view's 8 px on each side). */
export const CENTER_PADDING = 16;
/** The narrowest the centre column may be: the tree at its minimum (the aside then goes below it) and the padding. */
export const CENTER_MIN = TREE_MIN + CENTER_PADDING;
/** The tree's least height when the aside is below it. */
export const TREE_MIN_HEIGHT = 120;
/** The aside goes beside the tree only where it can be at least this wide with the tree at its minimum; below it otherwise. */
export const ASIDE_SIDE_MIN = 240;
/** How far one arrow key moves a separator; Page Up/Down move it ten times as far. */
export const KEY_STEP = 16;

/**
 * The queue's width before the person resized it: it grows with the window, a third of each pixel
 * past 1024 (410 px at 1024, 495 at 1280, 709 at 1920), so cards are read in room of their own while
 * at 1280 the details still fit beside the tree. Within its bounds: below 410 px a card's three
 * buttons wrap out of its place.
 */
export function defaultQueueWidth(total: number): number {
  return clamp(Math.round(PANES.queue.min + (total - 1024) / 3), PANES.queue.min, PANES.queue.max);
}

/** The widths before anyone resized anything. */
export const INITIAL_WIDTHS: PaneWidths = {
  sidebar: PANES.sidebar.initial,
  queue: PANES.queue.initial,
  detail: PANES.detail.initial,
  screen: PANES.screen.initial,
  below: PANES.below.initial,
};

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), Math.max(lo, hi));

/**
 * The widths that fit `total` px, leaving at least `rest` px for what is not a pane (the flexible
 * part and the separators): each pane at its preferred width within its bounds, then the panes give
 * way in the order listed, each down to its minimum, until the rest fits.
 */
export function fitWidths<N extends PaneName>(total: number, rest: number, preferred: Pick<PaneWidths, N>, giveWay: readonly N[]): Pick<PaneWidths, N> {
  const out = {} as Pick<PaneWidths, N>;
  for (const name of giveWay) out[name] = clamp(Math.round(preferred[name]), PANES[name].min, PANES[name].max);
  let excess = giveWay.reduce((sum, n) => sum + out[n], 0) + rest - total;
  for (const name of giveWay) {
    if (excess <= 0) break;
    const give = Math.min(excess, out[name] - PANES[name].min);
    out[name] -= give;
    excess -= give;
  }
  return out;
}

/** The widest `name` may be now: its own maximum, or what leaves `rest` after the other panes' fitted widths. */
export function maxWidth(name: PaneName, total: number, rest: number, others: number): number {
  return Math.max(PANES[name].min, Math.min(PANES[name].max, Math.floor(total - rest - others)));
}

/** How the tree and its aside share the space: side by side (`size` the aside's width) or the aside below (`size` its height). */
export interface TreeSplit {
  placement: 'beside' | 'below';
  /** The pane the separator resizes: the aside's own width pane beside the tree, `below` under it. */
  pane: PaneName;
  size: number;
  /** The largest `size` may be now. */
  max: number;
}

/** Lays out the tree and its aside (details or the screen) in a `width` × `height` box. */
export function treeSplit(width: number, height: number, preferred: PaneWidths, aside: 'detail' | 'screen'): TreeSplit {
  if (width >= TREE_MIN + SPLITTER_WIDTH + ASIDE_SIDE_MIN) {
    const rest = TREE_MIN + SPLITTER_WIDTH;
    return { placement: 'beside', pane: aside, size: fitWidths(width, rest, preferred, [aside])[aside], max: maxWidth(aside, width, rest, 0) };
  }
  const rest = TREE_MIN_HEIGHT + SPLITTER_WIDTH;
  return { placement: 'below', pane: 'below', size: fitWidths(height, rest, preferred, ['below']).below, max: maxWidth('below', height, rest, 0) };
}

/** The arrow key that widens (or heightens) a pane. */
export type GrowKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown';
const OPPOSITE: Record<GrowKey, GrowKey> = { ArrowLeft: 'ArrowRight', ArrowRight: 'ArrowLeft', ArrowUp: 'ArrowDown', ArrowDown: 'ArrowUp' };

/**
 * The size a separator's key asks for: arrows move the separator by KEY_STEP, Page Up/Down by ten
 * steps, Home and End to the pane's smallest and largest. `grows` is the arrow that enlarges the pane
 * (ArrowRight for a pane left of its separator, ArrowLeft for one right of it, ArrowUp for one below
 * it). Undefined: not a key a separator handles.
 */
export function keyWidth(key: string, width: number, min: number, max: number, grows: GrowKey): number | undefined {
  const shrinks = OPPOSITE[grows];
  const to = (v: number) => clamp(v, min, max);
  if (key === grows) return to(width + KEY_STEP);
  if (key === shrinks) return to(width - KEY_STEP);
  if (key === 'PageUp') return to(width + KEY_STEP * 10);
  if (key === 'PageDown') return to(width - KEY_STEP * 10);
  if (key === 'Home') return min;
  if (key === 'End') return max;
  return undefined;
}

/** Where the preferences are kept in the browser (localStorage). */
export const PANES_STORAGE_KEY = 'overseer.panes.v1';

/**
 * The preferences read back from storage: any pane missing, not a number or out of its bounds
 * takes its initial or nearest width, so a stale or edited entry never breaks the layout.
 */
export function parsePaneWidths(stored: string | null): PaneWidths {
  const out: PaneWidths = { ...INITIAL_WIDTHS };
  if (stored === null) return out;
  let raw: unknown;
  try {
    raw = JSON.parse(stored);
  } catch {
    return out;
  }
  if (typeof raw !== 'object' || raw === null) return out;
  for (const name of Object.keys(PANES) as PaneName[]) {
    const v = (raw as Record<string, unknown>)[name];
    if (typeof v === 'number' && Number.isFinite(v)) out[name] = clamp(Math.round(v), PANES[name].min, PANES[name].max);
  }
  return out;
}
