import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Deadline } from '../../core/deadline.js';
import { AppCache } from './appCache.js';
import { I } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { Problems } from './readSupport.js';
import { ROOT_PATH, keyOf } from './refs.js';

const BUS = ':1.9';
const OBJECT = 'org.a11y.atspi.Event.Object';
const path = (n: number): string => `/org/a11y/atspi/accessible/${n}`;
const key = (n: number): string => keyOf(BUS, path(n));

/** A frame (1) with `count` push buttons (2…), each with Component and Action, as Cache.GetItems lists them. */
function items(count: number, label = 'Button'): unknown[] {
  return [
    [[BUS, path(1)], [BUS, ROOT_PATH], [BUS, ROOT_PATH], 0, count, [I.accessible, I.component], 'Window', 69, '', [0, 0]],
    ...Array.from({ length: count }, (_, i) => [
      [BUS, path(i + 2)],
      [BUS, ROOT_PATH],
      [BUS, path(1)],
      i,
      0,
      [I.accessible, I.component, I.action],
      `${label} ${i + 1}`,
      43,
      '',
      [0, 0],
    ]),
  ];
}

/** The part of the accessibility bus AppCache uses, in memory, counting calls by member. */
class FakeBus {
  calls: Record<string, number> = {};
  toolkit = 'GTK';
  /** Automation id of object n ('' for none). */
  idOf: (n: number) => string = () => '';
  tree = items(3);
  /** Runs while GetItems is being answered (an application sending events meanwhile). */
  duringGetItems: (() => void) | undefined;

  private count(member: string): void {
    this.calls[member] = (this.calls[member] ?? 0) + 1;
  }

  call(_dest: string, _path: string, iface: string, member: string): Promise<unknown[]> {
    this.count(member);
    if (iface === I.cache && member === 'GetItems') {
      const tree = this.tree;
      this.duringGetItems?.();
      return Promise.resolve([tree]);
    }
    if (member === 'Ping') return Promise.resolve([]);
    if (member === 'GetExtents') return Promise.resolve([[10, 20, 30, 40]]);
    if (member === 'GetActions') return Promise.resolve([[['click', '', '']]]);
    return Promise.reject(new Error(`the fake bus has no ${iface}.${member}`));
  }

  getProperty(_dest: string, p: string, _iface: string, name: string): Promise<unknown> {
    this.count(name);
    if (name === 'ToolkitName') return Promise.resolve(this.toolkit);
    if (name === 'AccessibleId') return Promise.resolve(this.idOf(Number(p.split('/').pop())));
    return Promise.reject(new Error(`no property ${name}`));
  }

  take(): Record<string, number> {
    const c = this.calls;
    this.calls = {};
    return c;
  }
}

function setup(count = 3): { bus: FakeBus; cache: AppCache; deadline: Deadline; keys: string[] } {
  const bus = new FakeBus();
  bus.tree = items(count);
  const cache = new AppCache(bus as unknown as A11yBus, BUS);
  return { bus, cache, deadline: new Deadline(5000), keys: Array.from({ length: count + 1 }, (_, i) => key(i + 1)) };
}

describe('AppCache: what a read asks', () => {
  it('a read without rectangles asks none; a later read with them asks only the rectangles', async () => {
    const { bus, cache, deadline, keys } = setup();
    await cache.load(deadline);
    bus.take();
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    const first = bus.take();
    assert.equal(first['GetExtents'], undefined);
    assert.equal(first['GetActions'], 3);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'full');
    assert.deepEqual(bus.take(), { GetExtents: 4 }, 'only the rectangles were missing');
    assert.deepEqual(cache.nodes.get(key(2))?.rect, { x: 10, y: 20, w: 30, h: 40, cx: 25, cy: 40 });
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'full');
    assert.deepEqual(bus.take(), {}, 'everything is kept');
  });

  it('a moved object has its rectangle asked again, and nothing else', async () => {
    const { bus, cache, deadline, keys } = setup();
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'full');
    bus.take();
    cache.onEvent(path(2), OBJECT, 'BoundsChanged', ['', 0, 0, [0, 0, 0, 0]]);
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    assert.deepEqual(bus.take(), { Ping: 1 }, 'a text read asks nothing of a moved object');
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'full');
    assert.deepEqual(bus.take(), { GetExtents: 1 });
  });
});

describe('AppCache: what spoils a load', () => {
  it('rectangles or values changing while the structure is read keep the load (and are read again)', async () => {
    const { bus, cache, deadline, keys } = setup();
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'full');
    // A structural change of one object (its rectangle and details are dropped; the rest are kept).
    cache.onEvent(path(4), OBJECT, 'StateChanged', ['defunct', 1, 0, 0]);
    bus.duringGetItems = () => {
      cache.onEvent(path(2), OBJECT, 'BoundsChanged', ['', 0, 0, [0, 0, 0, 0]]);
      cache.onEvent(path(3), OBJECT, 'PropertyChange', ['accessible-value', 0, 0, 5]);
    };
    bus.take();
    await cache.load(deadline);
    bus.duringGetItems = undefined;
    assert.equal(bus.take()['GetItems'], 1);
    await cache.load(deadline);
    assert.deepEqual(bus.take(), { Ping: 1 }, 'the next read reuses the structure');
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'full');
    assert.deepEqual(bus.take(), { GetExtents: 2, GetActions: 2 }, 'the changed object, the moved rectangle and the changed value are asked again');
  });

  it('a structural event while the structure is read makes the next read load it again', async () => {
    const { bus, cache, deadline } = setup();
    bus.duringGetItems = () => cache.onEvent(path(1), OBJECT, 'ChildrenChanged', ['add', 0, 0, ['', '']]);
    await cache.load(deadline);
    bus.duringGetItems = undefined;
    bus.take();
    await cache.load(deadline);
    assert.equal(bus.take()['GetItems'], 1);
  });

  it('a state change while the structure is read is applied to what was read, whichever it holds', async () => {
    const { bus, cache, deadline } = setup();
    // The application answers the structure from before the change, then the change arrives.
    bus.duringGetItems = () => cache.onEvent(path(2), OBJECT, 'StateChanged', ['focused', 1, 0, 0]);
    await cache.load(deadline);
    bus.duringGetItems = undefined;
    assert.equal(cache.nodes.get(key(2))?.state?.focused, true);
    bus.take();
    await cache.load(deadline);
    assert.deepEqual(bus.take(), { Ping: 1 });
  });

  it('a state this table does not know spoils the load', async () => {
    const { bus, cache, deadline } = setup();
    bus.duringGetItems = () => cache.onEvent(path(2), OBJECT, 'StateChanged', ['some-new-state', 1, 0, 0]);
    await cache.load(deadline);
    bus.duringGetItems = undefined;
    bus.take();
    await cache.load(deadline);
    assert.equal(bus.take()['GetItems'], 1);
  });

  it('the focus moving between windows keeps the cache and its details, and updates the active state', async () => {
    const { bus, cache, deadline, keys } = setup();
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    bus.take();
    cache.onEvent(path(1), 'org.a11y.atspi.Event.Window', 'Activate', ['', 0, 0, 0]);
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    assert.deepEqual(bus.take(), { Ping: 1 });
    assert.equal(cache.nodes.get(key(1))?.state?.active, true);
    cache.onEvent(path(1), 'org.a11y.atspi.Event.Window', 'Deactivate', ['', 0, 0, 0]);
    assert.equal(cache.nodes.get(key(1))?.state?.active, undefined);
  });
});

describe("AppCache: GTK3's notices of objects it makes on first access", () => {
  it('creation notices change nothing; a role change is applied in place; a parent change is structural only when the parent differs', async () => {
    const { bus, cache, deadline, keys } = setup();
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    bus.take();
    cache.onEvent(path(3), OBJECT, 'StateChanged', ['defunct', 0, 0, 0]);
    cache.onEvent(path(3), OBJECT, 'PropertyChange', ['widget', 0, 0, 0]);
    cache.onEvent(path(3), OBJECT, 'PropertyChange', ['accessible-parent', 0, 0, { value: [BUS, path(1)] }]);
    cache.onEvent(path(99), OBJECT, 'PropertyChange', ['accessible-parent', 0, 0, { value: [BUS, path(1)] }]);
    cache.onEvent(path(3), OBJECT, 'PropertyChange', ['accessible-role', 0, 0, { value: 62 }]);
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    assert.deepEqual(bus.take(), { Ping: 1 }, 'nothing read again');
    assert.equal(cache.nodes.get(key(3))?.role, 'toggle_button');
    cache.onEvent(path(3), OBJECT, 'PropertyChange', ['accessible-parent', 0, 0, { value: [BUS, path(2)] }]);
    await cache.load(deadline);
    assert.equal(bus.take()['GetItems'], 1, 'moved under another parent: the structure is read again');
  });
});

describe('AppCache: one barrier per read', () => {
  it('the barrier of resolving a window stands for opening it, unless an event came between', async () => {
    const { bus, cache, deadline } = setup();
    await cache.load(deadline);
    bus.take();
    const proof = await cache.load(deadline);
    assert.deepEqual(bus.take(), { Ping: 1 });
    await cache.load(deadline, proof);
    assert.deepEqual(bus.take(), {}, 'no second Ping');
    const again = await cache.load(deadline);
    cache.onEvent(path(2), OBJECT, 'BoundsChanged', ['', 0, 0, [0, 0, 0, 0]]);
    await cache.load(deadline, again);
    assert.deepEqual(bus.take(), { Ping: 2 }, 'an event in between: the barrier is made again');
  });
});

describe('AppCache: automation ids', () => {
  it('a GTK application whose first answers are all empty is not asked element by element, and the answer says so', async () => {
    const { bus, cache, deadline, keys } = setup(60);
    await cache.load(deadline);
    bus.take();
    const problems = new Problems();
    await cache.details(cache.nodes, keys, deadline, problems, 'answer');
    assert.equal(bus.take()['AccessibleId'], 32);
    assert.match(problems.notes.join('\n'), /automation_id: not asked of 29 elements/);
  });

  it('an id among the first answers: every element is asked', async () => {
    const { bus, cache, deadline, keys } = setup(60);
    bus.idOf = (n) => (n === 5 ? 'save' : '');
    await cache.load(deadline);
    bus.take();
    const problems = new Problems();
    await cache.details(cache.nodes, keys, deadline, problems, 'answer');
    assert.equal(bus.take()['AccessibleId'], 61);
    assert.equal(cache.nodes.get(key(5))?.automationId, 'save');
    assert.doesNotMatch(problems.notes.join('\n'), /not asked/);
  });

  it('a toolkit that sets ids by itself: every element is asked', async () => {
    const { bus, cache, deadline, keys } = setup(60);
    bus.toolkit = 'Gecko';
    await cache.load(deadline);
    bus.take();
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    assert.equal(bus.take()['AccessibleId'], 61);
  });

  it('Qt 5, whose provider has no ids: none is asked, and the notes say why', async () => {
    const { bus, cache, deadline, keys } = setup(60);
    bus.toolkit = 'Qt';
    await cache.load(deadline);
    bus.take();
    const problems = new Problems();
    await cache.details(cache.nodes, keys, deadline, problems, 'answer');
    assert.equal(bus.take()['AccessibleId'], undefined);
    assert.match(problems.notes.join('\n'), /Qt provides no accessible ids/);
    assert.deepEqual([...problems.truncated], [], 'no id is a fact of the toolkit, not a cut');
    await cache.details(cache.nodes, keys, deadline, problems, 'ids');
    assert.equal(bus.take()['AccessibleId'], undefined, 'element_find by automation_id asks none either');
  });

  it('element_find by automation_id still asks every element', async () => {
    const { bus, cache, deadline, keys } = setup(60);
    bus.idOf = (n) => (n === 50 ? 'deep' : '');
    await cache.load(deadline);
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'answer');
    assert.equal(cache.nodes.get(key(50))?.automationId, undefined, 'past the probe');
    await cache.details(cache.nodes, keys, deadline, new Problems(), 'ids');
    assert.equal(cache.nodes.get(key(50))?.automationId, 'deep');
  });
});
