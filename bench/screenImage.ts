// The screen tier's image pipeline on a synthetic busy BGRX desktop: the fit alone (fast kernel
// and the reference one) and the one-pass fit + PNG the screen service uses, per zlib level and
// filter; p50 and min of 15 runs after 3 warm-ups. `npx tsx bench/screenImage.ts`. Not run by the tests.
import { downscale } from '../helper/screen/image/downscale.js';
import { encodeFittedPng } from '../helper/screen/image/png.js';
import { busyDesktop } from './busyDesktop.js';

function time(run: () => unknown): string {
  for (let i = 0; i < 3; i++) run();
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return `p50 ${(times[7] ?? Number.NaN).toFixed(1)} ms (min ${(times[0] ?? Number.NaN).toFixed(1)})`;
}

for (const [w, h] of [
  [1280, 800],
  [2560, 1600],
  [1920, 1200],
  [3840, 2160],
] as const) {
  const frame = busyDesktop(w, h);
  const at = `${w}x${h} into 1280x800`;
  console.log(`${at}: downscale alone ${time(() => downscale(frame, 1280, 800))}, reference kernel ${time(() => downscale(frame, 1280, 800, 3, 'reference'))}`);
  for (const level of [1, 3, 6]) {
    for (const filter of ['up', 'sub'] as const) {
      const size = encodeFittedPng(frame, 1280, 800, 3, { level, filter }).png.length;
      console.log(
        `${at} fit + PNG ${filter} level ${level}: ${time(() => encodeFittedPng(frame, 1280, 800, 3, { level, filter }))}, ${(size / 1024).toFixed(0)} KiB`,
      );
    }
  }
}
