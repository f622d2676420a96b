import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HelperHealth } from '../../../protocol/index.js';
import { FakeClock, flush } from '../../testing/fakeClock.js';
import { fakeHelperProcess, type FakeHelperProcess } from '../../testing/fakeHelperProcess.js';
import { HelperSupervisor } from './helperSupervisor.js';

function rig(options: { watchdogBusyLimitMs?: number } = {}) {
  const clock = new FakeClock();
  const spawned: FakeHelperProcess[] = [];
  const health: HelperHealth[] = [];
  const hs = new HelperSupervisor({
    env: {},
    log: () => {},
    clock,
    watchdogIntervalMs: 2000,
    watchdogTimeoutMs: 30,
    ...options,
    spawn: () => {
      const p = fakeHelperProcess();
      spawned.push(p);
      return p;
    },
  });
  hs.onHealth((h) => health.push(h));
  return { clock, hs, spawned, health };
}

describe('HelperSupervisor with a fake helper process and a fake clock', () => {
  it('restarts a helper that died, with growing backoff; a call made meanwhile is served by the new one', async () => {
    const t = rig();
    await t.hs.start();
    assert.equal(t.hs.health.state, 'ready');
    t.spawned[0]?.die();
    await flush();
    assert.equal(t.hs.health.state, 'restarting');
    const during = t.hs.call('hello', {});
    await t.clock.tick(250);
    await flush();
    assert.equal(t.spawned.length, 2, 'restarted after 250 ms');
    await during; // a call made while restarting waits for the new helper's handshake
    t.spawned[1]?.die();
    await flush();
    await t.clock.tick(499);
    assert.equal(t.spawned.length, 2, 'the second restart waits 500 ms');
    await t.clock.tick(1);
    await flush();
    assert.equal(t.spawned.length, 3);
    assert.equal(t.hs.health.restarts, 2);
    await t.hs.stop();
  });

  it('kills a helper that stops answering (watchdog) and starts another', async () => {
    const t = rig();
    await t.hs.start();
    t.spawned[0]?.freeze();
    await t.clock.tick(2000);
    // The watchdog's hello times out on the RPC peer's own (real) 30 ms timer.
    for (let i = 0; i < 200 && t.spawned[0]?.signals.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await flush();
    assert.deepEqual(t.spawned[0]?.signals, ['SIGKILL']);
    await t.clock.tick(250);
    await flush();
    assert.equal(t.spawned.length, 2);
    assert.equal(t.hs.health.state, 'ready');
    await t.hs.stop();
  });

  /** Lets the watchdog's hello (30 ms on the RPC peer's real timer) time out, and what follows it run. */
  const hellosTimeOut = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, 120));
    await flush();
  };
  /** A frozen helper that still sends frames every 5 ms (its answers to other calls, on their way), until stopped. */
  const chatty = (helper: FakeHelperProcess | undefined): (() => void) => {
    const timer = setInterval(() => helper?.notify('desktop_changed', { pids: [] }), 5);
    return () => clearInterval(timer);
  };

  it('leaves alone a helper whose hello is late while other frames keep coming from it (busy, not wedged), and kills it once they stop', async () => {
    const t = rig();
    await t.hs.start();
    t.spawned[0]?.freeze();
    const quiet = chatty(t.spawned[0]);
    for (let i = 0; i < 3; i++) {
      await t.clock.tick(2000);
      await hellosTimeOut();
    }
    assert.deepEqual(t.spawned[0]?.signals, [], 'three hellos went unanswered, but frames kept coming');
    assert.equal(t.hs.health.state, 'ready');
    quiet();
    await t.clock.tick(2000);
    await hellosTimeOut();
    assert.deepEqual(t.spawned[0]?.signals, ['SIGKILL'], 'nothing came while the hello waited: wedged');
    await t.hs.stop();
  });

  it('kills a helper that keeps sending frames but leaves hellos unanswered past the busy limit', async () => {
    const t = rig({ watchdogBusyLimitMs: 5000 });
    await t.hs.start();
    t.spawned[0]?.freeze();
    const quiet = chatty(t.spawned[0]);
    try {
      for (let i = 0; i < 3; i++) {
        await t.clock.tick(2000);
        await hellosTimeOut();
      }
      assert.deepEqual(t.spawned[0]?.signals, [], 'busy for 4 s of the 5 s it may be');
      await t.clock.tick(2000);
      await hellosTimeOut();
      assert.deepEqual(t.spawned[0]?.signals, ['SIGKILL'], 'busy for 6 s: killed');
    } finally {
      quiet();
    }
    await t.hs.stop();
  });

  it('an emergency stop keeps the helper down, answering at once, until resume', async () => {
    const t = rig();
    await t.hs.start();
    t.hs.suspend();
    assert.equal(t.hs.health.state, 'stopped');
    await assert.rejects(t.hs.call('hello', {}), /helper_unavailable: .*emergency stop/);
    await t.clock.tick(60_000);
    assert.equal(t.spawned.length, 1, 'no restart while suspended');
    await t.hs.resume();
    assert.equal(t.hs.health.state, 'ready');
    assert.equal(t.spawned.length, 2);
    await t.hs.stop();
  });

  it('passes the helper’s change reports on, only from the current helper', async () => {
    const t = rig();
    const seen: number[][] = [];
    t.hs.onDesktopChange((pids) => seen.push(pids));
    await t.hs.start();
    t.spawned[0]?.notify('desktop_changed', { pids: [7, 8] });
    t.spawned[0]?.notify('desktop_changed', { pids: 'not a list' });
    await flush();
    assert.deepEqual(seen, [[7, 8]], 'malformed reports are dropped');
    await t.hs.stop();
  });
});
