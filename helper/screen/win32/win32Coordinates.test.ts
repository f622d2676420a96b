import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { DENORMALIZERS, MAX_DESKTOP_SIZE, normalizeAxis, toAbsolute } from './win32Coordinates.js';

// Odd, even, tiny and large sizes, and sizes of real multi-monitor desktops.
const SIZES = [1, 2, 3, 5, 7, 640, 641, 768, 799, 800, 1023, 1080, 1280, 1366, 1439, 1919, 1920, 2161, 2560, 3841, 5120, 7681, 11521, 16384, 32767, 32768];

describe('SendInput absolute coordinates', () => {
  it('round-trips every pixel of every size exactly, whichever rounding the OS applies', () => {
    for (const size of SIZES) {
      for (let p = 0; p < size; p++) {
        const d = normalizeAxis(p, size);
        assert.ok(d >= 0 && d <= 65535, `size ${size} pixel ${p}: ${d} out of range`);
        for (const [name, back] of Object.entries(DENORMALIZERS)) {
          if (size === 1 && name === 'round') continue; // size - 1 = 0: every d is pixel 0 anyway
          if (back(d, size) !== p) assert.fail(`size ${size}, pixel ${p}: d=${d} maps back to ${back(d, size)} under ${name}`);
        }
      }
    }
  });

  it('normalizes over the virtual desktop, negative origins included', () => {
    // A monitor left of and above the primary: the virtual desktop starts at -1920,-300.
    const desk = { x: -1920, y: -300, width: 1920 + 2561, height: 1381 };
    for (const [x, y] of [
      [-1920, -300],
      [-1, -1],
      [0, 0],
      [2560, 1080],
      [-7, 999],
    ] as const) {
      const { dx, dy } = toAbsolute(x, y, desk);
      assert.equal(desk.x + DENORMALIZERS.floor(dx, desk.width), x);
      assert.equal(desk.y + DENORMALIZERS.floor(dy, desk.height), y);
      assert.equal(desk.x + DENORMALIZERS.round(dx, desk.width), x);
      assert.equal(desk.y + DENORMALIZERS.round(dy, desk.height), y);
    }
    assert.deepEqual(toAbsolute(-1920, -300, desk), { dx: normalizeAxis(0, desk.width), dy: normalizeAxis(0, desk.height) });
  });

  it('refuses a desktop wider than mouse messages can address with input_unavailable', () => {
    assert.throws(
      () => toAbsolute(0, 0, { x: 0, y: 0, width: MAX_DESKTOP_SIZE + 1, height: 10 }),
      (e: unknown) => e instanceof OverseerError && e.code === 'input_unavailable',
    );
  });

  it('refuses a point off the virtual desktop or not a whole pixel with invalid_argument', () => {
    const desk = { x: -100, y: 0, width: 300, height: 200 };
    for (const [x, y] of [
      [-101, 0],
      [200, 0],
      [0, 200],
      [0, -1],
      [1.5, 3],
      [Number.NaN, 0],
    ] as const) {
      assert.throws(
        () => toAbsolute(x, y, desk),
        (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument',
        `${x},${y}`,
      );
    }
  });
});
