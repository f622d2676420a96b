// Where marks go on a screen picture. Every mark is in picture pixels: the SVG over a picture has the
// picture's width × height as its viewBox, so a mark placed here stays on the pixel it names at any
// displayed size.
import type { Point, Rect, ScreenTransform } from '../../protocol/index.js';

/** A rectangle in picture pixels, fractional: a physical rectangle lands between picture pixels at most scales. */
export interface PictureRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A picture's size in pixels. */
export interface PictureSize {
  width: number;
  height: number;
}

/** The center of picture pixel (x, y): pixel i covers [i, i + 1) of the viewBox. */
export function pixelCenter(p: Point): { x: number; y: number } {
  return { x: p.x + 0.5, y: p.y + 0.5 };
}

/**
 * An element's rect (physical screen pixels) on a picture: picture = (physical − origin) / scale,
 * exactly (physical pixel p covers [p, p + 1), so its picture span is [(p − origin) / s, (p + 1 − origin) / s)).
 * Cut to the picture; undefined when no part of it is on the picture.
 */
export function rectOnPicture(rect: Pick<Rect, 'x' | 'y' | 'w' | 'h'>, t: ScreenTransform, size: PictureSize): (PictureRect & { cut: boolean }) | undefined {
  const x0 = (rect.x - t.origin.x) / t.scale_x;
  const y0 = (rect.y - t.origin.y) / t.scale_y;
  const x1 = (rect.x + rect.w - t.origin.x) / t.scale_x;
  const y1 = (rect.y + rect.h - t.origin.y) / t.scale_y;
  const cx0 = Math.max(0, x0);
  const cy0 = Math.max(0, y0);
  const cx1 = Math.min(size.width, x1);
  const cy1 = Math.min(size.height, y1);
  if (cx1 <= cx0 || cy1 <= cy0) return undefined;
  return { x: cx0, y: cy0, w: cx1 - cx0, h: cy1 - cy0, cut: cx0 !== x0 || cy0 !== y0 || cx1 !== x1 || cy1 !== y1 };
}

/**
 * The radius of a point mark, in picture pixels: a fixed share of the picture's longer side, so it
 * looks the same on a card whatever the capture's size (it scales with the picture).
 */
export function markRadius(size: PictureSize, share = 1 / 40): number {
  return Math.max(4, Math.max(size.width, size.height) * share);
}

/** The unit vector of a scroll direction in picture space (y grows downwards). */
export function directionVector(direction: 'up' | 'down' | 'left' | 'right'): { x: number; y: number } {
  return direction === 'up' ? { x: 0, y: -1 } : direction === 'down' ? { x: 0, y: 1 } : direction === 'left' ? { x: -1, y: 0 } : { x: 1, y: 0 };
}

/** An arrow from `from` to `to`: the shaft ends where the head starts; `head` is the head's three corners ("x,y x,y x,y"). */
export function arrow(
  from: { x: number; y: number },
  to: { x: number; y: number },
  headLength: number,
): { shaft: [number, number, number, number]; head: string } {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const len = Math.hypot(dx, dy);
  if (len === 0) return { shaft: [from.x, from.y, to.x, to.y], head: `${to.x},${to.y} ${to.x},${to.y} ${to.x},${to.y}` };
  const ux = dx / len;
  const uy = dy / len;
  const h = Math.min(headLength, len);
  const bx = to.x - ux * h;
  const by = to.y - uy * h;
  const half = h / 2;
  const corners = [
    [to.x, to.y],
    [bx - uy * half, by + ux * half],
    [bx + uy * half, by - ux * half],
  ];
  return { shaft: [from.x, from.y, bx, by], head: corners.map(([x, y]) => `${round(x as number)},${round(y as number)}`).join(' ') };
}

const round = (n: number): number => Math.round(n * 100) / 100;

/** How a crop of a picture is shown: its scale (CSS px per picture pixel) and where the picture sits in a box of `width` × `height` CSS px. */
export interface CropView {
  scale: number;
  /** The picture's offset in the box (≤ 0: the picture is at least as large as the box). */
  left: number;
  top: number;
  /** The box's size in CSS px. */
  width: number;
  height: number;
}

/**
 * A box that shows `focus` (picture pixels) large enough to read, with context around it: the
 * picture at `scale` CSS px per picture pixel (the caller's 1:1 with the screen), smaller only when
 * the focus with its margin would not fit `maxHeight`. A focus wider than the box keeps its start
 * in view (a checkbox's box and label come first; the rest of a wide row is its empty end); one that
 * fits is centred. The box never shows past the picture's edges.
 */
export function cropView(size: PictureSize, focus: PictureRect, scale: number, maxWidth: number, maxHeight: number, margin: number, minHeight = 0): CropView {
  const fit = Math.min(scale, (maxHeight - 2 * margin) / Math.max(1, focus.h));
  const s = Math.max(fit, Math.min(maxWidth / size.width, maxHeight / size.height), 1e-3);
  const width = Math.min(maxWidth, size.width * s);
  const height = Math.min(size.height * s, Math.max(minHeight, Math.min(maxHeight, focus.h * s + 2 * margin)));
  const place = (box: number, whole: number, at: number): number => Math.min(0, Math.max(box - whole, at));
  const wide = focus.w * s + 2 * margin > width;
  return {
    scale: s,
    left: place(width, size.width * s, wide ? margin - focus.x * s : width / 2 - (focus.x + focus.w / 2) * s),
    top: place(height, size.height * s, height / 2 - (focus.y + focus.h / 2) * s),
    width,
    height,
  };
}
/** The size of a point mark in CSS px: drawn at display scale, so it reads the same on a thumbnail, a crop and the full-size viewer. */
export const POINT_MARK = { half: 24, gap: 8, arm: 5, tick: 10 } as const;

/**
 * A point mark that leaves the pixel and the text around it visible: four corner brackets of a
 * square `gap` out from the point, and four ticks further out that aim at it. Polylines as
 * "x,y x,y …" around (0, 0), in CSS px; nothing is drawn within `gap` of the point but the corners.
 */
export function pointMarkLines(m: { gap: number; arm: number; tick: number } = POINT_MARK): string[] {
  const { gap: g, arm: a, tick: t } = m;
  const corners = [
    [-1, -1],
    [1, -1],
    [1, 1],
    [-1, 1],
  ] as const;
  const brackets = corners.map(([sx, sy]) => `${sx * (g - a)},${sy * g} ${sx * g},${sy * g} ${sx * g},${sy * (g - a)}`);
  const out = g + a;
  const ticks = [`0,${-out} 0,${-out - t}`, `${out},0 ${out + t},0`, `0,${out} 0,${out + t}`, `${-out},0 ${-out - t},0`];
  return [...brackets, ...ticks];
}
