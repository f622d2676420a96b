import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CARET, changedShare, compareRegion } from './pixelChange.js';
import type { CapturedImage } from './screenBackend.js';

const rect = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });

function image(width: number, height: number, fill = 255, origin = { x: 0, y: 0 }): CapturedImage {
  return { width, height, stride: width * 4, pixelFormat: 'bgrx', data: Buffer.alloc(width * height * 4, fill), origin, capturePath: 'test', captureMs: 0 };
}

/** Paints a rectangle of one grey level (physical coordinates) into a capture. */
function paint(img: CapturedImage, x: number, y: number, w: number, h: number, level: number): CapturedImage {
  for (let row = y; row < y + h; row++)
    for (let col = x; col < x + w; col++) {
      const i = (row - img.origin.y) * img.stride + (col - img.origin.x) * 4;
      img.data[i] = level;
      img.data[i + 1] = level;
      img.data[i + 2] = level;
    }
  return img;
}

/** A text field as GTK draws it: white, a few dark glyph strokes left of where the caret blinks. */
function field(origin = { x: 0, y: 0 }): CapturedImage {
  const img = image(64, 64, 255, origin);
  for (const [x, h] of [
    [20, 9],
    [24, 12],
    [28, 9],
    [33, 12],
  ] as const)
    paint(img, origin.x + x, origin.y + 30 - h, 2, h, 30);
  return img;
}

const SQUARE = rect(0, 0, 64, 64);

describe('what changed between two captures', () => {
  it('counts a pixel changed only past the tolerance, in any colour channel', () => {
    const before = image(20, 20, 100);
    const after = image(20, 20, 100);
    assert.equal(changedShare(before, after, rect(0, 0, 20, 20)), 0);
    after.data[0] = 120; // blue +20: within the tolerance
    assert.equal(changedShare(before, after, rect(0, 0, 20, 20)), 0);
    after.data[(5 * 20 + 5) * 4 + 2] = 200; // red +100 at 5,5
    after.data[(6 * 20 + 6) * 4 + 3] = 0; // the unused byte never counts
    assert.equal(changedShare(before, after, rect(0, 0, 20, 20)), 1 / 400);
    assert.equal(changedShare(before, after, rect(5, 5, 1, 1)), 1);
    assert.equal(changedShare(before, after, rect(10, 10, 5, 5)), 0);
  });

  it('says the same for the same pixels, and names the box of what differs', () => {
    assert.deepEqual(compareRegion(field(), field(), SQUARE), { verdict: 'same', share: 0 });
    const r = compareRegion(field(), paint(field(), 40, 10, 5, 5, 0), SQUARE);
    assert.equal(r.verdict, 'changed');
    assert.deepEqual(r.box, rect(40, 10, 5, 5));
    assert.equal(r.share, 25 / 4096);
  });

  it("tolerates GTK's caret blinking on or off: one column of 17 px, one colour (as measured in a GTK3 entry)", () => {
    const on = paint(field(), 37, 14, 1, 17, 46);
    const off = field();
    for (const [a, b] of [
      [on, off],
      [off, on],
    ] as const) {
      const r = compareRegion(a, b, SQUARE);
      assert.equal(r.verdict, 'caret');
      assert.deepEqual(r.box, rect(37, 14, 1, 17));
    }
  });

  it('tolerates a caret 2 or 3 px wide drawn between two pixels (each column one shade), and a caret cut by the region', () => {
    const on = paint(paint(field(), 37, 14, 1, 17, 90), 38, 14, 1, 17, 160);
    assert.equal(compareRegion(on, field(), SQUARE).verdict, 'caret');
    const wide = paint(field(), 37, 14, 3, 17, 0);
    assert.equal(compareRegion(field(), wide, SQUARE).verdict, 'caret');
    // The caret's ends partly covered (a caret that starts between two rows).
    const soft = paint(paint(paint(field(), 37, 14, 1, 1, 200), 37, 15, 1, 15, 46), 37, 30, 1, 1, 150);
    assert.equal(compareRegion(soft, field(), SQUARE).verdict, 'caret');
    // The region starts half way down the caret: what is inside it is still a caret.
    assert.equal(compareRegion(on, field(), rect(0, 22, 64, 42)).verdict, 'caret');
  });

  it("scales the caret's bounds with the monitor: 4 px wide and 34 px tall is a caret at scale 2, not at scale 1", () => {
    const on = paint(field(), 37, 10, 4, 34, 46);
    assert.equal(compareRegion(on, field(), SQUARE, 2).verdict, 'caret');
    assert.equal(compareRegion(on, field(), SQUARE, 1).verdict, 'changed');
  });

  it('refuses what is not a caret: too wide, too short, too tall, a gap, a glyph, a moved caret, a caret and anything else', () => {
    const cases: [string, CapturedImage][] = [
      [`wider than ${CARET.maxWidth} px`, paint(field(), 37, 14, CARET.maxWidth + 1, 17, 46)],
      ['a dot or a comma', paint(field(), 37, 28, 2, 3, 30)],
      [`taller than ${CARET.maxHeight} px (a window's edge)`, paint(field(), 37, 2, 1, CARET.maxHeight + 1, 46)],
      // An "i": its stem and its dot, one column with a gap.
      ['an i', paint(paint(field(), 37, 20, 1, 10, 30), 37, 16, 1, 2, 30)],
      // A letter typed where the field was empty: a column of several shades.
      ['a glyph of several shades', paint(paint(paint(field(), 37, 14, 1, 6, 30), 37, 20, 1, 6, 120), 37, 26, 1, 5, 60)],
      ['a caret and a changed letter', paint(paint(field(), 37, 14, 1, 17, 46), 24, 40, 2, 6, 30)],
      ['a checkbox ticked', paint(field(), 45, 40, 12, 12, 60)],
    ];
    for (const [what, after] of cases) {
      assert.equal(compareRegion(field(), after, SQUARE).verdict, 'changed', what);
      assert.equal(compareRegion(after, field(), SQUARE).verdict, 'changed', `${what}, gone`);
    }
    // A caret drawn over a glyph's edge: what is behind it is not plain, so it is not told from a changed letter.
    const edge = paint(field(), 37, 14, 1, 17, 255);
    paint(edge, 37, 20, 1, 4, 120);
    assert.equal(compareRegion(edge, paint(field(), 37, 14, 1, 17, 46), SQUARE).verdict, 'changed', 'a bar over a glyph');
    // The caret moved by one letter: off where it was, on where it is now.
    const there = paint(field(), 37, 14, 1, 17, 46);
    const here = paint(field(), 44, 14, 1, 17, 46);
    assert.equal(compareRegion(there, here, SQUARE).verdict, 'changed', 'a caret that moved');
  });

  it('refuses a window moved by one pixel, though every edge it moves is thin', () => {
    const before = field({ x: 100, y: 100 });
    const after = image(64, 64, 255, { x: 100, y: 100 });
    // The same field one pixel to the right.
    for (let y = 0; y < 64; y++) before.data.copy(after.data, y * after.stride + 4, y * before.stride, y * before.stride + 63 * 4);
    const r = compareRegion(before, after, rect(100, 100, 64, 64));
    assert.equal(r.verdict, 'changed');
    assert.ok(r.box !== undefined && r.box.width > CARET.maxWidth, JSON.stringify(r.box));
  });

  it('reads pixels by their physical place in captures of different origins', () => {
    const kept = paint(field({ x: 10, y: 20 }), 47, 34, 1, 17, 46);
    const fresh = image(30, 30, 255, { x: 40, y: 30 });
    // The fresh capture covers 40..69 × 30..59; compared right of the kept one's glyph strokes (x < 45).
    assert.equal(compareRegion(kept, fresh, rect(46, 30, 24, 30)).verdict, 'caret');
  });
});
