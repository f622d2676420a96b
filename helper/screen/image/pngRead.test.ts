import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { MAX_PNG_PIXELS, readPng, readPngHeader } from './pngRead.js';

function crcTable(): number[] {
  return Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
}
const TABLE = crcTable();
function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  let c = 0xffffffff;
  for (const b of Buffer.concat([head.subarray(4), body])) c = (TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((c ^ 0xffffffff) >>> 0, 0);
  return Buffer.concat([head, body, crc]);
}
/** A PNG of RGB rows (filter 0 on even rows, 2 "up" on odd ones), 8-bit, colour type 2. */
function png(width: number, height: number, rgb: (x: number, y: number) => [number, number, number], raw?: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(y % 2 === 1 ? 2 : 0);
    for (let x = 0; x < width; x++) {
      const px = rgb(x, y);
      const up = y > 0 ? rgb(x, y - 1) : [0, 0, 0];
      for (let i = 0; i < 3; i++) rows.push(y % 2 === 1 ? ((px[i] ?? 0) - (up[i] ?? 0)) & 0xff : (px[i] ?? 0));
    }
  }
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw ?? Buffer.from(rows))), chunk('IEND', Buffer.alloc(0))]);
}

describe('reading the VM screenshot PNG', () => {
  it('decodes RGB rows with their filters into BGRX', () => {
    const img = readPng(png(3, 2, (x, y) => [x * 50, y * 100, 7]));
    assert.deepEqual([img.width, img.height, img.data.length], [3, 2, 24]);
    const at = (x: number, y: number): number[] => [...img.data.subarray((y * 3 + x) * 4, (y * 3 + x) * 4 + 3)];
    assert.deepEqual(at(2, 1), [7, 100, 100]);
    assert.deepEqual(at(0, 0), [7, 0, 0]);
  });

  it('refuses a wrong signature, a cut file, a bomb that inflates past its header, and an absurd size', () => {
    const good = png(4, 4, () => [1, 2, 3]);
    assert.throws(() => readPng(Buffer.from('GIF89a' + 'x'.repeat(40))), /signature/);
    assert.throws(() => readPng(good.subarray(0, good.length - 20)), /past the end|cut short/);
    assert.throws(() => readPng(png(4, 4, () => [0, 0, 0], Buffer.alloc(10_000_000))), /inflate/);
    const huge = Buffer.from(good);
    huge.writeUInt32BE(100_000, 16);
    assert.throws(() => readPng(huge), /not a screen/);
  });

  it('reads the declared size from the header alone, and refuses a size past the pixel budget before inflating', () => {
    const good = png(5, 3, () => [1, 2, 3]);
    assert.deepEqual(readPngHeader(good), { width: 5, height: 3, channels: 3 });
    // A bomb: the header declares 16384x16384, the image data is a few bytes that could never hold it.
    const bomb = Buffer.from(good);
    bomb.writeUInt32BE(16384, 16);
    bomb.writeUInt32BE(16384, 20);
    assert.ok(16384 * 16384 > MAX_PNG_PIXELS);
    assert.throws(() => readPngHeader(bomb), /past the budget/);
    assert.throws(() => readPng(bomb), /past the budget/);
    const wide = Buffer.from(good);
    wide.writeUInt32BE(8000, 16);
    wide.writeUInt32BE(8000, 20);
    assert.throws(() => readPngHeader(wide), /past the budget/);
  });

  it('refuses an image whose header is not the size expected, without inflating it', () => {
    const good = png(5, 3, () => [1, 2, 3]);
    assert.equal(readPng(good, { width: 5, height: 3 }).width, 5);
    // Image data that would inflate wrongly is never reached: the size check comes first.
    const mislabelled = png(5, 3, () => [0, 0, 0], Buffer.alloc(10_000_000));
    assert.throws(() => readPng(mislabelled, { width: 1440, height: 900 }), /5x3 pixels where 1440x900 were expected/);
  });

  it('refuses a PNG whose first chunk is not its header', () => {
    const good = png(2, 2, () => [1, 2, 3]);
    const moved = Buffer.concat([good.subarray(0, 8), good.subarray(33, good.length - 12), good.subarray(8, 33), good.subarray(good.length - 12)]);
    assert.throws(() => readPngHeader(moved), /begin with its 13-byte header/);
  });
});
