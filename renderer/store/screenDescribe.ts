// How a screen input reads in words: the picture's alt text, the card's lines and the receipt's
// compact line all say the same thing about what the input does and where it lands.
import type { PendingApproval, Point, ScreenInputDetail, ScreenWindow } from '../../protocol/index.js';

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
export function pictureAlt(card: PendingApproval): string {
  const screen = card.screen;
  if (screen === undefined) return '';
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
