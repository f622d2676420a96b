// Rectangle arithmetic of the screen tier, in physical pixels: what part of a window the stack
// leaves visible (for masking and for window-bound captures), and masks painted into a capture.
// What changed between two captures is pixelChange.ts's.
import type { CapturedImage, NativeWindow, ScreenRect } from './screenBackend.js';

/** The overlap of two rectangles, or undefined. */
export function intersect(a: ScreenRect, b: ScreenRect): ScreenRect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

/** `a` minus `b`: up to four rectangles (bands above and below, then left and right of the overlap). */
export function subtract(a: ScreenRect, b: ScreenRect): ScreenRect[] {
  const o = intersect(a, b);
  if (o === undefined) return [a];
  const out: ScreenRect[] = [];
  if (o.y > a.y) out.push({ x: a.x, y: a.y, width: a.width, height: o.y - a.y });
  if (o.y + o.height < a.y + a.height) out.push({ x: a.x, y: o.y + o.height, width: a.width, height: a.y + a.height - o.y - o.height });
  if (o.x > a.x) out.push({ x: a.x, y: o.y, width: o.x - a.x, height: o.height });
  if (o.x + o.width < a.x + a.width) out.push({ x: o.x + o.width, y: o.y, width: a.x + a.width - o.x - o.width, height: o.height });
  return out;
}

/** The parts of `rect` that none of `covers` hides (disjoint rectangles). */
export function uncovered(rect: ScreenRect, covers: readonly ScreenRect[]): ScreenRect[] {
  let parts = [rect];
  for (const c of covers) parts = parts.flatMap((p) => subtract(p, c));
  return parts;
}

/** The visible parts of the window at `index` of a top-first stack. */
export function visibleParts(stack: readonly NativeWindow[], index: number): ScreenRect[] {
  const own = stack[index];
  if (own === undefined) return [];
  return uncovered(
    own.rect,
    stack.slice(0, index).map((w) => w.rect),
  );
}

/** Total area of disjoint rectangles. */
export function area(rects: readonly ScreenRect[]): number {
  return rects.reduce((sum, r) => sum + r.width * r.height, 0);
}

/** The topmost window of the stack that contains the point. */
export function windowAt<W extends NativeWindow>(stack: readonly W[], x: number, y: number): W | undefined {
  return stack.find((w) => x >= w.rect.x && y >= w.rect.y && x < w.rect.x + w.rect.width && y < w.rect.y + w.rect.height);
}

/** Paints `rects` (physical, clipped to the image) black in a BGRX capture, in place. */
export function paintMasks(image: CapturedImage, rects: readonly ScreenRect[]): void {
  const bounds = { x: image.origin.x, y: image.origin.y, width: image.width, height: image.height };
  for (const r of rects) {
    const o = intersect(r, bounds);
    if (o === undefined) continue;
    for (let row = o.y - bounds.y; row < o.y - bounds.y + o.height; row++) {
      const start = row * image.stride + (o.x - bounds.x) * 4;
      image.data.fill(0, start, start + o.width * 4);
    }
  }
}
