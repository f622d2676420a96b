/**
 * Arming (docs/supervision.md#arming-and-decisions): a control that decides something
 * works only once what it belongs to has sat still, at least 90% on screen, at its place for
 * ARM_MS. A card that just arrived, that moved under the pointer, or that is partly scrolled
 * away cannot be decided by a click or a key meant for whatever the person saw before.
 */

/** How long a card (or a confirm button, or a held row) must be still on screen before it decides anything. */
export const ARM_MS = 700;

/** The share of a card that must be on screen (inside its scroll viewport and the window) for it to arm. */
export const VISIBLE_MIN = 0.9;

/** Layout jitter below this many pixels is not a move. */
const MOVE_PX = 1;

/** Why a control's arming (re)started: it appeared, it moved, or it came (back) fully into view. */
export type ArmCause = 'appeared' | 'moved' | 'shown';

/** Where something that can decide was last seen on screen, how much of it, and since when it has been there. */
export interface Seen {
  x: number;
  y: number;
  /** When it last appeared, moved, or came fully into view (arming counts from here). */
  since: number;
  /** False while it sits where it first appeared; true once it moved (the reason given differs). */
  moved: boolean;
  /** The share of it on screen, 0–1: below VISIBLE_MIN it is not armed. */
  visible: number;
  cause: ArmCause;
}

/** Seen positions by arm key: `card:<approval_id>`, `confirm:<approval_id>`, `held:<approval_id>`. */
export type SeenMap = Readonly<Record<string, Seen>>;

/** One measurement: the arm key, the element's top-left corner in viewport pixels, and the share of it on screen (1 when absent). */
export type Sighting = readonly [key: string, x: number, y: number, visible?: number];

/** The arm key of a card, of its allow-for-session confirm button, and of a held row. */
export const armKey = {
  card: (id: string) => `card:${id}`,
  confirm: (id: string) => `confirm:${id}`,
  held: (id: string) => `held:${id}`,
};

const onScreen = (visible: number): boolean => visible >= VISIBLE_MIN;

/**
 * Applies measurements: a new key starts arming now, a key at a new place re-arms, a key that
 * comes back to at least 90% on screen re-arms (the person has not seen it whole until now), keys
 * not measured are dropped when `complete` (the caller measured everything that is on screen).
 * Returns the same object when nothing changed, so subscribers do not re-render.
 */
export function see(seen: SeenMap, sightings: readonly Sighting[], now: number, complete = false): SeenMap {
  let next: Record<string, Seen> | undefined;
  const edit = (): Record<string, Seen> => (next ??= { ...seen });
  for (const [key, x, y, visible = 1] of sightings) {
    const prev = seen[key];
    if (prev === undefined) edit()[key] = { x, y, since: now, moved: false, visible, cause: 'appeared' };
    else if (Math.abs(prev.x - x) >= MOVE_PX || Math.abs(prev.y - y) >= MOVE_PX) edit()[key] = { x, y, since: now, moved: true, visible, cause: 'moved' };
    else if (onScreen(prev.visible) !== onScreen(visible)) edit()[key] = { ...prev, since: now, visible, cause: 'shown' };
    else if (Math.abs(prev.visible - visible) >= 0.01) edit()[key] = { ...prev, visible };
  }
  if (complete) {
    const measured = new Set(sightings.map(([k]) => k));
    for (const key of Object.keys(seen)) if (!measured.has(key)) delete edit()[key];
  }
  return next ?? seen;
}

/** Everything starts arming again (the page was hidden: nobody saw what arrived meanwhile). */
export function rearmAll(seen: SeenMap, now: number): SeenMap {
  return Object.fromEntries(Object.entries(seen).map(([k, s]) => [k, { ...s, since: now }]));
}

/** When a seen control arms (epoch ms); undefined while it was never seen, or is less than 90% on screen. */
export function armsAt(s: Seen | undefined): number | undefined {
  return s === undefined || !onScreen(s.visible) ? undefined : s.since + ARM_MS;
}

/** Whether a seen control is at least 90% on screen now. */
export function wholeOnScreen(s: Seen | undefined): boolean {
  return s !== undefined && onScreen(s.visible);
}

const seconds = (ms: number): string => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/**
 * Why a control may not decide yet, for people; undefined when it is armed. `what` names it
 * ("this card", "the confirm button").
 */
export function notArmedWhy(s: Seen | undefined, now: number, what = 'this card'): string | undefined {
  if (s === undefined) return `Not decided: ${what} is not on screen yet — read it first.`;
  if (!onScreen(s.visible)) return `Not decided: only ${Math.floor(s.visible * 100)}% of ${what} is on screen — bring it fully into view and read it first.`;
  const age = now - s.since;
  if (age >= ARM_MS) return undefined;
  if (s.cause === 'moved') return `Not decided: ${what} moved ${seconds(age)} ago — check that it is the one you mean.`;
  if (s.cause === 'shown') return `Not decided: ${what} came fully into view ${seconds(age)} ago — read it first.`;
  return `Not decided: ${what} appeared ${seconds(age)} ago — read it first.`;
}

/** Why a key may not decide the selected card yet (it must have been selected for ARM_MS); undefined when it may. */
export function selectionWhy(selectedSince: number, now: number): string | undefined {
  const age = now - selectedSince;
  return age >= ARM_MS ? undefined : `Not decided: this card was selected ${seconds(age)} ago — read it first.`;
}

/**
 * Why a decision or a cancel the person made was not sent, besides arming: the words of every
 * other "Not decided" and "Not cancelled" note (the store decides which applies).
 */
export const NOT_SENT = {
  offline: 'Not decided: not connected to the supervisor.',
  gone: 'Not decided: this card is no longer in the queue.',
  decidedHere: 'Already decided here — nothing more was sent.',
  left: 'Not decided: this card already left the queue (see its outcome).',
  selectFirst: 'Not decided: select the card first.',
  refused: (error: string): string => `Not decided: ${error}`,
  cancelOffline: 'Not cancelled: not connected to the supervisor.',
  cancelGone: 'Not cancelled: this action is no longer held.',
  /** An arming note said of a held row's Cancel. */
  asCancel: (why: string): string => why.replace(/^Not decided/, 'Not cancelled'),
} as const;
