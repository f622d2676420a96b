import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { cropFrame } from './crop.js';

describe('cropFrame', () => {
  // A 4x3 frame with a padded stride: each pixel's first byte is 10*y + x.
  const stride = 20;
  const data = Buffer.alloc(stride * 3, 0xee);
  for (let y = 0; y < 3; y++) for (let x = 0; x < 4; x++) data[y * stride + x * 4] = 10 * y + x;
  const frame = { width: 4, height: 3, stride, data };

  it('cuts the rectangle, rows packed, whatever the stride', () => {
    const cut = cropFrame(frame, { x: 1, y: 1, width: 2, height: 2 });
    assert.deepEqual([cut.width, cut.height, cut.stride], [2, 2, 8]);
    assert.deepEqual(
      [0, 4, 8, 12].map((o) => cut.data[o]),
      [11, 12, 21, 22],
    );
  });

  it('refuses a region that leaves the frame, or is empty or fractional', () => {
    for (const region of [
      { x: 3, y: 0, width: 2, height: 1 },
      { x: 0, y: 0, width: 0, height: 1 },
      { x: -1, y: 0, width: 1, height: 1 },
      { x: 0.5, y: 0, width: 1, height: 1 },
    ])
      assert.throws(
        () => cropFrame(frame, region),
        (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument',
      );
  });
});
