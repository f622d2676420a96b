import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Deadline } from '../../core/deadline.js';
import { AppCache } from './appCache.js';
import { I, type AtspiNode } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { Problems } from './readSupport.js';
import { ROOT_PATH, keyOf } from './refs.js';

const BUS = ':1.7';
const path = (n: number): string => `/org/a11y/atspi/accessible/${n}`;
/** A window with three push buttons (role 43), ids b1..b3, as Cache.GetItems lists them. */
const ITEMS = [
  [[BUS, path(1)], [BUS, ROOT_PATH], [BUS, ROOT_PATH], 0, 3, [I.accessible], 'Window', 69, '', [0, 0]],
  ...[2, 3, 4].map((n, i) => [[BUS, path(n)], [BUS, ROOT_PATH], [BUS, path(1)], i, 0, [I.accessible, I.action], `Button ${i + 1}`, 43, '', [0, 0]]),
];

/**
 * The part of the accessibility bus AppCache uses, in memory: GetItems, Ping, AccessibleId. Replies
 * to AccessibleId can be held, to put two reads of one application in the order a test needs.
 */
class FakeBus {
  held: (() => void)[] = [];
  holdIds = false;
  idCalls = 0;
  call(_dest: string, _path: string, iface: string, member: string): Promise<unknown[]> {
    if (iface === I.cache && member === 'GetItems') return Promise.resolve([ITEMS]);
    if (member === 'Ping') return Promise.resolve([]);
    return Promise.reject(new Error(`the fake bus has no ${iface}.${member}`));
  }
  getProperty(_dest: string, p: string, _iface: string, name: string): Promise<unknown> {
    if (name !== 'AccessibleId') return Promise.reject(new Error(`no property ${name}`));
    this.idCalls++;
    const id = `b${Number(p.split('/').pop()) - 1}`;
    if (!this.holdIds) return Promise.resolve(id);
    return new Promise((resolve) => this.held.push(() => resolve(id)));
  }
}

const ids = (_cache: AppCache, nodes: ReadonlyMap<string, AtspiNode>): (string | undefined)[] =>
  [2, 3, 4].map((n) => nodes.get(keyOf(BUS, path(n)))?.automationId);

describe('AppCache: automation ids read by one read reach every read', () => {
  it('a read that loaded its structure before another read learned the ids still sees them (no false not found)', async () => {
    const bus = new FakeBus();
    const cache = new AppCache(bus as unknown as A11yBus, BUS);
    const deadline = new Deadline(5000);
    const keys = [2, 3, 4].map((n) => keyOf(BUS, path(n)));
    // Read A loads the structure and asks for ids, which the application is slow to answer.
    await cache.load(deadline);
    const mapA = cache.nodes;
    bus.holdIds = true;
    const readA = cache.details(mapA, keys, deadline, new Problems(), 'ids');
    // Meanwhile an event makes the structure stale, and read B loads a newer map of it.
    cache.onEvent(path(1), 'org.a11y.atspi.Event.Object', 'ChildrenChanged', ['add', 0, 0, ['', '']]);
    await cache.load(deadline);
    const mapB = cache.nodes;
    assert.notEqual(mapB, mapA, 'B works on a newer map');
    // A's ids arrive after B's map was built; then B asks for the ids it needs.
    bus.holdIds = false;
    for (const release of bus.held) release();
    await readA;
    assert.deepEqual(ids(cache, mapA), ['b1', 'b2', 'b3']);
    await cache.details(mapB, keys, deadline, new Problems(), 'ids');
    assert.deepEqual(ids(cache, mapB), ['b1', 'b2', 'b3'], 'B knows the ids A read, without asking again');
    assert.equal(bus.idCalls, 3, 'each id was read once');
  });

  it('the same holds for a full detail pass', async () => {
    const bus = new FakeBus();
    const cache = new AppCache(bus as unknown as A11yBus, BUS);
    const deadline = new Deadline(5000);
    const keys = [2, 3, 4].map((n) => keyOf(BUS, path(n)));
    await cache.load(deadline);
    const mapA = cache.nodes;
    await cache.details(mapA, keys, deadline, new Problems(), 'ids');
    // A map loaded by another read before the ids were known, then kept by it:
    const early = new Map<string, AtspiNode>(
      [...mapA].map(([k, n]) => {
        const { automationId: _id, ...without } = n;
        return [k, { ...without, detailed: false, unread: new Set(n.unread) }];
      }),
    );
    await cache.details(early, keys, deadline, new Problems(), 'full');
    assert.deepEqual(ids(cache, early), ['b1', 'b2', 'b3']);
  });
});
