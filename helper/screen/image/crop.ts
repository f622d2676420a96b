// Cuts a rectangle out of a captured frame (4 bytes a pixel), for backends whose capture path can
// only take the whole screen (a portal's screenshot, a VM's /screenshot).

import { fail } from '../../../protocol/index.js';

export interface Frame {
  width: number;
  height: number;
  /** Bytes from one row to the next. */
  stride: number;
  data: Buffer;
}

/** The part of `frame` at `region` (frame coordinates), rows packed; invalid_argument when it is not inside the frame. */
export function cropFrame(frame: Frame, region: { x: number; y: number; width: number; height: number }): Frame {
  const { x, y, width, height } = region;
  if (![x, y, width, height].every(Number.isInteger) || width < 1 || height < 1 || x < 0 || y < 0 || x + width > frame.width || y + height > frame.height)
    throw fail('invalid_argument', `the region ${JSON.stringify(region)} is not inside the ${frame.width}x${frame.height} screen`, { region });
  const data = Buffer.alloc(width * height * 4);
  for (let row = 0; row < height; row++) frame.data.copy(data, row * width * 4, (y + row) * frame.stride + x * 4, (y + row) * frame.stride + (x + width) * 4);
  return { width, height, stride: width * 4, data };
}
