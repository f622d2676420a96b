// Where a screen card's full-resolution crop is (docs/supervision.md#card-pictures): around the
// point of a click, grown while it shows nothing but one colour (a click into an empty text area
// or page would otherwise show a white square), or, for keys and text, around the element that
// has the keyboard focus, which the card outlines. Pure geometry over a capture's pixels.
import { intersect } from './regions.js';
import type { CapturedImage, ScreenRect } from './screenBackend.js';

/** The crop around a point: wide enough for a field with its label, shown 1:1 on the card. */
export const CROP = { width: 400, height: 240 } as const;
/** The largest crop: past this the card's whole picture says more than a crop shrunk further. */
export const CROP_MAX = { width: 1200, height: 720 } as const;
/** Space kept around a focused element in its crop, so its edge and what labels it show. */
export const FOCUS_MARGIN = 32;
/** A crop is plain when fewer of its pixels than this differ from its commonest colour. */
export const PLAIN_SHARE = 0.005;
/** How far (per channel, 0–255) a pixel must be from the commonest colour to count as structure: a theme's gradient is not. */
const STRUCTURE_DELTA = 24;
/** Each step a plain crop grows by, around its point. */
const GROWTH = 1.5;

/** The rectangle of `width`×`height` centred on a point. */
export function centred(x: number, y: number, width: number, height: number): ScreenRect {
  return { x: x - Math.floor(width / 2), y: y - Math.floor(height / 2), width, height };
}

/** `r` moved (never resized) to lie inside `bounds` as far as it fits, then cut to it. */
function inside(r: ScreenRect, bounds: ScreenRect): ScreenRect | undefined {
  const x = Math.max(bounds.x, Math.min(r.x, bounds.x + bounds.width - r.width));
  const y = Math.max(bounds.y, Math.min(r.y, bounds.y + bounds.height - r.height));
  return intersect({ ...r, x, y }, bounds);
}

/**
 * Whether the pixels of `rect` (inside `image`) are one colour but for a few: fewer than
 * PLAIN_SHARE of them further than STRUCTURE_DELTA from the commonest colour (a caret, a thin
 * border alone leave a crop plain).
 */
export function isPlain(image: CapturedImage, rect: ScreenRect): boolean {
  const counts = new Map<number, number>();
  const at = (row: number, col: number): number => (rect.y - image.origin.y + row) * image.stride + (rect.x - image.origin.x + col) * 4;
  // The commonest colour, in 32 levels per channel, from every other pixel of every other row.
  for (let row = 0; row < rect.height; row += 2)
    for (let col = 0; col < rect.width; col += 2) {
      const i = at(row, col);
      const key = ((image.data[i] ?? 0) >> 3) | (((image.data[i + 1] ?? 0) >> 3) << 5) | (((image.data[i + 2] ?? 0) >> 3) << 10);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  let common = 0;
  let most = -1;
  for (const [key, n] of counts) if (n > most) [common, most] = [key, n];
  const level = (shift: number): number => (((common >> shift) & 31) << 3) + 4;
  const [b, g, r] = [level(0), level(5), level(10)];
  const allowed = PLAIN_SHARE * rect.width * rect.height;
  let differ = 0;
  for (let row = 0; row < rect.height; row++)
    for (let col = 0; col < rect.width; col++) {
      const i = at(row, col);
      const d = Math.max(Math.abs((image.data[i] ?? 0) - b), Math.abs((image.data[i + 1] ?? 0) - g), Math.abs((image.data[i + 2] ?? 0) - r));
      if (d > STRUCTURE_DELTA && ++differ >= allowed) return false;
    }
  return true;
}

/** A crop and whether it grew past CROP to show something. */
export interface CardCrop {
  rect: ScreenRect;
  grown: boolean;
}

/**
 * The crop around a point: CROP centred on it (cut to the capture), grown by half again around the
 * point while it is plain, up to CROP_MAX or the whole capture.
 */
export function pointCrop(image: CapturedImage, region: ScreenRect, point: { x: number; y: number }): CardCrop | undefined {
  let size: { width: number; height: number } = CROP;
  let rect = intersect(centred(point.x, point.y, size.width, size.height), region);
  let grown = false;
  while (rect !== undefined && size.width < CROP_MAX.width && isPlain(image, rect)) {
    size = { width: Math.min(CROP_MAX.width, Math.round(size.width * GROWTH)), height: Math.min(CROP_MAX.height, Math.round(size.height * GROWTH)) };
    const next = inside(centred(point.x, point.y, size.width, size.height), region);
    if (next === undefined || (next.width === rect.width && next.height === rect.height)) break;
    rect = next;
    grown = true;
  }
  return rect === undefined ? undefined : { rect, grown };
}

/**
 * The crop around the element with the keyboard focus: the element and FOCUS_MARGIN around it, at
 * least CROP, at most CROP_MAX (a larger element, such as a document, shows its start, where its
 * first lines are), moved inside the capture.
 */
export function focusCrop(element: ScreenRect, region: ScreenRect): CardCrop | undefined {
  const want = { width: element.width + 2 * FOCUS_MARGIN, height: element.height + 2 * FOCUS_MARGIN };
  const width = Math.min(CROP_MAX.width, Math.max(CROP.width, want.width));
  const height = Math.min(CROP_MAX.height, Math.max(CROP.height, want.height));
  const x = want.width > width ? element.x - FOCUS_MARGIN : element.x + Math.floor(element.width / 2) - Math.floor(width / 2);
  const y = want.height > height ? element.y - FOCUS_MARGIN : element.y + Math.floor(element.height / 2) - Math.floor(height / 2);
  const rect = intersect(element, region) === undefined ? undefined : inside({ x, y, width, height }, region);
  return rect === undefined ? undefined : { rect, grown: width > CROP.width || height > CROP.height };
}
