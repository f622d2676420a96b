// A PNG writer over node:zlib: 8-bit RGB or RGBA, one IDAT, one filter for every row. Deflate is
// the whole cost (/work/research/issue11.md §2), so the filter is the cheapest that helps it: Up by
// default (screens repeat vertically), Sub or None on request.
import { deflateSync } from 'node:zlib';
import { fail } from '../../../protocol/errors.js';
import { fittedRows, type OutputChannels, type RawImage, type RgbImage } from './downscale.js';
import type { RowSource } from './rowSources.js';

/** The per-row PNG filter; all rows use the same one. */
export type PngFilter = 'none' | 'sub' | 'up';

/** Encoder options. */
export interface PngOptions {
  /** zlib level 0–9; default 3 (why: DEFAULT_LEVEL); 6 halves the bytes for more CPU. */
  level?: number;
  /** Row filter; default 'up'. */
  filter?: PngFilter;
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const FILTER_BYTE: Record<PngFilter, number> = { none: 0, sub: 1, up: 2 };
/**
 * Levels 1–3 cost the same CPU here (zlib's fast deflate) and 3 is the smallest of them; on the
 * bench's busy desktop it is below the peers' PNGs (111 against ImageMagick's 118 KiB at 1280x800,
 * 299 against 530 KiB from 2560x1600), while 6 halves the bytes for about 12 ms more CPU a frame.
 */
const DEFAULT_LEVEL = 3;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, as PNG chunks use it) of `bytes`; own table, so no Node minor version is needed. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One chunk: length, type, data, CRC over type and data. */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}

// The scanline buffer is kept between frames: fresh memory costs a page fault per 4 KiB on first
// touch, and writing 3 MB into a fresh buffer measured 8.7 ms against 2.7 ms into a reused one.
let scratch: Uint8Array | undefined;

function scanlineBuffer(size: number): Uint8Array {
  // A much larger one (an earlier, bigger image) is let go rather than held.
  if (scratch === undefined || scratch.length < size || scratch.length > 2 * size) scratch = new Uint8Array(size);
  return scratch.subarray(0, size);
}

/**
 * One row's filtered bytes into `line` (its scanline after the filter byte). RGB has loops of its
 * own: V8 keeps a loop with no per-pixel branch twice as fast, and RGB is what screenshots are.
 */
function filterLine(filter: PngFilter, rgba: boolean, cur: Int32Array, prev: Int32Array, line: Uint8Array, width: number): void {
  if (rgba) {
    for (let x = 0, d = 0; x < width; x++, d += 4) {
      const p = cur[x]!;
      const q = filter === 'up' ? prev[x]! : filter === 'sub' && x > 0 ? cur[x - 1]! : 0;
      line[d] = (p >> 16) - (q >> 16);
      line[d + 1] = (p >> 8) - (q >> 8);
      line[d + 2] = p - q;
      line[d + 3] = (p >> 24) - (q >> 24);
    }
  } else if (filter === 'up') {
    for (let x = 0, d = 0; x < width; x++, d += 3) {
      const p = cur[x]!;
      const q = prev[x]!;
      line[d] = (p >> 16) - (q >> 16);
      line[d + 1] = (p >> 8) - (q >> 8);
      line[d + 2] = p - q;
    }
  } else if (filter === 'sub') {
    let q = 0;
    for (let x = 0, d = 0; x < width; x++, d += 3) {
      const p = cur[x]!;
      line[d] = (p >> 16) - (q >> 16);
      line[d + 1] = (p >> 8) - (q >> 8);
      line[d + 2] = p - q;
      q = p;
    }
  } else {
    for (let x = 0, d = 0; x < width; x++, d += 3) {
      const p = cur[x]!;
      line[d] = p >> 16;
      line[d + 1] = p >> 8;
      line[d + 2] = p;
    }
  }
}

/**
 * The filtered scanlines, each row its filter byte then the filtered bytes, pulled row by row from
 * `rows` (packed 0xAARRGGBB) so no unfiltered copy of the image is ever made. Valid until the next call.
 */
function filterRows(width: number, height: number, channels: OutputChannels, rows: RowSource, filter: PngFilter): Uint8Array {
  const span = width * channels + 1;
  const raw = scanlineBuffer(span * height);
  let cur = new Int32Array(width);
  // The row above; zero above the first row, as the Up filter defines it.
  let prev = new Int32Array(width);
  for (let y = 0; y < height; y++) {
    rows(y, cur);
    raw[y * span] = FILTER_BYTE[filter];
    filterLine(filter, channels === 4, cur, prev, raw.subarray(y * span + 1, (y + 1) * span), width);
    [cur, prev] = [prev, cur];
  }
  return raw;
}

/** The rows of a packed RGB or RGBA image, packed as 0xAARRGGBB. */
function packedRows({ width, channels, data }: RgbImage): RowSource {
  return (y, row) => {
    for (let x = 0, s = y * width * channels; x < width; x++, s += channels) {
      row[x] = ((channels === 4 ? data[s + 3]! : 255) << 24) | (data[s]! << 16) | (data[s + 1]! << 8) | data[s + 2]!;
    }
  };
}

function checkOptions(options: PngOptions): { level: number; filter: PngFilter } {
  const level = options.level ?? DEFAULT_LEVEL;
  if (!Number.isInteger(level) || level < 0 || level > 9) throw fail('invalid_argument', `zlib level must be an integer 0..9, not ${String(level)}.`);
  const filter = options.filter ?? 'up';
  if (!(filter in FILTER_BYTE)) throw fail('invalid_argument', `PNG filter must be none, sub or up, not ${String(filter)}.`);
  return { level, filter };
}

/** The PNG file of `height` rows pulled from `rows`. */
function encodeRows(width: number, height: number, channels: OutputChannels, rows: RowSource, options: PngOptions): Buffer {
  const { level, filter } = checkOptions(options);
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr[8] = 8; // bit depth
  ihdr[9] = channels === 3 ? 2 : 6; // colour type; compression, filter method and interlace stay 0
  const idat = deflateSync(filterRows(width, height, channels, rows, filter), { level });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
}

/** Encodes a packed RGB (colour type 2) or RGBA (colour type 6) image as a PNG file. */
export function encodePng(image: RgbImage, options: PngOptions = {}): Buffer {
  const { width, height, channels, data } = image;
  for (const [what, value] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1 || value > 0x7fffffff) throw fail('invalid_argument', `PNG ${what} must be 1..2^31-1, not ${String(value)}.`);
  }
  if (channels !== 3 && channels !== 4) throw fail('invalid_argument', `PNG channels must be 3 (RGB) or 4 (RGBA), not ${String(channels)}.`);
  if (data.length !== width * height * channels) {
    throw fail('invalid_argument', `a ${width}×${height}×${channels} image has ${width * height * channels} bytes; got ${data.length}.`);
  }
  checkOptions(options);
  return encodeRows(width, height, channels, packedRows(image), options);
}

/** A PNG of a frame fitted into a box, with the size it got. */
export interface FittedPng {
  /** The PNG file. */
  png: Buffer;
  /** Its pixels across. */
  width: number;
  /** Its pixels down. */
  height: number;
}

/**
 * A screenshot's pipeline in one pass: `image` fitted into maxWidth × maxHeight (downscale's
 * area average and fitSize rule, the same pixels) and written as PNG scanlines as each output
 * row is made, with no RGB copy of the frame in between.
 */
export function encodeFittedPng(image: RawImage, maxWidth: number, maxHeight: number, channels: OutputChannels = 3, options: PngOptions = {}): FittedPng {
  checkOptions(options);
  const { width, height, rows } = fittedRows(image, maxWidth, maxHeight);
  return { png: encodeRows(width, height, channels, rows, options), width, height };
}
