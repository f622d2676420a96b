// Reads a screenshot's PNG into the screen tier's BGRX pixels: what an OSWorld server sends for
// /screenshot, and the file a Wayland desktop's Screenshot portal writes. Neither is trusted to be
// well formed: the signature, the header, the size and every chunk bound are checked. The header is
// read first and on its own (`readPngHeader`), so a caller compares the size it declares with the
// screen's before anything is inflated; the pixel budget is checked there too, and the inflate
// itself stops at the byte count the header implies: a small file that declares a huge image (a
// "PNG bomb") is refused before it costs memory or time.
import { inflateSync } from 'node:zlib';

/** A decoded screenshot: 4 bytes a pixel (blue, green, red, unused), rows packed. */
export interface BgrxImage {
  width: number;
  height: number;
  data: Buffer;
}

/** What a PNG's header declares, read without inflating anything. */
export interface PngHeader {
  width: number;
  height: number;
  /** Bytes a pixel in the image data: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA. */
  channels: number;
}

/** Largest side accepted (a 16K display). */
const MAX_SIDE = 16384;
/** Most pixels accepted (32 Mi: an 8K display's 7680 × 4320 fits): 128 MiB decoded, whatever the sides. */
export const MAX_PNG_PIXELS = 32 * 1024 * 1024;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/**
 * Reads the signature and the header (IHDR, which the PNG format puts first) and checks the sides and
 * the pixel budget; inflates nothing. Throws a plain Error saying why not.
 */
export function readPngHeader(png: Buffer): PngHeader {
  if (png.length < 33 || !png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG (bad signature)');
  if (png.readUInt32BE(8) !== 13 || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('PNG does not begin with its 13-byte header (IHDR)');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const [depth, colour, , , interlace] = [png[24], png[25], png[26], png[27], png[28]];
  if (depth !== 8 || interlace !== 0) throw new Error(`PNG of bit depth ${String(depth)}, interlace ${String(interlace)} is not read`);
  const channels = CHANNELS[colour ?? -1] ?? 0;
  if (channels === 0) throw new Error(`PNG colour type ${String(colour)} is not read`);
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) throw new Error(`PNG of ${width}x${height} pixels is not a screen`);
  if (width * height > MAX_PNG_PIXELS) throw new Error(`PNG of ${width}x${height} pixels is past the budget of ${MAX_PNG_PIXELS} pixels`);
  return { width, height, channels };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Decodes 8-bit RGB, RGBA, grey or grey+alpha, non-interlaced (what PIL writes for a screenshot);
 * throws a plain Error saying why not. `expect`: the size the image must declare, checked from the
 * header before anything is inflated.
 */
export function readPng(png: Buffer, expect?: { width: number; height: number }): BgrxImage {
  const { width, height, channels } = readPngHeader(png);
  if (expect !== undefined && (width !== expect.width || height !== expect.height))
    throw new Error(`PNG of ${width}x${height} pixels where ${expect.width}x${expect.height} were expected`);
  let offset = 8;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (offset + 12 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    if (offset + 12 + length > png.length) throw new Error(`PNG chunk ${type} runs past the end`);
    if (type === 'IHDR' && offset !== 8) throw new Error('PNG with a second header');
    if (type === 'IDAT') idat.push(png.subarray(offset + 8, offset + 8 + length));
    else if (type === 'IEND') {
      sawEnd = true;
      break;
    }
    offset += 12 + length;
  }
  if (!sawEnd || idat.length === 0) throw new Error('PNG cut short (no image data or no end)');
  const stride = width * channels;
  const expected = (stride + 1) * height;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: expected });
  } catch (error) {
    throw new Error(`PNG image data does not inflate to ${expected} bytes: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (raw.length !== expected) throw new Error(`PNG image data inflates to ${raw.length} bytes, not ${expected}`);
  const line = Buffer.alloc(stride);
  const prev = Buffer.alloc(stride);
  const out = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)] ?? 0;
    if (filter > 4) throw new Error(`PNG row ${y} has filter ${filter}`);
    const src = y * (stride + 1) + 1;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? (line[i - channels] ?? 0) : 0;
      const b = prev[i] ?? 0;
      const c = i >= channels ? (prev[i - channels] ?? 0) : 0;
      const predicted = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : paeth(a, b, c);
      line[i] = ((raw[src + i] ?? 0) + predicted) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const s = x * channels;
      const o = (y * width + x) * 4;
      const grey = channels <= 2;
      const r = line[s] ?? 0;
      out[o] = grey ? r : (line[s + 2] ?? 0);
      out[o + 1] = grey ? r : (line[s + 1] ?? 0);
      out[o + 2] = r;
      out[o + 3] = 0xff;
    }
    line.copy(prev);
  }
  return { width, height, data: out };
}
