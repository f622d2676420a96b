// The one coordinate normalizer of the screen tier. Models emit points in several shapes; each is
// accepted only when it names one point without doubt, and anything else is refused with
// invalid_argument and a sentence saying what was wrong (docs/tools.md#screen-tier).
//
// Accepted for each axis value: a non-negative integer number, or a string of decimal digits.
// Accepted for a pair: [x, y] of those, or the string "x,y" (spaces around either number allowed,
// optionally in [ ] or ( )). Refused: fractions (640.5 lies between two pixels), exponents and hex
// strings ("6.4e2", "0x280": a model that writes these has not read a pixel), NaN and infinities,
// negatives (unless `allowNegative`, for raw physical pixels left of or above the primary monitor),
// values past MAX_COORDINATE, objects, booleans, null, pairs of the wrong length, and two sources
// that disagree (x as a pair and a different y; coordinate and different x/y).
import { fail, type OverseerError } from './errors.js';
import type { Point } from './screenGeometry.js';

/** Largest coordinate accepted on either axis: X11 coordinates are 16-bit signed. */
export const MAX_COORDINATE = 32767;

/** Where the point's fields are in the arguments, for the sentence of a refusal. */
export interface PointFieldNames {
  x: string;
  y: string;
  pair?: string;
}

/** Normalizer options. */
export interface NormalizeOptions {
  /** Accept negative values (raw physical coordinates on a virtual desktop). */
  allowNegative?: boolean;
  /** Field names; default x, y and coordinate. */
  names?: PointFieldNames;
}

const INTEGER = /^-?\d{1,6}$/;
const PAIR = /^\s*[[(]?\s*(-?\d{1,6})\s*,\s*(-?\d{1,6})\s*[\])]?\s*$/;

function refuse(path: string, message: string): OverseerError {
  return fail('invalid_argument', `${path}: ${message}`, { issues: [{ path, message }] });
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? `an array of ${value.length}` : value === null ? 'null' : typeof value;
}

/** One axis value → an integer, or a refusal naming `path`. */
function scalar(value: unknown, path: string, allowNegative: boolean): number {
  let n: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw refuse(path, `${String(value)} is not a coordinate.`);
    if (!Number.isInteger(value)) throw refuse(path, `${value} is not a whole pixel; give an integer.`);
    n = value;
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (!INTEGER.test(text)) throw refuse(path, `${JSON.stringify(value)} is not a whole number of pixels (digits only, like "640").`);
    n = Number(text);
  } else {
    throw refuse(path, `expected a number of pixels, got ${show(value)}.`);
  }
  if (n < 0 && !allowNegative) throw refuse(path, `${n} is left of or above the image; coordinates start at 0.`);
  if (Math.abs(n) > MAX_COORDINATE) throw refuse(path, `${n} is beyond ${MAX_COORDINATE}.`);
  return n === 0 ? 0 : n; // no -0
}

/** A pair value ([x, y] or "x,y") → a point; undefined when `value` is not pair-shaped. */
function pair(value: unknown, path: string, allowNegative: boolean): Point | undefined {
  if (Array.isArray(value)) {
    if (value.length !== 2) throw refuse(path, `a point is [x, y]: 2 numbers, not ${value.length}.`);
    return { x: scalar(value[0], `${path}.0`, allowNegative), y: scalar(value[1], `${path}.1`, allowNegative) };
  }
  if (typeof value === 'string' && value.includes(',')) {
    const m = PAIR.exec(value);
    if (m === null) throw refuse(path, `${JSON.stringify(value)} is not a point; write "x,y" with whole numbers, like "640,400".`);
    return { x: scalar(m[1], path, allowNegative), y: scalar(m[2], path, allowNegative) };
  }
  return undefined;
}

function same(a: Point, b: Point): boolean {
  return a.x === b.x && a.y === b.y;
}

/**
 * The point named by `args` (fields x, y and coordinate by default), or throws invalid_argument.
 * `y` may be absent or repeat the pair when `x` is a pair; `coordinate` may stand alone or agree with x/y.
 */
export function normalizePoint(args: Readonly<Record<string, unknown>>, options: NormalizeOptions = {}): Point {
  const names = options.names ?? { x: 'x', y: 'y', pair: 'coordinate' };
  const neg = options.allowNegative === true;
  const rawX = args[names.x];
  const rawY = args[names.y];
  const rawPair = names.pair === undefined ? undefined : args[names.pair];
  const candidates: [string, Point][] = [];
  if (rawPair !== undefined && names.pair !== undefined) {
    const p = pair(rawPair, names.pair, neg);
    if (p === undefined) throw refuse(names.pair, `expected [x, y] or "x,y", got ${show(rawPair)}.`);
    candidates.push([names.pair, p]);
  }
  const xPair = rawX === undefined ? undefined : pair(rawX, names.x, neg);
  const yPair = rawY === undefined ? undefined : pair(rawY, names.y, neg);
  if (xPair !== undefined) {
    candidates.push([names.x, xPair]);
    if (yPair !== undefined) candidates.push([names.y, yPair]);
    else if (rawY !== undefined) {
      const y = scalar(rawY, names.y, neg);
      if (y !== xPair.y) throw refuse(names.y, `${names.x} is the pair (${xPair.x}, ${xPair.y}) and ${names.y} says ${y}; give one point.`);
    }
  } else if (yPair !== undefined) {
    throw refuse(names.y, `${names.y} is a pair; give the pair in ${names.x}, or x and y as numbers.`);
  } else if (rawX !== undefined || rawY !== undefined) {
    if (rawX === undefined) throw refuse(names.x, `${names.x} is missing (${names.y} is ${show(rawY)}).`);
    const x = scalar(rawX, names.x, neg);
    if (rawY === undefined) throw refuse(names.y, `${names.y} is missing; give ${names.y}, or the pair [x, y] in ${names.x}.`);
    candidates.push([names.x, { x, y: scalar(rawY, names.y, neg) }]);
  }
  const first = candidates[0];
  if (first === undefined)
    throw refuse(names.x, `no point given: pass ${names.x} and ${names.y}${names.pair === undefined ? '' : ` or ${names.pair}: [x, y]`}.`);
  for (const [path, p] of candidates.slice(1)) {
    if (!same(first[1], p)) {
      throw refuse(path, `${first[0]} says (${first[1].x}, ${first[1].y}) and ${path} says (${p.x}, ${p.y}); give one point.`);
    }
  }
  return first[1];
}
