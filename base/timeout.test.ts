import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withTimeout } from './timeout.js';

describe('withTimeout', () => {
  it('answers what the promise answers in time, and rejects with the caller’s error past the time', async () => {
    assert.equal(await withTimeout(Promise.resolve(7), 1000, () => new Error('late')), 7);
    let cleaned = false;
    const never = new Promise<number>(() => {});
    await assert.rejects(
      withTimeout(never, 20, () => {
        cleaned = true;
        return new RangeError('no reply within 20 ms');
      }),
      RangeError,
    );
    assert.ok(cleaned, 'the caller cleans up when it gives up');
  });

  it('passes a rejection on, as an Error even when it was not one', async () => {
    await assert.rejects(
      withTimeout(Promise.reject(new TypeError('bad')), 1000, () => new Error('late')),
      TypeError,
    );
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a library may reject with anything
    const plain = Promise.reject('plain');
    await assert.rejects(
      withTimeout(plain, 1000, () => new Error('late')),
      { message: 'plain' },
    );
  });
});
