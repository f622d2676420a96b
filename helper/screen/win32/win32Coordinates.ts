// SendInput's absolute coordinates: with MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK, dx and dy
// run 0..65535 over the whole virtual desktop (every monitor; its origin may be negative). The OS
// maps them back to pixels in its own way, and the documentation does not pin the rounding: the
// mapping is either floor(d * size / 65536) or round(d * (size - 1) / 65535). Aiming at the centre
// of the pixel's cell, floor((2p + 1) * 32768 / size), lands on the same pixel under both, for every
// pixel of every size up to 32770 (win32Coordinates.test.ts checks it exhaustively for many sizes).
// Wider, the two mappings part ways; no desktop is that wide: mouse messages carry 16-bit signed
// screen coordinates, so a virtual desktop spans at most 32768 pixels.

import { fail } from '../../../protocol/index.js';
import type { ScreenRect } from '../screenBackend.js';

/** The full scale of normalized absolute coordinates. */
export const ABSOLUTE_SPAN = 65536;

/** The widest (or tallest) virtual desktop whose every pixel this module can address exactly. */
export const MAX_DESKTOP_SIZE = 32768;

/** One axis: pixel offset `p` (0 ≤ p < size) from the virtual desktop's origin to 0..65535. */
export function normalizeAxis(p: number, size: number): number {
  return Math.floor(((2 * p + 1) * (ABSOLUTE_SPAN / 2)) / size);
}

/** The pixel x,y of the virtual desktop `desk` as SendInput's normalized dx, dy; invalid_argument if it lies outside. */
export function toAbsolute(x: number, y: number, desk: ScreenRect): { dx: number; dy: number } {
  const inside = Number.isInteger(x) && Number.isInteger(y) && x >= desk.x && y >= desk.y && x < desk.x + desk.width && y < desk.y + desk.height;
  if (desk.width < 1 || desk.height < 1 || desk.width > MAX_DESKTOP_SIZE || desk.height > MAX_DESKTOP_SIZE) {
    throw fail('input_unavailable', `The virtual desktop ${desk.width}x${desk.height} is outside 1..${MAX_DESKTOP_SIZE} pixels a side.`, {
      reason: 'virtual_desktop_size',
    });
  }
  if (!inside) {
    throw fail('invalid_argument', `The point ${x},${y} is not an integer pixel on the virtual screen ${desk.width}x${desk.height} at ${desk.x},${desk.y}.`, {
      x,
      y,
    });
  }
  return { dx: normalizeAxis(x - desk.x, desk.width), dy: normalizeAxis(y - desk.y, desk.height) };
}

/** The two ways an OS may map a normalized coordinate back to a pixel offset (for the tests). */
export const DENORMALIZERS = {
  floor: (d: number, size: number): number => Math.floor((d * size) / ABSOLUTE_SPAN),
  round: (d: number, size: number): number => Math.round((d * (size - 1)) / (ABSOLUTE_SPAN - 1)),
} as const;
