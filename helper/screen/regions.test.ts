import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { area, intersect, paintMasks, subtract, uncovered, visibleParts, windowAt } from './regions.js';
import type { CapturedImage, NativeWindow } from './screenBackend.js';

const rect = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
const win = (handle: string, r: ReturnType<typeof rect>): NativeWindow => ({ handle, title: handle, classes: [], rect: r });

function image(width: number, height: number, fill = 200, origin = { x: 0, y: 0 }): CapturedImage {
  return { width, height, stride: width * 4, pixelFormat: 'bgrx', data: Buffer.alloc(width * height * 4, fill), origin, capturePath: 'test', captureMs: 0 };
}

describe('screen regions', () => {
  it('intersects, and gives nothing for rectangles that only touch', () => {
    assert.deepEqual(intersect(rect(0, 0, 10, 10), rect(5, 5, 10, 10)), rect(5, 5, 5, 5));
    assert.equal(intersect(rect(0, 0, 10, 10), rect(10, 0, 5, 5)), undefined);
    assert.equal(intersect(rect(0, 0, 10, 10), rect(3, 3, 0, 4)), undefined);
  });

  it('subtracts into disjoint parts whose area is exactly what is left', () => {
    const a = rect(0, 0, 100, 80);
    for (const b of [rect(10, 10, 20, 20), rect(-5, -5, 30, 200), rect(90, 70, 50, 50), rect(0, 0, 100, 80), rect(200, 200, 5, 5)]) {
      const parts = subtract(a, b);
      const overlap = intersect(a, b);
      assert.equal(area(parts), a.width * a.height - (overlap === undefined ? 0 : overlap.width * overlap.height), JSON.stringify(b));
      for (const [i, p] of parts.entries()) {
        assert.equal(intersect(p, b), undefined, 'no part overlaps what was cut');
        for (const q of parts.slice(i + 1)) assert.equal(intersect(p, q), undefined, 'parts are disjoint');
      }
    }
  });

  it('leaves visible only what no window above covers, and finds the topmost window at a point', () => {
    const stack = [win('top', rect(50, 50, 100, 100)), win('middle', rect(0, 0, 100, 100)), win('bottom', rect(0, 0, 300, 300))];
    assert.equal(area(visibleParts(stack, 0)), 100 * 100);
    assert.equal(area(visibleParts(stack, 1)), 100 * 100 - 50 * 50);
    assert.equal(area(visibleParts(stack, 2)), 300 * 300 - (100 * 100 + 100 * 100 - 50 * 50), 'the union of the two above is covered');
    assert.deepEqual(uncovered(rect(0, 0, 10, 10), []), [rect(0, 0, 10, 10)]);
    assert.equal(windowAt(stack, 60, 60)?.handle, 'top');
    assert.equal(windowAt(stack, 10, 10)?.handle, 'middle');
    assert.equal(windowAt(stack, 149, 149)?.handle, 'top');
    assert.equal(windowAt(stack, 150, 150)?.handle, 'bottom', 'the right and bottom edges are outside');
    assert.equal(windowAt(stack, 300, 10), undefined);
  });

  it('paints masks black, clipped to the image, in place', () => {
    const img = image(10, 10, 255, { x: 100, y: 100 });
    paintMasks(img, [rect(95, 95, 7, 7), rect(108, 108, 50, 50)]);
    const at = (x: number, y: number): number => img.data[((y - 100) * 10 + (x - 100)) * 4] ?? -1;
    assert.equal(at(100, 100), 0);
    assert.equal(at(101, 101), 0);
    assert.equal(at(102, 102), 255);
    assert.equal(at(109, 109), 0);
    assert.equal(at(107, 109), 255);
  });
});
