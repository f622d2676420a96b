import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CaptureStore, MAX_CAPTURES_PER_AGENT, type KeptCapture } from './captureStore.js';

/** A kept capture's fields with `bytes` bytes of pixels. */
function entry(bytes: number): Omit<KeptCapture, 'id' | 'owner'> {
  return {
    image: { width: 1, height: 1, stride: 4, pixelFormat: 'bgrx', data: Buffer.alloc(bytes), origin: { x: 0, y: 0 }, capturePath: 'test', captureMs: 0 },
    region: { x: 0, y: 0, width: 1, height: 1 },
    masks: [],
    monitors: '[]',
    at: 0,
  };
}

describe('the kept captures, budgeted per agent', () => {
  it('another agent’s 17 captures push out only its own oldest: the first agent’s capture stays', () => {
    const store = new CaptureStore();
    const a = store.add('A', entry(10));
    const b = Array.from({ length: 17 }, () => store.add('B', entry(10)));
    assert.equal(store.get(a.id, 'A')?.id, a.id);
    assert.equal(store.held('B').count, MAX_CAPTURES_PER_AGENT);
    assert.equal(store.get(b[0]!.id, 'B'), undefined, 'B’s own oldest went');
    assert.equal(store.get(b[16]!.id, 'B')?.id, b[16]!.id);
  });

  it('finds a capture for the agent that took it only', () => {
    const store = new CaptureStore();
    const a = store.add('A', entry(10));
    const person = store.add('', entry(10));
    assert.equal(store.get(a.id, 'B'), undefined);
    assert.equal(store.get(a.id, ''), undefined, 'nor for calls made for no agent');
    assert.equal(store.get(person.id, 'A'), undefined, 'and an agent never finds one of the person’s');
    assert.equal(store.get(a.id, 'A')?.owner, 'A');
  });

  it('past the byte budget, the agent holding the most gives up its oldest', () => {
    const store = new CaptureStore(16, 100);
    const a = [store.add('A', entry(10)), store.add('A', entry(10)), store.add('A', entry(10)), store.add('A', entry(10))];
    const b = [store.add('B', entry(10)), store.add('B', entry(10)), store.add('B', entry(10)), store.add('B', entry(10))];
    store.add('C', entry(10));
    store.add('C', entry(10));
    assert.equal(store.totalBytes, 100);
    store.add('C', entry(10));
    assert.equal(store.get(a[0]!.id, 'A'), undefined, 'A held the most first (40 of 110): its oldest went');
    assert.deepEqual([store.held('A').bytes, store.held('B').bytes, store.held('C').bytes], [30, 40, 30]);
    store.add('C', entry(10));
    assert.equal(store.get(b[0]!.id, 'B'), undefined, 'then B held the most');
    assert.deepEqual([store.held('A').bytes, store.held('B').bytes, store.held('C').bytes], [30, 30, 40]);
    assert.equal(store.totalBytes, 100);
  });

  it('never cuts an agent within its fair share for another: the newest capture alone may pass the budget', () => {
    const store = new CaptureStore(16, 100);
    const a = store.add('A', entry(45));
    const b = store.add('B', entry(60));
    assert.equal(store.get(a.id, 'A')?.id, a.id, 'A holds 45 of a fair 50');
    assert.equal(store.get(b.id, 'B')?.id, b.id, 'the capture just taken is kept');
    assert.equal(store.totalBytes, 105);
    const b2 = store.add('B', entry(60));
    assert.equal(store.get(b.id, 'B'), undefined, 'B’s next capture pushes out B’s own');
    assert.equal(store.get(b2.id, 'B')?.id, b2.id);
    assert.equal(store.get(a.id, 'A')?.id, a.id);
    // A third agent's capture is paid for by the one holding the most, B, past its share of a third.
    const c = store.add('C', entry(20));
    assert.equal(store.get(b2.id, 'B'), undefined);
    assert.deepEqual([store.get(a.id, 'A')?.id, store.get(c.id, 'C')?.id], [a.id, c.id]);
    assert.equal(store.totalBytes, 65);
  });

  it('bounds the number of captures all agents keep the same way: many small ones cost the agent holding the most', () => {
    const store = new CaptureStore(16, 1_000_000, 6);
    const a = Array.from({ length: 4 }, () => store.add('A', entry(1)));
    store.add('B', entry(1));
    store.add('B', entry(1));
    const b = store.add('B', entry(1));
    assert.equal(store.size, 6);
    assert.equal(store.get(a[0]!.id, 'A'), undefined, 'A held 4 of 7 (a fair share is 3)');
    const c = store.add('C', entry(1));
    assert.equal(store.get(a[1]!.id, 'A'), undefined, 'A and B held 3 each, A first');
    assert.deepEqual([store.held('A').count, store.held('B').count, store.held('C').count], [2, 3, 1]);
    assert.deepEqual([store.get(b.id, 'B')?.id, store.get(c.id, 'C')?.id], [b.id, c.id]);
  });
});
