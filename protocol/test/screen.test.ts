import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClickArgs, ScreenshotAnswer, ScreenshotArgs, WaitArgs, imageToPhysical, physicalToImage, screenTransform } from '../index.js';

describe('the image ↔ physical transform', () => {
  const cases = [
    [1281, 801, 1279, 800],
    [1281, 800, 1280, 799],
    [1366, 768, 1280, 720],
    [3840, 2160, 1280, 720],
    [2560, 1600, 1280, 800],
    [1280, 800, 1280, 800],
    [7, 3, 2, 1],
  ] as const;

  it('maps the center of every image pixel into the physical block it came from, and back to itself', () => {
    for (const [pw, ph, iw, ih] of cases) {
      for (const origin of [
        { x: 0, y: 0 },
        { x: -1920, y: 37 },
      ]) {
        const t = screenTransform(origin, pw, ph, iw, ih);
        for (let i = 0; i < iw; i++) {
          const p = imageToPhysical(t, i, 0).x - origin.x;
          // Block of image pixel i: [i·pw/iw, (i+1)·pw/iw); in integers: i·pw ≤ p·iw + … < (i+1)·pw.
          assert.ok((p + 1) * iw > i * pw && p * iw < (i + 1) * pw, `${pw}→${iw}: image ${i} → physical ${p}`);
          assert.ok(p >= 0 && p < pw);
          assert.equal(physicalToImage(t, p + origin.x, origin.y).x, i, `${pw}→${iw}: round trip of ${i}`);
        }
        for (let j = 0; j < ih; j++) {
          const p = imageToPhysical(t, 0, j).y - origin.y;
          assert.ok((p + 1) * ih > j * ph && p * ih < (j + 1) * ph, `${ph}→${ih}: image ${j} → physical ${p}`);
          assert.equal(physicalToImage(t, origin.x, p + origin.y).y, j);
        }
      }
    }
  });

  it('sends every physical pixel to an image pixel whose block overlaps it', () => {
    for (const [pw, , iw] of cases) {
      const t = screenTransform({ x: 0, y: 0 }, pw, 1, iw, 1);
      for (let p = 0; p < pw; p++) {
        const i = physicalToImage(t, p, 0).x;
        assert.ok(i >= 0 && i < iw && (p + 1) * iw > i * pw && p * iw < (i + 1) * pw, `${pw}→${iw}: physical ${p} → image ${i}`);
      }
    }
  });

  it('lands on known points: 3840×2160 → 1280×720 is a 3× block, center pixel', () => {
    const t = screenTransform({ x: 100, y: 50 }, 3840, 2160, 1280, 720);
    assert.deepEqual(imageToPhysical(t, 0, 0), { x: 101, y: 51 });
    assert.deepEqual(imageToPhysical(t, 1279, 719), { x: 100 + 3838, y: 50 + 2158 });
    assert.deepEqual(physicalToImage(t, 100 + 3839, 50 + 2159), { x: 1279, y: 719 });
    assert.deepEqual(physicalToImage(t, 99, 49), { x: -1, y: -1 });
  });
});

describe('screen tool schemas', () => {
  it('takes a screenshot request and refuses unknown fields', () => {
    assert.equal(ScreenshotArgs.safeParse({ max_width: 1024, format: 'jpeg', quality: 80 }).success, true);
    assert.equal(ScreenshotArgs.safeParse({ max_width: 0 }).success, false);
    assert.equal(ScreenshotArgs.safeParse({ zoom: 2 }).success, false);
  });

  it('accepts the loose point shapes for the normalizer and refuses objects', () => {
    for (const ok of [{ x: 1, y: 2 }, { x: [1, 2] }, { x: '1,2' }, { coordinate: [1, 2] }, { x: 1, y: 2, button: 'right', count: 3 }]) {
      assert.equal(ClickArgs.safeParse(ok).success, true, JSON.stringify(ok));
    }
    for (const bad of [{ x: { x: 1 } }, { x: 1, y: 2, count: 4 }, { x: 1, y: 2, button: 'back' }, { x: 1, y: 2, z: 3 }]) {
      assert.equal(ClickArgs.safeParse(bad).success, false, JSON.stringify(bad));
    }
    assert.equal(WaitArgs.safeParse({ ms: 10_001 }).success, false);
  });

  it('describes a screenshot answer exactly', () => {
    const answer = {
      screenshot: 'S1',
      width: 1280,
      height: 720,
      scale_x: 3,
      scale_y: 3,
      origin: { x: 0, y: 0 },
      capture_path: 'x11:MIT-SHM.GetImage',
      masked: [{ x: 0, y: 0, w: 10, h: 10 }],
      approx_tokens: 1229,
    };
    assert.equal(ScreenshotAnswer.safeParse(answer).success, true);
    assert.equal(ScreenshotAnswer.safeParse({ ...answer, extra: 1 }).success, false);
    assert.equal(ScreenshotAnswer.safeParse({ ...answer, screenshot: 'T1' }).success, false);
  });
});
