// The screen tier's image pipeline on a synthetic busy BGRX desktop: downscale + PNG, p50 of 15
// runs after 3 warm-ups. `npx tsx bench/screenImage.ts`. Not run by the tests.
import { downscale } from '../helper/screen/image/downscale.js';
import { encodePng } from '../helper/screen/image/png.js';
import { busyDesktop } from './busyDesktop.js';

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
