// JPEG encoding for screenshots an agent asks for as jpeg: jpeg-js (pure JS, like the rest of the
// pipeline, so it runs in every helper build). It takes RGBA; the alpha byte is ignored.
import jpeg from 'jpeg-js';
import { fail } from '../../../protocol/errors.js';
import type { RgbImage } from './downscale.js';

/** Default quality when the agent names none. */
export const DEFAULT_JPEG_QUALITY = 80;

/** Encodes a 4-channel image as baseline JPEG at `quality` (1–100). */
export function encodeJpeg(image: RgbImage, quality = DEFAULT_JPEG_QUALITY): Buffer {
  if (image.channels !== 4) throw fail('invalid_argument', 'JPEG encoding takes a 4-channel (RGBA) image.');
  return jpeg.encode({ width: image.width, height: image.height, data: image.data }, quality).data;
}
