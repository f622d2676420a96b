import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Deadline } from '../../core/deadline.js';
import type { AppCache } from './appCache.js';
import { elementAtPoint } from './atPoint.js';
import type { AtspiNode } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { NULL_PATH, keyOf } from './refs.js';

const BUS = ':1.7';
const PREFIX = '/org/a11y/atspi/accessible/';

/** A cached node at `path` (under the AT-SPI prefix) with its role, name, children and screen extents. */
interface Fake {
  path: string;
  role: AtspiNode['role'];
  name?: string;
  children?: string[];
  extents: [number, number, number, number];
  offscreen?: boolean;
  /** What GetAccessibleAtPoint answers here: a child path, or the null reference (a container that answers no child). */
  atPoint: (x: number, y: number) => string;
}

function fakeTree(fakes: Fake[]): { a11y: A11yBus; cache: AppCache; frame: AtspiNode; calls: string[] } {
  const byPath = new Map(fakes.map((f) => [PREFIX + f.path, f]));
  const nodes = new Map<string, AtspiNode>();
  for (const f of fakes) {
    const node = {
      key: keyOf(BUS, PREFIX + f.path),
      bus: BUS,
      path: PREFIX + f.path,
      parent: undefined,
      children: f.children?.map((c) => keyOf(BUS, PREFIX + c)),
      childCount: f.children?.length ?? 0,
      role: f.role,
      ...(f.name !== undefined ? { name: f.name } : {}),
      state: { offscreen: f.offscreen === true },
      patterns: [],
      detailed: false,
      unread: new Set(),
      interfaces: new Set<string>(),
      index: -1,
      states: new Set<number>(),
    } as unknown as AtspiNode;
    nodes.set(node.key, node);
  }
  const calls: string[] = [];
  const a11y = {
    call: (_bus: string, path: string, _iface: string, member: string, _timeout: number, _sig: string, args: number[]) => {
      const f = byPath.get(path);
      calls.push(`${member} ${f?.path}`);
      if (f === undefined) return Promise.reject(new Error('no such object'));
      if (member === 'GetExtents') return Promise.resolve([f.extents]);
      const at = f.atPoint(args[0] as number, args[1] as number);
      return Promise.resolve([[BUS, at === '' ? NULL_PATH : PREFIX + at]]);
    },
  } as unknown as A11yBus;
  const frame = nodes.get(keyOf(BUS, PREFIX + (fakes[0]?.path ?? '')));
  assert.ok(frame !== undefined);
  return { a11y, cache: { nodes } as unknown as AppCache, frame, calls };
}

describe('the element at a screen point', () => {
  // A window holding a tab strip whose page answers no child at a point (as GTK's notebook page does), and a text area in it.
  const tree = (): Fake[] => [
    { path: '1', role: 'window', name: 'Editor', children: ['2'], extents: [0, 0, 800, 600], atPoint: () => '2' },
    { path: '2', role: 'tab', children: ['3'], extents: [0, 0, 800, 600], atPoint: () => '3' },
    { path: '3', role: 'tab_item', name: 'notes.txt', children: ['4', '5'], extents: [0, 30, 800, 570], atPoint: () => '' },
    { path: '4', role: 'edit', name: 'Other page', children: [], extents: [0, 60, 800, 540], offscreen: true, atPoint: () => '' },
    { path: '5', role: 'edit', name: 'Notes', children: [], extents: [0, 60, 800, 540], atPoint: () => '' },
  ];

  it('names the text area under the point where its container answers no child, not the tab around it', async () => {
    const { a11y, cache, frame, calls } = fakeTree(tree());
    const found = await elementAtPoint(a11y, cache, frame, 400, 300, new Deadline(2000));
    assert.equal(found?.role, 'edit');
    assert.equal(found?.name, 'Notes', 'the shown page, not the offscreen one');
    assert.ok(!calls.includes('GetExtents 4'), 'an offscreen child is never asked');
  });

  it('stays on the container when none of its children contains the point', async () => {
    const { a11y, cache, frame } = fakeTree(tree());
    const found = await elementAtPoint(a11y, cache, frame, 400, 40, new Deadline(2000));
    assert.equal(found?.role, 'tab_item');
    assert.equal(found?.name, 'notes.txt');
  });
});
