// A PNG writer over node:zlib: 8-bit RGB or RGBA, one IDAT, one filter for every row. Deflate is
// the whole cost (/work/research/issue11.md §2), so the filter is the cheapest that helps it: Up by
// default (screens repeat vertically), Sub or None on request.
import { deflateSync } from 'node:zlib';
import { fail } from '../../../protocol/errors.js';
import type { RgbImage } from './downscale.js';

/** The per-row PNG filter; all rows use the same one. */
export type PngFilter = 'none' | 'sub' | 'up';

/** Encoder options. */
export interface PngOptions {
  /** zlib level 0–9; 6 (default) is the size/CPU balance measured, 1 is the fast choice. */
  level?: number;
  /** Row filter; default 'up'. */
  filter?: PngFilter;
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const FILTER_BYTE: Record<PngFilter, number> = { none: 0, sub: 1, up: 2 };

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

/** The filtered scanlines: each row is its filter byte then the filtered bytes. */
function filterRows(image: RgbImage, filter: PngFilter): Uint8Array {
  const { width, height, channels, data } = image;
  const line = width * channels;
  const raw = new Uint8Array((line + 1) * height);
  const type = FILTER_BYTE[filter];
  for (let y = 0; y < height; y++) {
    const s = y * line;
    const d = y * (line + 1);
    raw[d] = type;
    if (filter === 'none' || (filter === 'up' && y === 0)) {
      raw.set(data.subarray(s, s + line), d + 1);
    } else if (filter === 'up') {
      const p = s - line;
      for (let i = 0; i < line; i++) raw[d + 1 + i] = data[s + i]! - data[p + i]!;
    } else {
      for (let i = 0; i < channels; i++) raw[d + 1 + i] = data[s + i]!;
      for (let i = channels; i < line; i++) raw[d + 1 + i] = data[s + i]! - data[s + i - channels]!;
    }
  }
  return raw;
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
  const level = options.level ?? 6;
  if (!Number.isInteger(level) || level < 0 || level > 9) throw fail('invalid_argument', `zlib level must be an integer 0..9, not ${String(level)}.`);
  const filter = options.filter ?? 'up';
  if (!(filter in FILTER_BYTE)) throw fail('invalid_argument', `PNG filter must be none, sub or up, not ${String(filter)}.`);
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr[8] = 8; // bit depth
  ihdr[9] = channels === 3 ? 2 : 6; // colour type; compression, filter method and interlace stay 0
  const idat = deflateSync(filterRows(image, filter), { level });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
}
