// Pixel spaces of the screen tier (docs/tools.md#transform): points and rectangles, and the one
// transform between a screenshot's image pixels and physical screen pixels.
import { z } from 'zod';

/** A point in some pixel space. */
export const Point = z.strictObject({ x: z.number().int(), y: z.number().int() });
export type Point = z.infer<typeof Point>;

/** A rectangle in image pixels. */
export const ImageRect = z.strictObject({ x: z.number().int(), y: z.number().int(), w: z.number().int().min(0), h: z.number().int().min(0) });
export type ImageRect = z.infer<typeof ImageRect>;

/** How image pixels map to physical screen pixels: physical = origin + image × scale. */
export const ScreenTransform = z.object({
  /** Physical pixels per image pixel across (≥ 1: screenshots are never upscaled). */
  scale_x: z.number().positive(),
  /** Physical pixels per image pixel down. */
  scale_y: z.number().positive(),
  /** Physical position of the image's top-left corner. */
  origin: Point,
});
export type ScreenTransform = z.infer<typeof ScreenTransform>;

/**
 * Image pixel → physical pixel: the physical pixel under the image pixel's center,
 * origin + floor((i + 0.5) × scale). Image pixel i came from the physical block [i·s, (i+1)·s); its
 * center lies strictly inside that block, so the answer is always a pixel of that block.
 */
export function imageToPhysical(transform: ScreenTransform, x: number, y: number): Point {
  return {
    x: transform.origin.x + Math.floor((x + 0.5) * transform.scale_x),
    y: transform.origin.y + Math.floor((y + 0.5) * transform.scale_y),
  };
}

/**
 * Physical pixel → image pixel: the image pixel whose block holds the physical pixel's center,
 * floor((p − origin + 0.5) / scale). The inverse of imageToPhysical on image pixels; a point left of
 * or above the origin gives a negative image coordinate, which callers treat as off the image.
 */
export function physicalToImage(transform: ScreenTransform, x: number, y: number): Point {
  return {
    x: Math.floor((x - transform.origin.x + 0.5) / transform.scale_x),
    y: Math.floor((y - transform.origin.y + 0.5) / transform.scale_y),
  };
}

/** The transform of a capture of physical size physW × physH at `origin`, delivered as imgW × imgH. */
export function screenTransform(origin: Point, physW: number, physH: number, imgW: number, imgH: number): ScreenTransform {
  return { scale_x: physW / imgW, scale_y: physH / imgH, origin };
}
