import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, it } from 'node:test';
import { OverseerError } from '../../protocol/index.js';
import { PERSON_LANE, ScreenQueue, type QueueLimits } from './screenQueue.js';

const LIMITS: QueueLimits = { running: 1, perAgent: 3, waiting: 4, person: 2, waitMs: 10_000 };

/** A queue whose jobs run until the test finishes them, recording the order they started in. */
function rig(limits: Partial<QueueLimits> = {}) {
  const queue = new ScreenQueue({ ...LIMITS, ...limits });
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const submit = (lane: string, name: string, options: { signal?: AbortSignal; wait?: boolean } = {}): Promise<string> =>
    queue.run(
      lane,
      () =>
        new Promise<string>((resolve) => {
          started.push(name);
          finish.set(name, () => resolve(name));
        }),
      options,
    );
  const done = async (name: string): Promise<void> => {
    const f = finish.get(name);
    assert.ok(f !== undefined, `${name} is running`);
    f();
    await new Promise((r) => setImmediate(r));
  };
  return { queue, started, submit, done };
}

const busy = (queue: string) => (e: unknown) =>
  e instanceof OverseerError && e.code === 'timeout' && e.info.data?.['reason'] === 'busy' && e.info.data['queue'] === queue;
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the screen queue', () => {
  it('refuses an agent past its bound at once, typed timeout with reason busy and what to do, and serves what it admitted', async () => {
    const t = rig();
    const admitted = [t.submit('A', 'a1'), t.submit('A', 'a2'), t.submit('A', 'a3')];
    const refused = await t.submit('A', 'a4').catch((e: unknown) => e);
    assert.ok(busy('agent')(refused), String(refused));
    assert.match((refused as OverseerError).info.detail, /wait for their answers, then try again/);
    await settle();
    for (const name of ['a1', 'a2', 'a3']) await t.done(name);
    assert.deepEqual(await Promise.all(admitted), ['a1', 'a2', 'a3']);
    assert.deepEqual(t.queue.load(), { running: 0, waiting: 0, lanes: {} }, 'empty lanes are let go');
  });

  it('gives agents turns: a flood of one agent never runs ahead of another agent’s later call', async () => {
    const t = rig();
    const all = [t.submit('A', 'a1'), t.submit('A', 'a2'), t.submit('A', 'a3'), t.submit('B', 'b1')];
    await settle();
    for (const name of ['a1', 'a2', 'b1', 'a3']) await t.done(name);
    await Promise.all(all);
    assert.deepEqual(t.started, ['a1', 'a2', 'b1', 'a3']);
  });

  it('bounds what all agents have waiting together', async () => {
    const t = rig({ perAgent: 10 });
    const admitted = ['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => t.submit('A', n));
    await settle();
    assert.deepEqual(t.queue.load().waiting, 4);
    await assert.rejects(t.submit('B', 'b1'), busy('all'));
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) await t.done(name);
    await Promise.all(admitted);
  });

  it('keeps a slot for the person: agents filling theirs never hold the Screen view back', async () => {
    const t = rig();
    const agents = [t.submit('A', 'a1'), t.submit('A', 'a2'), t.submit('B', 'b1')];
    const person = t.submit(PERSON_LANE, 'p1');
    await settle();
    assert.deepEqual(t.started, ['a1', 'p1'], 'the person’s picture starts at once');
    const second = t.submit(PERSON_LANE, 'p2');
    await assert.rejects(t.submit(PERSON_LANE, 'p3'), busy('person'));
    await t.done('p1');
    assert.equal(t.started.at(-1), 'p2', 'the person’s next picture takes its slot as soon as it is free');
    await t.done('p2');
    for (const name of ['a1', 'a2', 'b1']) await t.done(name);
    await Promise.all([...agents, person, second]);
  });

  it('refuses a job that waited too long, with how long, and one that was cancelled while waiting; neither runs later', async () => {
    const t = rig({ waitMs: 30 });
    const first = t.submit('A', 'a1');
    const waited = await t.submit('B', 'b1').catch((e: unknown) => e);
    assert.ok(busy('wait')(waited), String(waited));
    assert.ok(Number((waited as OverseerError).info.data?.['waited_ms']) >= 29);
    const controller = new AbortController();
    const cancelled = t.submit('C', 'c1', { signal: controller.signal });
    controller.abort();
    await assert.rejects(cancelled, (e: unknown) => e instanceof OverseerError && e.code === 'timeout' && e.info.data?.['reason'] === 'cancelled');
    await t.done('a1');
    await first;
    assert.deepEqual(t.started, ['a1']);
    assert.deepEqual(t.queue.load(), { running: 0, waiting: 0, lanes: {} });
  });

  it('without waiting: runs when a slot is free now, refuses at once otherwise', async () => {
    const t = rig();
    const now = t.submit('A', 'a1', { wait: false });
    await assert.rejects(t.submit('B', 'b1', { wait: false }), busy('no_wait'));
    await settle();
    await t.done('a1');
    assert.equal(await now, 'a1');
  });

  it('frees the slot of a job that failed', async () => {
    const queue = new ScreenQueue(LIMITS);
    await assert.rejects(
      queue.run('A', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await queue.run('A', () => Promise.resolve('next')), 'next');
    assert.deepEqual(queue.load(), { running: 0, waiting: 0, lanes: {} });
  });

  it('runs a job that waited in its caller’s async context, where the call’s $scope lives (its own excluded host)', async () => {
    const queue = new ScreenQueue(LIMITS);
    const scope = new AsyncLocalStorage<string>();
    let release = (): void => {};
    const first = scope.run('A', () => queue.run('A', () => new Promise<string | undefined>((r) => (release = () => r(scope.getStore())))));
    const waited = scope.run('B', () => queue.run('B', () => Promise.resolve(scope.getStore())));
    await settle();
    // B's job is started by A's job ending, from A's context.
    scope.run('A', () => release());
    assert.deepEqual(await Promise.all([first, waited]), ['A', 'B']);
  });
});
