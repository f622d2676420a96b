import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageToPhysical, physicalToImage, screenTransform, type ScreenTransform } from '../../protocol/index.js';
import { arrow, crosshair, markRadius, pixelCenter, rectOnPicture } from './screenMarks.js';

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

  it('draws a crosshair around the point with a gap at its center', () => {
    assert.deepEqual(crosshair({ x: 10, y: 20 }, 2, 5), [
      [3, 20, 8, 20],
      [12, 20, 17, 20],
      [10, 13, 10, 18],
      [10, 22, 10, 27],
    ]);
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
