// A synthetic busy desktop in BGRX, shared by the image benches: flat panels, glyph-like strokes and
// a noisy photo-like area. A real Xvfb screen is too flat to be fair: it flatters every encoder.
import type { RawImage } from '../helper/screen/image/downscale.js';

/** A deterministic width × height BGRX frame: a dark top bar, text-like strokes, noise in the lower right. */
export function busyDesktop(width: number, height: number): RawImage {
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
