import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../protocol/index.js';
import { EncoderPool, sharedFrame } from './encoderPool.js';
import { encodeFrame, type EncodeRequest } from './image/encodeFrame.js';

/** A BGRX frame of pseudo-random pixels, in shared memory as the screen service makes them. */
function frame(width: number, height: number, seed = 1): EncodeRequest['frame'] {
  const data = Buffer.alloc(width * height * 4);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return sharedFrame({ width, height, stride: width * 4, data });
}

describe('the screen encoder pool', () => {
  it('encodes on a worker thread exactly what the helper’s own thread would, JPEG and PNG', async () => {
    const pool = new EncoderPool({ workers: 1 });
    try {
      const f = frame(301, 203);
      assert.ok(f.data.buffer instanceof SharedArrayBuffer, 'the frame is shared with the worker, not copied');
      for (const request of [
        { frame: f, maxWidth: 150, maxHeight: 150, format: 'jpeg', quality: 90 },
        { frame: f, maxWidth: 4096, maxHeight: 4096, format: 'png' },
      ] as const) {
        const { encodeMs: _w, ...viaWorker } = await pool.encode(request);
        const { encodeMs: _h, ...here } = encodeFrame(request);
        assert.deepEqual(viaWorker, here);
      }
      assert.deepEqual(pool.load, { waiting: 0, encoding: 0, workers: 1, inline: false });
    } finally {
      await pool.close();
    }
  });

  it('puts the person’s pictures ahead of the agents’ that wait', async () => {
    const pool = new EncoderPool({ workers: 1 });
    try {
      const done: string[] = [];
      const job = (name: string, priority: boolean): Promise<void> =>
        pool.encode({ frame: frame(64, 64), maxWidth: 64, maxHeight: 64, format: 'png' }, { priority }).then(() => void done.push(name));
      // The worker is still starting: all four wait, and the person's goes first.
      await Promise.all([job('a1', false), job('a2', false), job('a3', false), job('person', true)]);
      assert.deepEqual(done, ['person', 'a1', 'a2', 'a3']);
    } finally {
      await pool.close();
    }
  });

  it('answers typed errors from the worker typed', async () => {
    const pool = new EncoderPool({ workers: 1 });
    try {
      const f = frame(10, 10);
      await assert.rejects(
        pool.encode({ frame: { ...f, stride: 8 }, maxWidth: 10, maxHeight: 10, format: 'png' }),
        (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument',
      );
    } finally {
      await pool.close();
    }
  });

  it('ends a worker whose encode runs past the deadline, answers timeout, and encodes the next one on a new worker', async () => {
    const pool = new EncoderPool({ workers: 1, deadlineMs: 50 });
    try {
      const slow = pool.encode({ frame: frame(3000, 2000), maxWidth: 4096, maxHeight: 4096, format: 'jpeg', quality: 100 });
      await assert.rejects(slow, (e: unknown) => e instanceof OverseerError && e.code === 'timeout' && e.info.data?.['reason'] === 'encode_deadline');
      const next = await pool.encode({ frame: frame(8, 8), maxWidth: 8, maxHeight: 8, format: 'png' });
      assert.equal(next.width, 8);
    } finally {
      await pool.close();
    }
  });

  it('with no workers, encodes on the calling thread, one job a turn of the loop', async () => {
    const pool = new EncoderPool({ workers: 0 });
    const request = { frame: frame(40, 30), maxWidth: 20, maxHeight: 20, format: 'png' } as const;
    const order: string[] = [];
    const jobs = [pool.encode(request).then(() => order.push('job 1')), pool.encode(request).then(() => order.push('job 2'))];
    setImmediate(() => order.push('other work'));
    await Promise.all(jobs);
    assert.deepEqual(order, ['job 1', 'other work', 'job 2'], 'other work gets its turn between two encodes');
    assert.equal((await pool.encode(request)).sha256, encodeFrame(request).sha256);
    assert.equal(pool.load.inline, true);
    await pool.close();
  });
});
