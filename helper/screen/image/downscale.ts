// Fit a captured frame into the agent's image budget: an area-average (box) downscale fused with the
// pixel-format swap, in plain JS so it runs unchanged in every helper (Linux node, Windows node.exe,
// Wine, Electron). Measured in /work/research/issue11.md §2: as fast as sharp's linear kernel, and a
// box filter does not ring on text the way lanczos does.
import { fail } from '../../../protocol/errors.js';

/** Byte layout of a source pixel: X11 ZPixmap depth 24/32 is BGRX; RGBA is everything else. */
export type PixelFormat = 'bgrx' | 'rgba';

/** Channels of the output: RGB for PNG colour type 2, RGBA for colour type 6. */
export type OutputChannels = 3 | 4;

/** A raw 8-bit frame. */
export interface RawImage {
  /** Pixels across. */
  width: number;
  /** Pixels down. */
  height: number;
  /** 4 bytes per pixel in `format`, rows `stride` bytes apart. */
  data: Uint8Array;
  /** Byte layout of each pixel. */
  format: PixelFormat;
  /** Bytes from one row to the next (X11 pads rows); default width × 4. */
  stride?: number;
}

/** A packed RGB or RGBA frame, rows back to back. */
export interface RgbImage {
  /** Pixels across. */
  width: number;
  /** Pixels down. */
  height: number;
  /** 3 or 4. */
  channels: OutputChannels;
  /** width × height × channels bytes. */
  data: Uint8Array;
}

/** The size an image of width × height gets when fitted into maxWidth × maxHeight. */
export interface FitSize {
  /** Output pixels across. */
  width: number;
  /** Output pixels down. */
  height: number;
}

function positiveInt(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 1) throw fail('invalid_argument', `${what} must be a positive integer, not ${String(value)}.`);
}

/**
 * The output size rule. Never upscales: an image that already fits keeps its size. Otherwise the
 * limiting axis (the one with the smaller max/size ratio; width on a tie) gets exactly its maximum and
 * the other axis gets round(size × max / limitingSize), half up, at least 1. Computed in integers, so
 * 1281×801 into 1280×800 is 1279×800 (height limits: 800/801 < 1280/1281) and 2560×1600 is 1280×800.
 */
export function fitSize(width: number, height: number, maxWidth: number, maxHeight: number): FitSize {
  positiveInt(width, 'width');
  positiveInt(height, 'height');
  positiveInt(maxWidth, 'max_width');
  positiveInt(maxHeight, 'max_height');
  if (width <= maxWidth && height <= maxHeight) return { width, height };
  // maxWidth / width <= maxHeight / height, without floating point.
  if (maxWidth * height <= maxHeight * width) {
    return { width: maxWidth, height: Math.min(maxHeight, Math.max(1, Math.floor((2 * height * maxWidth + width) / (2 * width)))) };
  }
  return { width: Math.min(maxWidth, Math.max(1, Math.floor((2 * width * maxHeight + height) / (2 * height)))), height: maxHeight };
}

/** For each output index along one axis: the source indices it covers and each one's share (they sum to 1). */
interface Taps {
  start: Int32Array;
  count: Int32Array;
  offset: Int32Array;
  weight: Float32Array;
}

/**
 * Output pixel i covers the source interval [i·s, (i+1)·s) with s = source/output; each source pixel
 * weighs by the length of its overlap with that interval, divided by s.
 */
function taps(source: number, output: number): Taps {
  const s = source / output;
  const start = new Int32Array(output);
  const count = new Int32Array(output);
  const offset = new Int32Array(output);
  const weights: number[] = [];
  for (let i = 0; i < output; i++) {
    const lo = i * s;
    const hi = i === output - 1 ? source : (i + 1) * s;
    const first = Math.floor(lo);
    const last = Math.min(source - 1, Math.ceil(hi) - 1);
    start[i] = first;
    count[i] = last - first + 1;
    offset[i] = weights.length;
    for (let j = first; j <= last; j++) weights.push((Math.min(hi, j + 1) - Math.max(lo, j)) / s);
  }
  return { start, count, offset, weight: Float32Array.from(weights) };
}

function checkSource(image: RawImage): number {
  positiveInt(image.width, 'width');
  positiveInt(image.height, 'height');
  const stride = image.stride ?? image.width * 4;
  if (!Number.isSafeInteger(stride) || stride < image.width * 4) {
    throw fail('invalid_argument', `stride ${String(stride)} is shorter than a row of ${image.width} pixels (${image.width * 4} bytes).`);
  }
  const needed = stride * (image.height - 1) + image.width * 4;
  if (image.data.length < needed) {
    throw fail('invalid_argument', `a ${image.width}×${image.height} frame with stride ${stride} needs ${needed} bytes; got ${image.data.length}.`);
  }
  return stride;
}

/**
 * Fits `image` into maxWidth × maxHeight (fitSize) with an area-average filter and converts it to
 * packed RGB or RGBA. Alpha is averaged straight (not premultiplied); a BGRX source gives alpha 255.
 */
export function downscale(image: RawImage, maxWidth: number, maxHeight: number, channels: OutputChannels = 3): RgbImage {
  const stride = checkSource(image);
  const { width: outW, height: outH } = fitSize(image.width, image.height, maxWidth, maxHeight);
  const src = image.data;
  const out = new Uint8Array(outW * outH * channels);
  // Source byte offsets of red, green, blue, alpha within a pixel.
  const [r, g, b] = image.format === 'bgrx' ? [2, 1, 0] : [0, 1, 2];
  const alpha = channels === 4 && image.format === 'rgba';
  if (outW === image.width && outH === image.height) {
    for (let y = 0; y < outH; y++) {
      let s = y * stride;
      let d = y * outW * channels;
      for (let x = 0; x < outW; x++, s += 4, d += channels) {
        out[d] = src[s + r]!;
        out[d + 1] = src[s + g]!;
        out[d + 2] = src[s + b]!;
        if (channels === 4) out[d + 3] = alpha ? src[s + 3]! : 255;
      }
    }
    return { width: outW, height: outH, channels, data: out };
  }
  const tx = taps(image.width, outW);
  const ty = taps(image.height, outH);
  const rowLen = outW * 4;
  // One source row resampled across; the last one is kept because adjacent output rows share it.
  const row = new Float32Array(rowLen);
  const acc = new Float32Array(rowLen);
  let cachedRow = -1;
  const resampleRow = (sy: number): void => {
    if (sy === cachedRow) return;
    cachedRow = sy;
    const base = sy * stride;
    for (let x = 0, o = 0; x < outW; x++, o += 4) {
      let vr = 0;
      let vg = 0;
      let vb = 0;
      let va = 0;
      let s = base + tx.start[x]! * 4;
      const n = tx.count[x]!;
      let w = tx.offset[x]!;
      for (let k = 0; k < n; k++, s += 4, w++) {
        const wk = tx.weight[w]!;
        vr += src[s + r]! * wk;
        vg += src[s + g]! * wk;
        vb += src[s + b]! * wk;
        if (alpha) va += src[s + 3]! * wk;
      }
      row[o] = vr;
      row[o + 1] = vg;
      row[o + 2] = vb;
      row[o + 3] = va;
    }
  };
  for (let y = 0; y < outH; y++) {
    acc.fill(0);
    const n = ty.count[y]!;
    for (let k = 0; k < n; k++) {
      resampleRow(ty.start[y]! + k);
      const wk = ty.weight[ty.offset[y]! + k]!;
      for (let i = 0; i < rowLen; i++) acc[i]! += row[i]! * wk;
    }
    let d = y * outW * channels;
    for (let o = 0; o < rowLen; o += 4, d += channels) {
      out[d] = Math.min(255, (acc[o]! + 0.5) | 0);
      out[d + 1] = Math.min(255, (acc[o + 1]! + 0.5) | 0);
      out[d + 2] = Math.min(255, (acc[o + 2]! + 0.5) | 0);
      if (channels === 4) out[d + 3] = alpha ? Math.min(255, (acc[o + 3]! + 0.5) | 0) : 255;
    }
  }
  return { width: outW, height: outH, channels, data: out };
}
