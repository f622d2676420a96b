import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/errors.js';
import { downscale, fitSize, type OutputChannels, type PixelFormat, type RawImage, type RgbImage } from './downscale.js';

type Rgb = readonly [number, number, number];

/** A frame painted by `paint(x, y)`, in BGRX or RGBA, with optional row padding. */
function frame(width: number, height: number, paint: (x: number, y: number) => Rgb, format: PixelFormat = 'bgrx', pad = 0): RawImage {
  const stride = width * 4 + pad;
  const data = new Uint8Array(stride * height).fill(0x77);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = paint(x, y);
      const o = y * stride + x * 4;
      if (format === 'bgrx') data.set([b, g, r, 0], o);
      else data.set([r, g, b, 200], o);
    }
  }
  return pad === 0 ? { width, height, data, format } : { width, height, data, format, stride };
}

function at(image: RgbImage, x: number, y: number): number[] {
  const o = (y * image.width + x) * image.channels;
  return [...image.data.subarray(o, o + image.channels)];
}

const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];
const WHITE: Rgb = [255, 255, 255];

function refuses(run: () => unknown): void {
  assert.throws(run, (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument');
}

describe('fitSize', () => {
  it('gives the limiting axis its maximum and rounds the other, keeping aspect', () => {
    assert.deepEqual(fitSize(2560, 1600, 1280, 800), { width: 1280, height: 800 });
    assert.deepEqual(fitSize(1281, 801, 1280, 800), { width: 1279, height: 800 });
    assert.deepEqual(fitSize(1281, 800, 1280, 800), { width: 1280, height: 799 });
    assert.deepEqual(fitSize(1366, 768, 1280, 800), { width: 1280, height: 720 });
    assert.deepEqual(fitSize(3840, 2160, 1280, 800), { width: 1280, height: 720 });
    assert.deepEqual(fitSize(1920, 1200, 1280, 800), { width: 1280, height: 800 });
    assert.deepEqual(fitSize(3, 3, 2, 2), { width: 2, height: 2 });
    assert.deepEqual(fitSize(5, 2, 2, 2), { width: 2, height: 1 });
  });

  it('never upscales', () => {
    assert.deepEqual(fitSize(1280, 800, 1280, 800), { width: 1280, height: 800 });
    assert.deepEqual(fitSize(640, 1, 1280, 800), { width: 640, height: 1 });
    assert.deepEqual(fitSize(1, 1, 1, 1), { width: 1, height: 1 });
  });

  it('keeps at least one pixel on a sliver', () => {
    assert.deepEqual(fitSize(1, 10000, 1280, 800), { width: 1, height: 800 });
    assert.deepEqual(fitSize(100000, 3, 1280, 800), { width: 1280, height: 1 });
  });

  it('refuses zero, negative, fractional and NaN sizes', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
      refuses(() => fitSize(bad, 10, 10, 10));
      refuses(() => fitSize(10, bad, 10, 10));
      refuses(() => fitSize(10, 10, bad, 10));
      refuses(() => fitSize(10, 10, 10, bad));
    }
  });
});

describe('downscale', () => {
  const quadrants = (w: number, h: number) => (x: number, y: number) => (y < h / 2 ? (x < w / 2 ? RED : GREEN) : x < w / 2 ? BLUE : WHITE);

  it('keeps 4 coloured quadrants of 1281×801 exact at the corners and edges when fitting 1280×800', () => {
    const out = downscale(frame(1281, 801, quadrants(1281, 801)), 1280, 800);
    assert.deepEqual([out.width, out.height, out.channels, out.data.length], [1279, 800, 3, 1279 * 800 * 3]);
    assert.deepEqual(at(out, 0, 0), [...RED]);
    assert.deepEqual(at(out, 1278, 0), [...GREEN]);
    assert.deepEqual(at(out, 0, 799), [...BLUE]);
    assert.deepEqual(at(out, 1278, 799), [...WHITE]);
    assert.deepEqual(at(out, 600, 380), [...RED]);
    assert.deepEqual(at(out, 700, 420), [...WHITE]);
    // Every pixel of the last column and row is a pure quadrant colour: nothing read past the edge.
    // Only the rows and columns that straddle the boundary mix colours.
    for (let y = 0; y < 800; y++) if (y < 399 || y > 400) assert.deepEqual(at(out, 1278, y), y < 399 ? [...GREEN] : [...WHITE], `row ${y}`);
    for (let x = 0; x < 1279; x++) if (x < 639 || x > 640) assert.deepEqual(at(out, x, 799), x < 639 ? [...BLUE] : [...WHITE], `column ${x}`);
  });

  it('halves 2560×1600 quadrants to 1280×800 with the boundary on a pixel edge', () => {
    const out = downscale(frame(2560, 1600, quadrants(2560, 1600)), 1280, 800);
    assert.deepEqual([out.width, out.height], [1280, 800]);
    assert.deepEqual(at(out, 639, 399), [...RED]);
    assert.deepEqual(at(out, 640, 399), [...GREEN]);
    assert.deepEqual(at(out, 639, 400), [...BLUE]);
    assert.deepEqual(at(out, 640, 400), [...WHITE]);
  });

  it('weighs each source pixel by its overlap with the output pixel', () => {
    // 3 → 2: output 0 covers [0, 1.5), output 1 covers [1.5, 3).
    const row = frame(3, 1, (x) => [x * 90, 0, 0]);
    assert.deepEqual([...downscale(row, 2, 2).data], [30, 0, 0, 150, 0, 0]);
    // 4×4 → 2×2 is the mean of each 2×2 block.
    const block = downscale(
      frame(4, 4, (x, y) => [x * 10 + y, 0, 0]),
      2,
      2,
    );
    assert.deepEqual([at(block, 0, 0)[0], at(block, 1, 0)[0], at(block, 0, 1)[0], at(block, 1, 1)[0]], [6, 26, 8, 28]);
  });

  it('keeps a flat colour exact at odd sizes and factors', () => {
    for (const [w, h, mw, mh] of [
      [1281, 801, 1280, 800],
      [1367, 769, 1280, 800],
      [7, 3, 2, 2],
      [3, 7, 1, 1],
      [3840, 2160, 1280, 800],
    ] as const) {
      const out = downscale(
        frame(w, h, () => [13, 200, 77]),
        mw,
        mh,
      );
      for (let i = 0; i < out.data.length; i += 3) assert.deepEqual([out.data[i], out.data[i + 1], out.data[i + 2]], [13, 200, 77], `${w}×${h} at ${i}`);
    }
  });

  it('swaps BGRX to RGB, honours a padded stride and copies a frame that already fits', () => {
    const paint = (x: number, y: number): Rgb => [x, y, 100 + x + y];
    for (const pad of [0, 12]) {
      const same = downscale(frame(5, 3, paint, 'bgrx', pad), 1280, 800);
      assert.deepEqual([same.width, same.height], [5, 3]);
      assert.deepEqual(at(same, 4, 2), [4, 2, 106]);
      const half = downscale(
        frame(10, 6, (x, y) => paint(x >> 1, y >> 1), 'bgrx', pad),
        5,
        3,
      );
      assert.deepEqual(half.data, same.data);
    }
  });

  it('reads RGBA, averages alpha when asked for 4 channels, and gives BGRX alpha 255', () => {
    const rgba = downscale(
      frame(4, 2, () => RED, 'rgba'),
      2,
      1,
      4,
    );
    assert.deepEqual(at(rgba, 1, 0), [255, 0, 0, 200]);
    assert.deepEqual(
      at(
        downscale(
          frame(4, 2, () => RED, 'rgba'),
          2,
          1,
        ),
        0,
        0,
      ),
      [255, 0, 0],
    );
    assert.deepEqual(
      at(
        downscale(
          frame(4, 2, () => RED, 'bgrx'),
          2,
          1,
          4,
        ),
        1,
        0,
      ),
      [255, 0, 0, 255],
    );
    assert.deepEqual(
      at(
        downscale(
          frame(1, 1, () => BLUE, 'bgrx'),
          9,
          9,
          4,
        ),
        0,
        0,
      ),
      [0, 0, 255, 255],
    );
  });

  it('refuses a short buffer, a short stride and bad sizes', () => {
    const good = frame(4, 3, () => RED);
    refuses(() => downscale({ ...good, data: good.data.subarray(4) }, 2, 2));
    refuses(() => downscale({ ...good, stride: 15 }, 2, 2));
    refuses(() => downscale({ ...good, stride: 16.5 }, 2, 2));
    refuses(() => downscale({ ...good, width: 0 }, 2, 2));
    refuses(() => downscale(good, 0, 2));
    // The last row needs no padding after it.
    const padded = frame(4, 3, () => RED, 'bgrx', 8);
    assert.equal(downscale({ ...padded, data: padded.data.subarray(0, padded.data.length - 8) }, 2, 2).width, 2);
  });
});

/** Pseudo-random 4-byte pixels (all four bytes random, so an X byte that leaks would show). */
function noisy(width: number, height: number, format: PixelFormat, pad = 0, seed = 1): RawImage {
  const stride = width * 4 + pad;
  const data = new Uint8Array(stride * height);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return pad === 0 ? { width, height, data, format } : { width, height, data, format, stride };
}

/** The area average by its definition, in integers: overlap lengths in units of 1/out of a source pixel, rounded half up. */
function bruteForce(image: RawImage, outW: number, outH: number, channels: OutputChannels): number[] {
  const stride = image.stride ?? image.width * 4;
  const order = image.format === 'bgrx' ? [2, 1, 0] : [0, 1, 2];
  const overlap = (i: number, j: number, source: number, output: number): number =>
    Math.max(0, Math.min((i + 1) * source, (j + 1) * output) - Math.max(i * source, j * output));
  const out: number[] = [];
  const total = image.width * image.height;
  for (let oy = 0; oy < outH; oy++) {
    for (let ox = 0; ox < outW; ox++) {
      const sums = [0, 0, 0, 0];
      for (let y = 0; y < image.height; y++) {
        const wy = overlap(oy, y, image.height, outH);
        if (wy === 0) continue;
        for (let x = 0; x < image.width; x++) {
          const w = wy * overlap(ox, x, image.width, outW);
          const o = y * stride + x * 4;
          for (let c = 0; c < 3; c++) sums[c]! += image.data[o + order[c]!]! * w;
          sums[3]! += (image.format === 'rgba' ? image.data[o + 3]! : 255) * w;
        }
      }
      for (let c = 0; c < channels; c++) out.push(Math.floor((2 * sums[c]! + total) / (2 * total)));
    }
  }
  return out;
}

describe('downscale kernels', () => {
  it('the reference kernel is the exact area average, rounded half up, on random images of odd sizes', () => {
    for (const [w, h, mw, mh] of [
      [7, 5, 3, 2],
      [5, 7, 4, 4],
      [9, 9, 3, 3],
      [13, 3, 6, 2],
      [4, 4, 2, 2],
      [11, 1, 5, 1],
    ] as const) {
      for (const format of ['bgrx', 'rgba'] as const) {
        for (const channels of [3, 4] as const) {
          const image = noisy(w, h, format, format === 'rgba' ? 4 : 0, w * 7 + h);
          const out = downscale(image, mw, mh, channels, 'reference');
          assert.deepEqual([...out.data], bruteForce(image, out.width, out.height, channels), `${w}×${h} → ${mw}×${mh} ${format} ${channels}`);
        }
      }
    }
  });

  it('the exact-factor fast paths (1:1, 2:1, 3:1, 4:1, 15:1) give the reference pixels on random BGRX, odd sizes and padded strides', () => {
    for (const [w, h] of [
      [1, 1],
      [2, 2],
      [3, 5],
      [17, 9],
      [64, 40],
      [1281, 801],
      [2562, 1602],
      [60, 45],
      [45, 30],
    ] as const) {
      for (const pad of [0, 8]) {
        for (const channels of [3, 4] as const) {
          const image = noisy(w, h, 'bgrx', pad, w + h + pad);
          // 1:1 (fits as it is) and exact n:1, which the fast kernels take; n:1 of a size n does not divide is no fast case.
          // The large frames check 2:1 only: the reference kernel is slow.
          for (const [mw, mh] of [
            [w, h],
            ...(w > 100 ? [2] : [2, 3, 4, 15]).map((n) => [Math.max(1, Math.floor(w / n)), Math.max(1, Math.floor(h / n))] as const),
          ]) {
            const what = `${w}×${h} pad ${pad} → ${mw}×${mh}, ${channels} channels`;
            assert.deepEqual(downscale(image, mw, mh, channels).data, downscale(image, mw, mh, channels, 'reference').data, what);
          }
        }
      }
    }
  });

  it('a BGRX buffer that does not start on a word boundary gives the reference pixels too', () => {
    const image = noisy(20, 10, 'bgrx');
    const shifted = new Uint8Array(image.data.length + 1);
    shifted.set(image.data, 1);
    const unaligned = { ...image, data: shifted.subarray(1) };
    for (const [mw, mh] of [
      [20, 10],
      [10, 5],
      [7, 7],
    ] as const) {
      assert.deepEqual(downscale(unaligned, mw, mh).data, downscale(image, mw, mh, 3, 'reference').data);
    }
  });
});
