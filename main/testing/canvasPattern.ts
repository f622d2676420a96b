// The canvas fixture's pattern (desktop/apps/canvasApp.py) in a decoded screenshot: where a
// compositor put the window and tells no one (Wayland), tests find it by its pixels.
import { rgbAt, type DecodedPng } from './pngDecode.js';

/** The canvas's top-left in the picture: its red quadrant (199x149 inside the border), or undefined. */
export function canvasIn(png: DecodedPng): { x: number; y: number } | undefined {
  for (let y = 0; y < png.height; y++)
    for (let x = 0; x < png.width; x++) {
      const [r, g, b] = rgbAt(png, x, y);
      if (r === 255 && g === 0 && b === 0) {
        const corner = rgbAt(png, x + 198, y + 148);
        const past = rgbAt(png, x + 199, y);
        return corner.join() === '255,0,0' && past.join() === '0,255,0' ? { x: x - 1, y: y - 1 } : undefined;
      }
    }
  return undefined;
}
