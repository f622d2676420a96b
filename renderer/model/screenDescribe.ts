// How a screen input reads in words: the picture's alt text, the card's lines and the receipt's
// compact line all say the same thing about what the input does and where it lands.
import type { Point, ScreenApproval, ScreenInputDetail, ScreenWindow } from '../../protocol/index.js';

/** What the input does: `double click`, `right click`, `drag`, `scroll down 3 detents`, `press ctrl+s`. */
export function inputVerb(action: string, d: ScreenInputDetail): string {
  const button = d.button !== undefined && d.button !== 'left' ? `${d.button} ` : '';
  switch (action) {
    case 'click':
      return `${d.count === 2 ? 'double ' : d.count === 3 ? 'triple ' : ''}${button}click`;
    case 'move':
      return 'move the pointer';
    case 'left_click_drag':
      return 'drag';
    case 'mouse_down':
      return `press the ${d.button ?? 'left'} button`;
    case 'mouse_up':
      return `release the ${d.button ?? 'left'} button`;
    case 'scroll':
      return `scroll ${d.direction ?? ''} ${d.amount ?? 3} ${d.amount === 1 ? 'detent' : 'detents'}`.replace(/ {2}/, ' ');
    case 'type_text':
      return 'type text';
    case 'key':
      return `press ${d.keys ?? 'keys'}`;
    case 'hold_key':
      return `hold ${d.keys ?? 'keys'}${d.duration_ms !== undefined ? ` for ${d.duration_ms} ms` : ''}`;
    default:
      return action.replace(/_/g, ' ');
  }
}

const at = (image: Point | undefined, physical: Point | undefined): string =>
  image !== undefined
    ? `${image.x},${image.y} of the picture${physical !== undefined ? ` (screen ${physical.x},${physical.y})` : ''}`
    : physical !== undefined
      ? `screen ${physical.x},${physical.y}`
      : '';

/** A window as people read it: `"Canvas" · canvasApp · pid 4242`. */
export function windowLine(w: Pick<ScreenWindow, 'title' | 'app' | 'pid'>): string {
  return [`“${w.title}”`, w.app, w.pid !== undefined ? `pid ${w.pid}` : undefined].filter((x) => x !== undefined && x !== '').join(' · ');
}

/** The element at the point as people read it: `button "OK"`. */
export function pointElementLine(e: NonNullable<ScreenInputDetail['element']>): string {
  return `${e.role}${e.name !== undefined && e.name !== '' ? ` “${e.name}”` : ''}`;
}

/** Roles in words a person uses (the tree's shared vocabulary is for agents): `edit` is a text field. */
const ROLE_WORDS: Record<string, string> = {
  edit: 'text field',
  check_box: 'checkbox',
  combo_box: 'drop-down',
  spinner: 'number field',
  tab: 'tab strip',
  tab_item: 'tab',
  label: 'text',
  pane: 'area',
  unknown: 'element',
};

/** An element's role as people say it: `text field`, `checkbox`, `radio button`. */
export function roleWords(role: string): string {
  return ROLE_WORDS[role] ?? role.replace(/_/g, ' ');
}

/** Keys and text go where the keyboard focus is, not where the pointer is. */
export const KEYBOARD_ACTIONS: ReadonlySet<string> = new Set(['type_text', 'key', 'hold_key']);

/**
 * Where an input lands, as the parts of a sentence a card renders (each string from the application
 * shown as untrusted text): the element the application names there, or that has the focus, in
 * words, and the window and application.
 */
export interface Place {
  /** The element's name as the application gives it (absent when it gives none). */
  name?: string;
  /** Its role in words. */
  kind: string;
  password: boolean;
  /** Keys and text: the element has the keyboard focus. */
  focus: boolean;
  /** The application named nothing finer than the window itself. */
  bare: boolean;
  window?: { title: string; app: string };
}

/** The place of an input (see Place); undefined when neither an element nor a window is known. */
export function placeOf(action: string, d: ScreenInputDetail): Place | undefined {
  const e = d.element;
  const w = d.window;
  if (e === undefined && w === undefined) return undefined;
  const name = e?.name !== undefined && e.name.trim() !== '' ? e.name : undefined;
  const bare = e === undefined || e.role === 'window' || e.role === 'dialog';
  return {
    ...(name !== undefined && !bare ? { name } : {}),
    kind: bare ? 'window' : roleWords(e.role),
    password: e?.password === true,
    focus: KEYBOARD_ACTIONS.has(action),
    bare,
    ...(w !== undefined ? { window: { title: w.title, app: w.app } } : {}),
  };
}

/**
 * Where the application names nothing finer than its window: for keys and text, that no element
 * has the keyboard focus as far as it says (the keys still go to that window).
 */
export function bareWords(focus: boolean): string {
  return focus ? 'where the application names no element with the keyboard focus' : 'where the application names no element';
}

/** A window as a card names it: `“Overseer Fixture” (app python3)`. */
export function windowPhrase(w: { title: string; app: string }): string {
  return `“${w.title}”${w.app !== '' && w.app !== w.title ? ` (app ${w.app})` : ''}`;
}

/**
 * The place in one sentence: `the “Name” text field in “Overseer Fixture” (app python3)`; for keys
 * `the “Name” text field, which has the keyboard focus, in …`; where the application names nothing
 * finer than its window, `“Overseer Fixture” (app python3), where the application names no element`.
 */
export function placeLine(p: Place): string {
  const window = p.window !== undefined ? windowPhrase(p.window) : undefined;
  if (p.bare) return window !== undefined ? `${window}, ${bareWords(p.focus)}` : 'no element the application names';
  const element = `the ${p.name !== undefined ? `“${p.name}”` : 'unnamed'} ${p.kind}${p.focus ? ', which has the keyboard focus,' : ''}`;
  return window !== undefined ? `${element} in ${window}` : element.replace(/,$/, '');
}

/**
 * Where an input lands, in one sentence: `click at 412,300 of the picture (screen 824,600) on button
 * "OK" in "Canvas" · canvasApp · pid 4242`. Keys land in the focused window.
 */
export function describeInput(action: string, d: ScreenInputDetail): string {
  const where = at(d.point, d.physical);
  const to = d.to !== undefined || d.to_physical !== undefined ? ` to ${at(d.to, d.to_physical)}` : '';
  const keys = action === 'type_text' || action === 'key' || action === 'hold_key';
  return [
    inputVerb(action, d),
    where !== '' ? `${action === 'left_click_drag' ? 'from' : 'at'} ${where}${to}` : keys ? 'into the focused window' : 'at the pointer',
    d.element !== undefined ? `on ${pointElementLine(d.element)}` : undefined,
    d.window !== undefined ? `in ${windowLine(d.window)}` : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(' ');
}

/** The alt text of a screen card's picture: what it shows, and where the input lands. */
export function pictureAlt(card: ScreenApproval): string {
  const screen = card.screen;
  const what = screen.card.planned ? 'The screenshot the agent planned on' : 'A screenshot captured for this card';
  return `${what}, ${screen.card.width}×${screen.card.height}; the input is marked: ${describeInput(card.action, screen.detail)}.`;
}

/** A screen input's receipt in one compact line: `click · 412,300 → screen 824,600 · button "OK" · "Canvas" · canvasApp · pid 4242`. */
export function receiptScreenLine(action: string, d: ScreenInputDetail): string {
  const point = d.point !== undefined || d.physical !== undefined ? at(d.point, d.physical).replace(' of the picture', '') : undefined;
  const to = d.to !== undefined || d.to_physical !== undefined ? `to ${at(d.to, d.to_physical).replace(' of the picture', '')}` : undefined;
  return [
    inputVerb(action, d),
    point,
    to,
    d.element !== undefined ? pointElementLine(d.element) : undefined,
    d.window !== undefined ? windowLine(d.window) : undefined,
    // Stopped part way (the focus left what a session rule covers): how far it got.
    d.sent !== undefined ? `stopped after ${d.sent.count} of ${d.sent.of} ${d.sent.unit}` : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(' · ');
}
