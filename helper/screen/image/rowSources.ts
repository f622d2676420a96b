// The area-average (box) resampler as row sources: each call fills one output row with packed
// pixels 0xAARRGGBB, so a sink (packed RGB bytes, or PNG scanlines filtered on the fly) takes rows
// without another full-frame copy. One exact reference kernel in integers, and two fast kernels for
// the screens that matter (1:1, and exact n:1 as HiDPI and 4K give) that read BGRX as one 32-bit word a
// pixel and must give the same pixels (downscale.test.ts checks them against the reference).

/**
 * Fills `row` (width packed pixels 0xAARRGGBB, as int32 so V8 keeps them small integers) with
 * output row `y`; rows are asked for in order.
 */
export type RowSource = (y: number, row: Int32Array) => void;

/** A source frame as the kernels read it: 4 bytes a pixel, rows `stride` bytes apart. */
export interface SourceFrame {
  width: number;
  height: number;
  data: Uint8Array;
  stride: number;
  /** Source byte offsets of red, green, blue within a pixel. */
  rgb: readonly [number, number, number];
  /** Read alpha from byte 3; otherwise alpha is 255. */
  alpha: boolean;
}

const LITTLE_ENDIAN = new Uint8Array(Int32Array.of(1).buffer)[0] === 1;

/**
 * A BGRX frame as one word per pixel (0xXXRRGGBB), or undefined for other layouts. A buffer that
 * does not start on a word boundary (a core GetImage reply can sit anywhere in a socket read) is
 * copied first: one memcpy costs far less than the reference kernel.
 */
export function bgrxWords(f: SourceFrame): Int32Array | undefined {
  const bgrx = f.rgb[0] === 2 && f.rgb[1] === 1 && f.rgb[2] === 0 && !f.alpha;
  if (!bgrx || !LITTLE_ENDIAN || f.stride % 4 !== 0) return undefined;
  const words = (f.stride * (f.height - 1)) / 4 + f.width;
  if (f.data.byteOffset % 4 === 0) return new Int32Array(f.data.buffer, f.data.byteOffset, words);
  const aligned = new Int32Array(words);
  new Uint8Array(aligned.buffer).set(f.data.subarray(0, words * 4));
  return aligned;
}

/** 1:1 BGRX: the pixel with its X byte set to opaque. */
export function copyRows(words: Int32Array, stride: number, width: number): RowSource {
  const step = stride / 4;
  return (y, row) => {
    for (let x = 0, s = y * step; x < width; x++, s++) row[x] = words[s]! | 0xff000000;
  };
}

/**
 * Exactly 2:1 BGRX: the mean of each 2×2 block, rounded half up, per channel. Red and blue are
 * summed in one word (each lane has 16 bits, and 4 × 255 + 2 needs 10), green in another.
 */
export function halveRows(words: Int32Array, stride: number, width: number): RowSource {
  const step = stride / 4;
  return (y, row) => {
    let a = 2 * y * step;
    let c = a + step;
    for (let x = 0; x < width; x++, a += 2, c += 2) {
      const p = words[a]!;
      const q = words[a + 1]!;
      const r = words[c]!;
      const s = words[c + 1]!;
      const rb = (p & 0xff00ff) + (q & 0xff00ff) + (r & 0xff00ff) + (s & 0xff00ff) + 0x20002;
      const g = (p & 0xff00) + (q & 0xff00) + (r & 0xff00) + (s & 0xff00) + 0x200;
      row[x] = 0xff000000 | ((rb >>> 2) & 0xff00ff) | ((g >>> 2) & 0xff00);
    }
  };
}

/**
 * Exactly n:1 BGRX for 3 ≤ n ≤ 15 (a 4K screen into 1280x720 is 3:1): the mean of each n×n
 * block, rounded half up. Red and blue share a word as in halveRows; n² × 255 must fit 16 bits.
 */
export function boxRows(words: Int32Array, stride: number, width: number, n: number): RowSource {
  if (!Number.isInteger(n) || n < 3 || n > 15) throw new RangeError(`boxRows takes a factor of 3..15, not ${n}`);
  const step = stride / 4;
  const area = n * n;
  const half = area >> 1;
  return (y, row) => {
    const top = n * y * step;
    for (let x = 0, left = top; x < width; x++, left += n) {
      let rb = 0;
      let g = 0;
      for (let j = 0, s = left; j < n; j++, s += step) {
        for (let i = 0; i < n; i++) {
          const p = words[s + i]!;
          rb += p & 0xff00ff;
          g += p & 0xff00;
        }
      }
      const r = Math.floor(((rb >>> 16) + half) / area);
      const b = Math.floor(((rb & 0xffff) + half) / area);
      const gg = Math.floor(((g >>> 8) + half) / area);
      row[x] = 0xff000000 | (r << 16) | (gg << 8) | b;
    }
  };
}

/** For each output index along one axis: the source indices it covers and their integer weights. */
interface Taps {
  start: Int32Array;
  count: Int32Array;
  offset: Int32Array;
  weight: Float64Array;
  /** What every output index's weights sum to. */
  total: number;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * Output pixel i covers the source interval [i·s, (i+1)·s) with s = source/output. Measured in
 * units of 1/output of a source pixel the ends are integers, so each source pixel's overlap is an
 * integer too (then divided by gcd(source, output)): the average is an exact fraction.
 */
function taps(source: number, output: number): Taps {
  const g = gcd(source, output);
  const start = new Int32Array(output);
  const count = new Int32Array(output);
  const offset = new Int32Array(output);
  const weights: number[] = [];
  for (let i = 0; i < output; i++) {
    const lo = i * source;
    const hi = lo + source;
    const first = Math.floor(lo / output);
    const last = Math.ceil(hi / output) - 1;
    start[i] = first;
    count[i] = last - first + 1;
    offset[i] = weights.length;
    for (let j = first; j <= last; j++) weights.push((Math.min(hi, (j + 1) * output) - Math.max(lo, j * output)) / g);
  }
  return { start, count, offset, weight: Float64Array.from(weights), total: source / g };
}

/**
 * The reference kernel, any factor and layout: per channel Σ value × wx × wy over the covered
 * source pixels, divided by Σ wx × wy and rounded half up, all exact in doubles (every term is an
 * integer below 2^53 for any screen). Each source row is resampled across once, into a ring that
 * holds as many rows as one output row covers (the next output row starts on the last of them).
 */
export function areaRows(f: SourceFrame, outW: number, outH: number): RowSource {
  const tx = taps(f.width, outW);
  const ty = taps(f.height, outH);
  // Locals, not tx.*: V8 reloads a property inside a loop that stores to a typed array.
  const { start: xStart, offset: xOffset, weight: xWeight } = tx;
  const xEnd = tx.offset.map((o, i) => o + tx.count[i]!);
  const { data: src, stride, alpha } = f;
  const [ro, go, bo] = f.rgb;
  // Without an alpha channel every pixel is opaque, and so is their average: no lane for it.
  const lanes = alpha ? 4 : 3;
  const rowLen = outW * lanes;
  const ringSize = Math.max(...ty.count);
  const ring = Array.from({ length: ringSize }, () => new Float64Array(rowLen));
  const ringRow = new Int32Array(ringSize).fill(-1);
  const acc = new Float64Array(rowLen);
  const total = tx.total * ty.total;
  const half = total / 2;
  const across = (sy: number): Float64Array => {
    const slot = sy % ringSize;
    const out = ring[slot]!;
    if (ringRow[slot] === sy) return out;
    ringRow[slot] = sy;
    const base = sy * stride;
    for (let x = 0, o = 0; x < outW; x++, o += lanes) {
      let vr = 0;
      let vg = 0;
      let vb = 0;
      let va = 0;
      let s = base + xStart[x]! * 4;
      const end = xEnd[x]!;
      for (let w = xOffset[x]!; w < end; w++, s += 4) {
        const wk = xWeight[w]!;
        vr += src[s + ro]! * wk;
        vg += src[s + go]! * wk;
        vb += src[s + bo]! * wk;
        if (alpha) va += src[s + 3]! * wk;
      }
      out[o] = vr;
      out[o + 1] = vg;
      out[o + 2] = vb;
      if (alpha) out[o + 3] = va;
    }
    return out;
  };
  return (y, row) => {
    const first = ty.offset[y]!;
    const end = first + ty.count[y]!;
    const sy = ty.start[y]!;
    const top = across(sy);
    const w0 = ty.weight[first]!;
    for (let i = 0; i < rowLen; i++) acc[i] = top[i]! * w0;
    for (let w = first + 1; w < end; w++) {
      const next = across(sy + w - first);
      const wk = ty.weight[w]!;
      for (let i = 0; i < rowLen; i++) acc[i]! += next[i]! * wk;
    }
    for (let x = 0, o = 0; x < outW; x++, o += lanes) {
      const r = Math.floor((acc[o]! + half) / total);
      const g = Math.floor((acc[o + 1]! + half) / total);
      const b = Math.floor((acc[o + 2]! + half) / total);
      const a = alpha ? Math.floor((acc[o + 3]! + half) / total) : 255;
      row[x] = (a << 24) | (r << 16) | (g << 8) | b;
    }
  };
}
