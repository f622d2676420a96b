import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32 as zlibCrc32, inflateSync } from 'node:zlib';
import { OverseerError } from '../../../protocol/errors.js';
import { downscale, type OutputChannels, type RawImage, type RgbImage } from './downscale.js';
import { crc32, encodeFittedPng, encodePng, type PngFilter } from './png.js';

interface Decoded {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
  chunks: string[];
  filters: number[];
}

/** An independent reader: checks the signature and every CRC (with zlib's crc32), inflates, and undoes all five filters. */
function decodePng(file: Buffer): Decoded {
  assert.deepEqual([...file.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  let channels = 0;
  let at = 8;
  while (at < file.length) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const body = file.subarray(at + 8, at + 8 + length);
    assert.equal(file.readUInt32BE(at + 8 + length), zlibCrc32(file.subarray(at + 4, at + 8 + length)), `CRC of ${type}`);
    chunks.push(type);
    if (type === 'IHDR') {
      assert.equal(length, 13);
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      assert.equal(body[8], 8);
      channels = body[9] === 2 ? 3 : body[9] === 6 ? 4 : 0;
      assert.deepEqual([body[10], body[11], body[12]], [0, 0, 0]);
    } else if (type === 'IDAT') idat.push(body);
    at += 12 + length;
  }
  assert.equal(at, file.length);
  const raw = inflateSync(Buffer.concat(idat));
  const line = width * channels;
  assert.equal(raw.length, (line + 1) * height);
  const data = new Uint8Array(line * height);
  const filters: number[] = [];
  for (let y = 0; y < height; y++) {
    const f = raw[y * (line + 1)]!;
    filters.push(f);
    for (let i = 0; i < line; i++) {
      const x = raw[y * (line + 1) + 1 + i]!;
      const a = i >= channels ? data[y * line + i - channels]! : 0;
      const b = y > 0 ? data[(y - 1) * line + i]! : 0;
      const c = y > 0 && i >= channels ? data[(y - 1) * line + i - channels]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][f];
      assert.ok(predictor !== undefined, `filter type ${f}`);
      data[y * line + i] = (x + predictor) & 0xff;
    }
  }
  return { width, height, channels, data, chunks, filters };
}

/** Pseudo-random bytes, so every filter sees carries and wrap-around. */
function noise(width: number, height: number, channels: OutputChannels, seed = 7): RgbImage {
  const data = new Uint8Array(width * height * channels);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return { width, height, channels, data };
}

describe('PNG encoder', () => {
  it('round-trips 1×1, 2×1, 1×2, 3×7 and odd sizes through every filter, level and colour type', () => {
    const filters: PngFilter[] = ['none', 'sub', 'up'];
    for (const [w, h] of [
      [1, 1],
      [2, 1],
      [1, 2],
      [3, 7],
      [17, 5],
      [101, 33],
    ] as const) {
      for (const channels of [3, 4] as const) {
        for (const filter of filters) {
          for (const level of [0, 1, 6, 9]) {
            const image = noise(w, h, channels, w * 31 + h);
            const decoded = decodePng(encodePng(image, { filter, level }));
            const what = `${w}×${h}×${channels} ${filter} l${level}`;
            assert.deepEqual([decoded.width, decoded.height, decoded.channels], [w, h, channels], what);
            assert.deepEqual(decoded.chunks, ['IHDR', 'IDAT', 'IEND'], what);
            assert.deepEqual(decoded.filters, new Array<number>(h).fill({ none: 0, sub: 1, up: 2 }[filter]), what);
            assert.deepEqual(decoded.data, image.data, what);
          }
        }
      }
    }
  });

  it('encodes a fitted frame in one pass to the same file as downscale then encodePng, whatever the kernel', () => {
    // 1:1 and 2:1 take the fast kernels, 7×5 and 3×3 the reference; sizes change between calls, so the kept scanline buffer is resized and reused.
    for (const [w, h, mw, mh] of [
      [40, 20, 40, 20],
      [40, 20, 20, 10],
      [41, 21, 7, 5],
      [9, 9, 3, 3],
      [40, 20, 40, 20],
    ] as const) {
      const noisy = noise(w, h, 4, w * h);
      const frame: RawImage = { width: w, height: h, data: noisy.data, format: 'bgrx' };
      for (const channels of [3, 4] as const) {
        for (const filter of ['none', 'sub', 'up'] as const) {
          const fitted = encodeFittedPng(frame, mw, mh, channels, { filter, level: 1 });
          const scaled = downscale(frame, mw, mh, channels, 'reference');
          assert.deepEqual([fitted.width, fitted.height], [scaled.width, scaled.height]);
          assert.deepEqual(fitted.png, encodePng(scaled, { filter, level: 1 }), `${w}×${h} → ${mw}×${mh} ${channels} ${filter}`);
          assert.deepEqual(decodePng(fitted.png).data, scaled.data);
        }
      }
    }
  });

  it('defaults to the Up filter at level 3', () => {
    const image = noise(4, 3, 3);
    const file = encodePng(image);
    assert.deepEqual(decodePng(file).filters, [2, 2, 2]);
    assert.deepEqual(file, encodePng(image, { filter: 'up', level: 3 }));
  });

  it('computes the standard CRC-32', () => {
    assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
    assert.equal(crc32(new Uint8Array(0)), 0);
    const bytes = noise(50, 50, 4).data;
    assert.equal(crc32(bytes), zlibCrc32(bytes));
    assert.equal(crc32(bytes, 10, 90), zlibCrc32(bytes.subarray(10, 90)));
  });

  it('refuses a wrong byte count, zero sizes, bad channels, levels and filters with invalid_argument', () => {
    const good = noise(3, 2, 3);
    const bad: [RgbImage, object][] = [
      [{ ...good, data: good.data.subarray(1) }, {}],
      [{ ...good, width: 0, data: new Uint8Array(0) }, {}],
      [{ ...good, height: 1.5 }, {}],
      [{ ...good, channels: 2 as OutputChannels }, {}],
      [good, { level: 10 }],
      [good, { level: -1 }],
      [good, { level: 2.5 }],
      [good, { filter: 'paeth' }],
    ];
    for (const [image, options] of bad) {
      assert.throws(
        () => encodePng(image, options),
        (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument' && e.info.detail.length > 10,
      );
    }
  });
});
