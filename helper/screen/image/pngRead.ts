// Reads a screenshot's PNG into the screen tier's BGRX pixels: what an OSWorld server sends for
// /screenshot, and the file a Wayland desktop's Screenshot portal writes. Neither is trusted to be
// well formed: the signature, the header, the size and every chunk bound are checked, and the
// inflated data may be no larger than the header says, so a hostile image costs at most one
// screen's worth of memory.
import { inflateSync } from 'node:zlib';

/** A decoded screenshot: 4 bytes a pixel (blue, green, red, unused), rows packed. */
export interface BgrxImage {
  width: number;
  height: number;
  data: Buffer;
}

/** Largest side accepted (a 16K display). */
const MAX_SIDE = 16384;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Decodes 8-bit RGB, RGBA, grey or grey+alpha, non-interlaced (what PIL writes for a screenshot); throws a plain Error saying why not. */
export function readPng(png: Buffer): BgrxImage {
  if (png.length < 33 || !png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG (bad signature)');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (offset + 12 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    if (offset + 12 + length > png.length) throw new Error(`PNG chunk ${type} runs past the end`);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      if (length !== 13) throw new Error('PNG header of the wrong size');
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || interlace !== 0) throw new Error(`PNG of bit depth ${String(depth)}, interlace ${String(interlace)} is not read`);
      const perColour: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };
      channels = perColour[colour ?? -1] ?? 0;
      if (channels === 0) throw new Error(`PNG colour type ${String(colour)} is not read`);
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') {
      sawEnd = true;
      break;
    }
    offset += 12 + length;
  }
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) throw new Error(`PNG of ${width}x${height} pixels is not a screen`);
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
