// The screen tier's image pipeline on a synthetic busy BGRX desktop: downscale + PNG, p50 of 15
// runs after 3 warm-ups. `npx tsx bench/screenImage.ts`. Not run by the tests.
import { downscale, type RawImage } from '../helper/screen/image/downscale.js';
import { encodePng } from '../helper/screen/image/png.js';

/** Flat panels, glyph-like strokes and a noisy photo-like area: a real Xvfb screen is too flat to be fair. */
function busyDesktop(width: number, height: number): RawImage {
  const data = new Uint8Array(width * height * 4);
  let seed = 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      let r = 236;
      let g = 236;
      let b = 240;
      if (y < height / 20) [r, g, b] = [40, 44, 52];
      else if (x > width * 0.6 && y > height * 0.4) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        const n = seed >>> 27;
        [r, g, b] = [(x * 255) / width + n, (y * 255) / height + n, 128 + n];
      } else if ((x % 9 < 2 || y % 14 < 2) && ((x >> 3) * 7 + (y >> 4) * 3) % 5 !== 0) [r, g, b] = [30, 30, 30];
      data[o] = b;
      data[o + 1] = g;
      data[o + 2] = r;
    }
  }
  return { width, height, data, format: 'bgrx' };
}

function p50(run: () => unknown): number {
  for (let i = 0; i < 3; i++) run();
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[7] ?? Number.NaN;
}

for (const [w, h] of [
  [1280, 800],
  [2560, 1600],
] as const) {
  const frame = busyDesktop(w, h);
  const scaled = downscale(frame, 1280, 800);
  console.log(`${w}x${h} -> 1280x800: downscale alone p50 ${p50(() => downscale(frame, 1280, 800)).toFixed(1)} ms`);
  for (const level of [1, 6]) {
    for (const filter of ['up', 'sub'] as const) {
      const size = encodePng(scaled, { level, filter }).length;
      const ms = p50(() => encodePng(downscale(frame, 1280, 800), { level, filter }));
      console.log(`${w}x${h} -> 1280x800 PNG ${filter} level ${level}: p50 ${ms.toFixed(1)} ms, ${(size / 1024).toFixed(0)} KiB`);
    }
  }
}
