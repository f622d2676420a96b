import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppBreakers, AppUnresponsiveError, HUNG_AFTER_MS } from './breaker.js';

/** A breaker on a hand-moved clock, whose probes answer as the test says. */
function setup() {
  let now = 10_000;
  const probes: { bus: string; answer: (ok: boolean) => void }[] = [];
  const breakers = new AppBreakers(
    (bus) =>
      new Promise<void>((resolve, reject) => {
        probes.push({ bus, answer: (ok) => (ok ? resolve() : reject(new Error('no reply'))) });
      }),
    () => {},
    () => now,
  );
  return { breakers, probes, advance: (ms: number) => (now += ms), at: () => now };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('AppBreakers: an application that stops answering is left alone', () => {
  it('never takes a busy application that still answers something for a stuck one', () => {
    const { breakers, advance, at } = setup();
    const sent = at();
    advance(3000);
    breakers.answered(':1.5'); // it answered another call meanwhile
    advance(200);
    breakers.timedOut(':1.5', sent);
    assert.equal(breakers.state(':1.5'), undefined);
    assert.doesNotThrow(() => breakers.check(':1.5'));
  });

  it('opens after a call waited HUNG_AFTER_MS in silence, and then refuses every call at once', () => {
    const { breakers, advance, at } = setup();
    const sent = at();
    advance(HUNG_AFTER_MS - 1);
    breakers.timedOut(':1.5', sent);
    assert.equal(breakers.state(':1.5'), undefined, 'a short wait is no proof');
    advance(1);
    breakers.timedOut(':1.5', sent);
    assert.ok(breakers.state(':1.5') !== undefined);
    assert.throws(
      () => breakers.check(':1.5'),
      (e: unknown) => e instanceof AppUnresponsiveError && e.bus === ':1.5' && e.sinceMs >= HUNG_AFTER_MS,
    );
    assert.doesNotThrow(() => breakers.check(':1.6'), 'other applications stay reachable');
  });

  it('probes one at a time after 1 s, 2 s, 4 s…, and closes on the first answer', async () => {
    const { breakers, probes, advance, at } = setup();
    breakers.timedOut(':1.5', at() - HUNG_AFTER_MS);
    assert.throws(() => breakers.check(':1.5'));
    assert.equal(probes.length, 0, 'no probe before the first backoff');
    advance(1000);
    assert.throws(() => breakers.check(':1.5'));
    assert.throws(() => breakers.check(':1.5'));
    assert.equal(probes.length, 1, 'one probe in flight, however many calls are refused');
    probes[0]?.answer(false);
    await settle();
    advance(1999);
    assert.throws(() => breakers.check(':1.5'));
    assert.equal(probes.length, 1, 'the next probe waits twice as long');
    advance(1);
    assert.throws(() => breakers.check(':1.5'));
    assert.equal(probes.length, 2);
    probes[1]?.answer(true);
    await settle();
    assert.doesNotThrow(() => breakers.check(':1.5'));
    assert.equal(breakers.state(':1.5'), undefined);
  });

  it('never waits more than 30 s between probes', async () => {
    const { breakers, probes, advance, at } = setup();
    breakers.timedOut(':1.5', at() - HUNG_AFTER_MS);
    for (let i = 0; i < 10; i++) {
      advance(30_000);
      assert.throws(() => breakers.check(':1.5'));
      probes.at(-1)?.answer(false);
      await settle();
    }
    assert.equal(probes.length, 10);
  });

  it('guards application connections only, and forgets one that left the bus', () => {
    const { breakers, at } = setup();
    assert.equal(AppBreakers.guards(':1.42'), true);
    assert.equal(AppBreakers.guards('org.a11y.atspi.Registry'), false);
    assert.equal(AppBreakers.guards('org.freedesktop.DBus'), false);
    breakers.timedOut(':1.5', at() - HUNG_AFTER_MS);
    breakers.forget(':1.5');
    assert.doesNotThrow(() => breakers.check(':1.5'));
  });
});
