// Fit a captured frame into the agent's image budget: an area-average (box) downscale fused with the
// pixel-format swap, in plain JS so it runs unchanged in every helper (Linux node, Windows node.exe,
// Wine, Electron). Measured in /work/research/issue11.md §2: as fast as sharp's linear kernel, and a
// box filter does not ring on text the way lanczos does.
import { fail } from '../../../protocol/errors.js';
import { areaRows, bgrxWords, boxRows, copyRows, halveRows, type RowSource, type SourceFrame } from './rowSources.js';

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

/** Which kernel fills the rows: the fast ones where they apply (BGRX at an exact factor 1..15), or always the reference. */
export type Kernel = 'fast' | 'reference';

/** An image fitted into a box, as rows a sink pulls one at a time (rowSources.ts). */
export interface FittedRows {
  /** Output pixels across. */
  width: number;
  /** Output pixels down. */
  height: number;
  /** Fills output row y with packed 0xAARRGGBB pixels. */
  rows: RowSource;
}

/**
 * `image` fitted into maxWidth × maxHeight (fitSize) with an area average, as rows. Alpha is
 * averaged straight (not premultiplied); a BGRX source gives alpha 255.
 */
export function fittedRows(image: RawImage, maxWidth: number, maxHeight: number, kernel: Kernel = 'fast'): FittedRows {
  const stride = checkSource(image);
  const { width, height } = fitSize(image.width, image.height, maxWidth, maxHeight);
  const frame: SourceFrame = {
    width: image.width,
    height: image.height,
    data: image.data,
    stride,
    rgb: image.format === 'bgrx' ? [2, 1, 0] : [0, 1, 2],
    alpha: image.format === 'rgba',
  };
  // An exact integer factor on both axes (1 when the frame already fits) takes a fast kernel.
  const factor = image.width / width;
  const exact = Number.isInteger(factor) && factor * height === image.height && factor <= 15;
  const words = kernel === 'fast' && exact ? bgrxWords(frame) : undefined;
  let rows: RowSource;
  if (words === undefined) rows = areaRows(frame, width, height);
  else if (factor === 1) rows = copyRows(words, stride, width);
  else if (factor === 2) rows = halveRows(words, stride, width);
  else rows = boxRows(words, stride, width, factor);
  return { width, height, rows };
}

/**
 * Fits `image` into maxWidth × maxHeight (fitSize) with an area-average filter and converts it to
 * packed RGB or RGBA. Alpha is averaged straight (not premultiplied); a BGRX source gives alpha 255.
 */
export function downscale(image: RawImage, maxWidth: number, maxHeight: number, channels: OutputChannels = 3, kernel: Kernel = 'fast'): RgbImage {
  const { width, height, rows } = fittedRows(image, maxWidth, maxHeight, kernel);
  const out = new Uint8Array(width * height * channels);
  const row = new Int32Array(width);
  for (let y = 0, d = 0; y < height; y++) {
    rows(y, row);
    if (channels === 3) {
      for (let x = 0; x < width; x++, d += 3) {
        const p = row[x]!;
        out[d] = p >> 16;
        out[d + 1] = p >> 8;
        out[d + 2] = p;
      }
    } else {
      for (let x = 0; x < width; x++, d += 4) {
        const p = row[x]!;
        out[d] = p >> 16;
        out[d + 1] = p >> 8;
        out[d + 2] = p;
        out[d + 3] = p >> 24;
      }
    }
  }
  return { width, height, channels, data: out };
}
