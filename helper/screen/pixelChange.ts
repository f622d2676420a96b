// What changed between two captures of the same region, for the binding check before dispatch
// (docs/tools.md#binding-and-the-blinking-caret): nothing, only a blinking text caret, or the target.
// A caret is a thin vertical bar that a text field draws and erases about twice a second; a person
// would not call the screen changed for it, and an input planned on a screenshot taken with the
// caret on (or off) still lands on the same thing. Anything else that differs is a changed target:
// a moved window, changed text, a different button, a caret that moved.
import type { CapturedImage, ScreenRect } from './screenBackend.js';

/** Levels a colour channel may differ by and still count as unchanged (dithering, antialiasing). */
export const CHANNEL_TOLERANCE = 24;

/**
 * What a blinking caret is, in physical pixels at scale 1 (multiplied by the monitor's scale): a
 * vertical run at most `maxWidth` wide, `minHeight` to `maxHeight` tall (a line of text, from small
 * print to a large heading), every row of it changed, toggling between two plain states: in each
 * capture every column of it is a single colour from its second to its second-last row (its two
 * ends may be partly covered) — the bar, and the background it is drawn over.
 */
export const CARET = { maxWidth: 3, minHeight: 8, maxHeight: 48 } as const;

/** How a region compares between two captures. */
export interface RegionChange {
  /** `same`: no pixel differs; `caret`: only a blinking caret does (tolerated); `changed`: anything else. */
  verdict: 'same' | 'caret' | 'changed';
  /** Share of the region's pixels that differ (0–1), the caret's included. */
  share: number;
  /** The bounding box of the pixels that differ, physical; absent when none does. */
  box?: ScreenRect;
}

/** Offset of physical pixel (x, y) in a BGRX capture. */
function at(image: CapturedImage, x: number, y: number): number {
  return (y - image.origin.y) * image.stride + (x - image.origin.x) * 4;
}

/** Whether two pixels differ past the tolerance in blue, green or red (the fourth byte is unused). */
function differs(a: Buffer, i: number, b: Buffer, j: number): boolean {
  for (let c = 0; c < 3; c++) if (Math.abs((a[i + c] ?? 0) - (b[j + c] ?? 0)) > CHANNEL_TOLERANCE) return true;
  return false;
}

/** Share of the pixels of `region` (physical, inside both captures) that differ between them. */
export function changedShare(before: CapturedImage, after: CapturedImage, region: ScreenRect): number {
  return compareRegion(before, after, region).share;
}

/**
 * Compares `region` (physical, inside both captures) of two BGRX captures: the share of pixels
 * that differ, their bounding box, and whether that is only a blinking caret (see CARET) on a
 * monitor of `scale`.
 */
export function compareRegion(before: CapturedImage, after: CapturedImage, region: ScreenRect, scale = 1): RegionChange {
  if (region.width <= 0 || region.height <= 0) return { verdict: 'same', share: 0 };
  let changed = 0;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const rows = new Set<number>();
  for (let y = region.y; y < region.y + region.height; y++) {
    for (let x = region.x; x < region.x + region.width; x++) {
      if (!differs(before.data, at(before, x, y), after.data, at(after, x, y))) continue;
      changed++;
      rows.add(y);
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
  }
  const share = changed / (region.width * region.height);
  if (changed === 0) return { verdict: 'same', share };
  const box = { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
  return { verdict: isCaret(before, after, box, rows, scale) ? 'caret' : 'changed', share, box };
}

/** Whether the changed pixels, bounded by `box`, are one blinking caret (CARET). */
function isCaret(before: CapturedImage, after: CapturedImage, box: ScreenRect, rows: ReadonlySet<number>, scale: number): boolean {
  const s = Math.max(1, scale);
  if (box.width > Math.round(CARET.maxWidth * s)) return false;
  if (box.height < Math.round(CARET.minHeight * s) || box.height > Math.round(CARET.maxHeight * s)) return false;
  // One unbroken run: a caret has no gap, two carets (it moved) or a glyph's strokes do.
  if (rows.size !== box.height) return false;
  return plainIn(before, box) && plainIn(after, box);
}

/** Whether every column of `box` in `image` is one colour, its end rows aside: a bar, or the plain background behind one. */
function plainIn(image: CapturedImage, box: ScreenRect): boolean {
  const top = box.y + 1;
  const bottom = box.y + box.height - 1;
  for (let x = box.x; x < box.x + box.width; x++) {
    const first = at(image, x, top);
    for (let y = top + 1; y < bottom; y++) if (differs(image.data, first, image.data, at(image, x, y))) return false;
  }
  return true;
}
