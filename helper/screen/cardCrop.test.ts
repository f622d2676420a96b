import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CROP, CROP_MAX, FOCUS_MARGIN, focusCrop, isPlain, pointCrop } from './cardCrop.js';
import type { CapturedImage } from './screenBackend.js';

const rect = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });

function image(width: number, height: number, fill = 255): CapturedImage {
  return {
    width,
    height,
    stride: width * 4,
    pixelFormat: 'bgrx',
    data: Buffer.alloc(width * height * 4, fill),
    origin: { x: 0, y: 0 },
    capturePath: 'test',
    captureMs: 0,
  };
}

function paint(img: CapturedImage, x: number, y: number, w: number, h: number, level: number): CapturedImage {
  for (let row = y; row < y + h; row++)
    for (let col = x; col < x + w; col++) {
      const i = row * img.stride + col * 4;
      img.data[i] = level;
      img.data[i + 1] = level;
      img.data[i + 2] = level;
    }
  return img;
}

const SCREEN = rect(0, 0, 1920, 1080);

describe('where a screen card crops', () => {
  it('calls a crop plain when a caret or a thin border is all it holds, and not when it holds a label', () => {
    const white = image(400, 240);
    assert.equal(isPlain(white, rect(0, 0, 400, 240)), true);
    // A caret and a one-pixel border across the crop: still nothing a person can place the click by.
    paint(white, 200, 110, 1, 18, 0);
    paint(white, 0, 239, 400, 1, 120);
    assert.equal(isPlain(white, rect(0, 0, 400, 240)), true);
    // A label's worth of glyph strokes is structure.
    for (let x = 20; x < 80; x += 4) paint(white, x, 20, 2, 12, 30);
    assert.equal(isPlain(white, rect(0, 0, 400, 240)), false);
    // A gentle gradient (a theme's background) is not.
    const gradient = image(400, 240);
    for (let row = 0; row < 240; row++) paint(gradient, 0, row, 400, 1, 230 + Math.floor(row / 24));
    assert.equal(isPlain(gradient, rect(0, 0, 400, 240)), true);
  });

  it('crops CROP around a click where there is something to see, and grows a plain crop around the point until there is', () => {
    const screen = image(1920, 1080);
    // Structure far from the point: a toolbar of glyphs along the top of the screen.
    for (let x = 0; x < 1920; x += 6) paint(screen, x, 10, 3, 14, 20);
    const near = pointCrop(screen, SCREEN, { x: 960, y: 60 });
    assert.deepEqual(near, { rect: rect(760, 0, 400, 180), grown: false });
    // A click in the middle of an empty page: the crop grows around the point until the toolbar is in it.
    const far = pointCrop(screen, SCREEN, { x: 960, y: 300 });
    assert.ok(far !== undefined && far.grown);
    assert.ok(far.rect.y <= 10 && far.rect.y + far.rect.height > 300, JSON.stringify(far.rect));
    assert.ok(far.rect.x <= 960 && far.rect.x + far.rect.width > 960);
    // Nothing anywhere: it stops at CROP_MAX.
    const empty = pointCrop(image(1920, 1080), SCREEN, { x: 960, y: 540 });
    assert.deepEqual(empty?.rect, rect(960 - CROP_MAX.width / 2, 540 - CROP_MAX.height / 2, CROP_MAX.width, CROP_MAX.height));
    assert.equal(empty?.grown, true);
  });

  it('crops around the focused element with a margin, never smaller than CROP, a document at its start', () => {
    const field = rect(300, 200, 180, 26);
    const small = focusCrop(field, SCREEN);
    assert.deepEqual(small, { rect: rect(300 + 90 - CROP.width / 2, 213 - CROP.height / 2, CROP.width, CROP.height), grown: false });
    const editor = rect(100, 100, 1600, 900);
    const big = focusCrop(editor, SCREEN);
    assert.deepEqual(big, { rect: rect(100 - FOCUS_MARGIN, 100 - FOCUS_MARGIN, CROP_MAX.width, CROP_MAX.height), grown: true });
    // At the screen's edge it moves inside rather than shrinking.
    const corner = focusCrop(rect(0, 1050, 120, 30), SCREEN);
    assert.deepEqual(corner?.rect, rect(0, 1080 - CROP.height, CROP.width, CROP.height));
    // An element off the capture has no crop.
    assert.equal(focusCrop(rect(2000, 10, 50, 20), SCREEN), undefined);
  });
});
