import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageToPhysical, physicalToImage, screenTransform, type ScreenTransform } from '../../protocol/index.js';
import { arrow, cropView, markRadius, pixelCenter, pointMarkLines, rectOnPicture } from './screenMarks.js';

/** Scales a person meets: 1:1, exactly half, 1.5 (1920 → 1280), and odd ones (1366 → 1280, 1080 → 800). */
const TRANSFORMS: [string, ScreenTransform][] = [
  ['1:1', screenTransform({ x: 0, y: 0 }, 1280, 800, 1280, 800)],
  ['2:1', screenTransform({ x: 0, y: 0 }, 2560, 1600, 1280, 800)],
  ['1.5 with a window origin', screenTransform({ x: 130, y: 57 }, 1920, 1080, 1280, 720)],
  ['odd 1366×768 → 1280×720', screenTransform({ x: 0, y: 0 }, 1366, 768, 1280, 720)],
  ['odd 1093×1080 → 810×800 at a negative origin', screenTransform({ x: -1093, y: 0 }, 1093, 1080, 810, 800)],
];

describe('screen marks', () => {
  it('maps an element rect from physical to picture pixels as (physical − origin) / scale', () => {
    const t = screenTransform({ x: 100, y: 40 }, 1920, 1200, 1280, 800);
    assert.deepEqual(rectOnPicture({ x: 250, y: 115, w: 60, h: 30 }, t, { width: 1280, height: 800 }), { x: 100, y: 50, w: 40, h: 20, cut: false });
  });

  it('keeps fractional picture pixels at odd scales instead of rounding the outline off its element', () => {
    const t = screenTransform({ x: 0, y: 0 }, 1366, 768, 1280, 720);
    const r = rectOnPicture({ x: 683, y: 384, w: 10, h: 10 }, t, { width: 1280, height: 720 });
    assert.ok(r);
    const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);
    near(r.x, 640);
    near(r.w, (10 * 1280) / 1366);
    near(r.y, 360);
    near(r.h, (10 * 720) / 768);
    assert.equal(r.cut, false);
  });

  for (const [name, t] of TRANSFORMS) {
    it(`agrees with the protocol's transform at ${name}: a marked picture pixel lies on the physical pixel it dispatches to, and back`, () => {
      for (let i = 0; i < 1200; i += 7) {
        // Picture → physical (what a click at picture pixel i dispatches to), then that pixel's rect back on the picture.
        const phys = imageToPhysical(t, i, i % 700);
        const back = rectOnPicture({ x: phys.x, y: phys.y, w: 1, h: 1 }, t, { width: 1e6, height: 1e6 });
        const c = pixelCenter({ x: i, y: i % 700 });
        assert.ok(back, `pixel ${i}`);
        assert.ok(back.x <= c.x && c.x < back.x + back.w, `${name}: mark x ${c.x} within [${back.x}, ${back.x + back.w})`);
        assert.ok(back.y <= c.y && c.y < back.y + back.h, `${name}: mark y ${c.y} within [${back.y}, ${back.y + back.h})`);
        // Physical → picture: the picture pixel physicalToImage names is the one under the physical pixel's center.
        const p = t.origin.x + i;
        const img = physicalToImage(t, p, t.origin.y);
        const r = rectOnPicture({ x: p, y: t.origin.y, w: 1, h: 1 }, t, { width: 1e6, height: 1e6 });
        assert.ok(r);
        const center = r.x + r.w / 2;
        assert.ok(img.x <= center && center < img.x + 1, `${name}: physical ${p} center ${center} in picture pixel ${img.x}`);
      }
    });
  }

  it('cuts a rect that is partly off the picture and says so; one wholly off is not drawn', () => {
    const t = screenTransform({ x: 100, y: 100 }, 800, 600, 400, 300);
    assert.deepEqual(rectOnPicture({ x: 60, y: 120, w: 80, h: 40 }, t, { width: 400, height: 300 }), { x: 0, y: 10, w: 20, h: 20, cut: true });
    assert.deepEqual(rectOnPicture({ x: 850, y: 650, w: 100, h: 100 }, t, { width: 400, height: 300 }), { x: 375, y: 275, w: 25, h: 25, cut: true });
    assert.equal(rectOnPicture({ x: 0, y: 0, w: 50, h: 50 }, t, { width: 400, height: 300 }), undefined);
    assert.equal(rectOnPicture({ x: 900, y: 100, w: 10, h: 10 }, t, { width: 400, height: 300 }), undefined);
    assert.equal(rectOnPicture({ x: 200, y: 200, w: 0, h: 10 }, t, { width: 400, height: 300 }), undefined, 'an empty rect draws nothing');
  });

  it('marks the center of a picture pixel, so the mark sits on the pixel at any displayed size', () => {
    assert.deepEqual(pixelCenter({ x: 0, y: 0 }), { x: 0.5, y: 0.5 });
    assert.deepEqual(pixelCenter({ x: 411, y: 299 }), { x: 411.5, y: 299.5 });
  });

  it('sizes marks by the picture, never smaller than a few pixels', () => {
    assert.equal(markRadius({ width: 1280, height: 800 }), 32);
    assert.equal(markRadius({ width: 240, height: 160 }, 1 / 16), 15);
    assert.equal(markRadius({ width: 40, height: 40 }), 4);
  });

  it('marks a point with brackets and ticks that leave the point and the text around it uncovered', () => {
    const lines = pointMarkLines({ gap: 8, arm: 5, tick: 10 });
    assert.equal(lines.length, 8, 'four corner brackets and four ticks');
    assert.equal(lines[0], '-3,-8 -8,-8 -8,-3', 'the top-left bracket: its corner at the square, its arms short of the axes');
    assert.equal(lines[4], '0,-13 0,-23', 'the top tick starts beyond the brackets and aims at the point');
    // Every drawn point is at least `gap − arm` from the point along either axis' perpendicular, and no line crosses the axes near it.
    for (const line of lines) {
      for (const xy of line.split(' ')) {
        const [x, y] = xy.split(',').map(Number) as [number, number];
        assert.ok(Math.max(Math.abs(x), Math.abs(y)) >= 8, `${xy} is outside the ±8 px square around the point`);
      }
    }
    // A glyph row through the point (|y| < 3) is crossed only by the horizontal ticks, which start 13 px out.
    const crossing = lines.filter((l) => l.split(' ').some((xy) => Math.abs(Number(xy.split(',')[1])) < 3));
    assert.deepEqual(crossing, ['13,0 23,0', '-13,0 -23,0']);
  });

  it('shows a small element at the screen’s scale, centred, with context, never past the picture', () => {
    const size = { width: 1000, height: 800 };
    // A 20 px checkbox at 1:1 in a 334 px wide card.
    const v = cropView(size, { x: 500, y: 400, w: 20, h: 20 }, 1, 334, 200, 40, 120);
    assert.equal(v.scale, 1);
    assert.deepEqual([v.width, v.height], [334, 120]);
    assert.equal(v.left, 334 / 2 - 510, 'the element is centred across');
    assert.equal(v.top, 60 - 410, 'and down');
    // Near the picture's corner the box stops at the edge instead of showing past it.
    const corner = cropView(size, { x: 2, y: 3, w: 20, h: 20 }, 1, 334, 200, 40, 120);
    assert.deepEqual([corner.left, corner.top], [0, 0]);
    const far = cropView(size, { x: 980, y: 780, w: 20, h: 20 }, 1, 334, 200, 40, 120);
    assert.deepEqual([far.left, far.top], [334 - 1000, 120 - 800]);
  });

  it('keeps the start of an element wider than the card in view, and shrinks one only to fit the height', () => {
    const size = { width: 1000, height: 800 };
    const wide = cropView(size, { x: 8, y: 348, w: 486, h: 22 }, 1, 334, 200, 40, 120);
    assert.equal(wide.scale, 1, 'a wide checkbox row is not shrunk to the card: its box and label are read at 1:1');
    assert.equal(wide.left, 0, 'its start is in view (clamped to the picture edge)');
    const tall = cropView(size, { x: 100, y: 100, w: 200, h: 160 }, 1, 334, 200, 40);
    assert.equal(tall.scale, 120 / 160, 'an element taller than the box less its margins is shrunk to fit them');
    const pane = cropView(size, { x: 100, y: 100, w: 200, h: 600 }, 1, 334, 200, 40);
    assert.equal(pane.scale, 0.25, 'never smaller than the whole picture fitted to the box: then the box shows it all');
    assert.deepEqual([pane.width, pane.height, pane.left, pane.top], [250, 200, 0, 0]);
    // A downscaled picture is shown at the scale that undoes it (1.5 picture px per screen px here).
    assert.equal(cropView(size, { x: 500, y: 400, w: 10, h: 10 }, 1.5, 334, 200, 40).scale, 1.5);
  });

  it('ends an arrow with its head tip exactly on the target and the shaft where the head begins', () => {
    const a = arrow({ x: 0, y: 0 }, { x: 100, y: 0 }, 10);
    assert.deepEqual(a.shaft, [0, 0, 90, 0]);
    assert.equal(a.head, '100,0 90,5 90,-5');
    const down = arrow({ x: 50, y: 50 }, { x: 50, y: 150 }, 20);
    assert.deepEqual(down.shaft, [50, 50, 50, 130]);
    assert.equal(down.head.split(' ')[0], '50,150');
    const short = arrow({ x: 0, y: 0 }, { x: 3, y: 4 }, 10);
    assert.deepEqual(short.shaft, [0, 0, 0, 0], 'a drag shorter than the head is all head');
  });
});
