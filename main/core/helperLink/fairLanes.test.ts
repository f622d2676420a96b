import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { FairLanes } from './fairLanes.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('fair lanes for helper calls', () => {
  it('lets a quiet agent through at once while a flooding one waits its own turns, in order', async () => {
    const lanes = new FairLanes(2, 100);
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const flood = Array.from({ length: 6 }, (_, i) =>
      lanes.enter('flooder', undefined, undefined).then((release) => {
        order.push(i);
        releases.push(release);
      }),
    );
    await tick();
    assert.deepEqual(order, [0, 1], 'two at a time');
    assert.deepEqual(lanes.load('flooder'), { running: 2, waiting: 4 });
    const quiet = await lanes.enter('quiet', undefined, undefined);
    assert.deepEqual(lanes.load('quiet'), { running: 1, waiting: 0 }, 'another agent is not behind the flood');
    quiet();
    while (releases.length > 0) {
      releases.shift()?.();
      await tick();
    }
    await Promise.all(flood);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(lanes.load('flooder'), { running: 0, waiting: 0 });
  });

  it('answers typed, never hangs: past the queue bound, after the call’s own budget, or cancelled', async () => {
    const lanes = new FairLanes(1, 1);
    const first = await lanes.enter('a', undefined, undefined);
    const waiting = lanes.enter('a', 50, undefined);
    await assert.rejects(
      lanes.enter('a', undefined, undefined),
      (e: unknown) => e instanceof OverseerError && e.code === 'timeout' && e.info.data?.['reason'] === 'busy',
    );
    await assert.rejects(waiting, (e: unknown) => e instanceof OverseerError && e.code === 'timeout' && /got no turn/.test(e.message));
    const controller = new AbortController();
    const cancelled = lanes.enter('a', undefined, controller.signal);
    controller.abort();
    await assert.rejects(cancelled, (e: unknown) => e instanceof OverseerError && e.code === 'timeout');
    first();
    first();
    assert.deepEqual(lanes.load('a'), { running: 0, waiting: 0 }, 'a release counts once');
  });
});
