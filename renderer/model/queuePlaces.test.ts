import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PLACE_GAP, PLACE_MAX, PLACE_MIN, queuePlaces } from './queuePlaces.js';

describe('queue places', () => {
  it('fits two places at laptop sizes and three on a 1080 px screen, each whole', () => {
    for (const room of [560, 580, 600]) {
      const p = queuePlaces(room);
      assert.equal(p.capacity, 2, `room ${room}`);
      assert.ok(p.capacity * p.height + (p.capacity - 1) * PLACE_GAP <= room, 'they fit');
      assert.ok(p.height >= PLACE_MIN);
    }
    const big = queuePlaces(950);
    assert.equal(big.capacity, 3);
    assert.ok(big.height <= PLACE_MAX);
  });

  it('never makes a place taller than PLACE_MAX: a tall column gets more places', () => {
    const p = queuePlaces(2000);
    assert.ok(p.height <= PLACE_MAX && p.height >= PLACE_MIN, JSON.stringify(p));
    assert.ok(p.capacity * p.height + (p.capacity - 1) * PLACE_GAP <= 2000);
  });

  it('keeps one place of the least height when the column is shorter than a card', () => {
    assert.deepEqual(queuePlaces(120), { capacity: 1, height: PLACE_MIN });
    assert.deepEqual(queuePlaces(Number.NaN), { capacity: 1, height: PLACE_MIN });
  });
});
