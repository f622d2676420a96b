import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Element } from '../../../protocol/index.js';
import { FIXTURE } from '../../contract/atspiLane.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { spawnHelper, type HelperProcess } from '../../../main/core/helperLink/helperProcess.js';

const run = promisify(execFile);

function all(elements: readonly Element[]): Element[] {
  return elements.flatMap((e) => [e, ...all(e.children ?? [])]);
}

/** Waits for a helper's stderr line matching `pattern` (prefetches report when they are done). */
function line(helper: HelperProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no stderr line like ${pattern} within ${timeoutMs} ms:\n${helper.stderr().slice(-2000)}`)), timeoutMs);
    helper.onStderrLine = (l) => {
      if (!pattern.test(l)) return;
      clearTimeout(timer);
      helper.onStderrLine = undefined;
      resolve(l);
    };
  });
}

describe('atspi cache: warm before the agent asks, and only what the answer shows', () => {
  let desktop: PrivateDesktop;
  let fixture: string;
  let other: string;

  const focus = async (title: string): Promise<void> => {
    const { stdout } = await run('xdotool', ['search', '--name', `^${title}$`], { env: desktop.env });
    const xid = stdout.trim().split('\n')[0] ?? '';
    await run('xdotool', ['windowfocus', '--sync', xid], { env: desktop.env });
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '50'], { waitForWindow: 'Overseer Fixture' });
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--big', '200'], { waitForWindow: 'Overseer Big' });
    const lister = spawnHelper({ ...desktop.env, OVERSEER_PREFETCH: '0' });
    try {
      const windows = (await lister.call('window_list', {})).windows;
      fixture = windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
      other = windows.find((w) => w.title === 'Overseer Big')?.window ?? '';
    } finally {
      await lister.close();
    }
  });
  after(async () => {
    await desktop?.stop();
  });

  it('a read without rectangles asks no application for one and answers none; asked later, they are the ones a read gets at once', async () => {
    const helper = spawnHelper({ ...desktop.env, OVERSEER_PREFETCH: '0' });
    try {
      const bare = await helper.call('window_read', { window: fixture, max_nodes: 5000, rects: false, profile: true });
      assert.equal(bare.profile?.calls_by_member['GetExtents'] ?? 0, 1, 'only the window frame (its rect is in window info)');
      assert.ok(all(bare.elements).every((e) => e.rect === undefined));
      const full = await helper.call('window_read', { window: fixture, max_nodes: 5000, rects: true, profile: true });
      const extents = full.profile?.calls_by_member['GetExtents'] ?? 0;
      assert.ok(extents >= bare.node_count - 1, `the rectangles were asked now (${extents} of ${bare.node_count})`);
      assert.equal(full.profile?.calls_by_member['GetActions'] ?? 0, 0, 'and nothing else again');
      // The rectangles read afterwards are the ones a read that asked for them at once gets.
      const rects = (els: Element[]): Record<string, unknown> => Object.fromEntries(all(els).map((e) => [e.key, e.rect]));
      const fresh = spawnHelper({ ...desktop.env, OVERSEER_PREFETCH: '0' });
      try {
        const direct = await fresh.call('window_read', { window: fixture, max_nodes: 5000, rects: true });
        assert.ok(all(direct.elements).filter((e) => e.rect !== undefined).length > 20);
        assert.deepEqual(rects(full.elements), rects(direct.elements));
      } finally {
        await fresh.close();
      }
    } finally {
      await helper.close();
    }
  });

  it('the focus moving between windows keeps each cache: reads after it reload nothing and ask nothing again', async () => {
    const helper = spawnHelper({ ...desktop.env, OVERSEER_PREFETCH: '0' });
    try {
      const first = await helper.call('window_read', { window: fixture, max_nodes: 5000, profile: true });
      assert.equal(first.profile?.loads_reloaded, 1);
      for (let i = 0; i < 3; i++) {
        await focus(i % 2 === 0 ? 'Overseer Big' : 'Overseer Fixture');
        const again = await helper.call('window_read', { window: fixture, max_nodes: 5000, profile: true });
        assert.equal(again.profile?.loads_reloaded, 0, `round ${i}: ${JSON.stringify(again.profile)}`);
        assert.equal(again.node_count, first.node_count);
        const asked = Object.entries(again.profile?.calls_by_member ?? {}).filter(([m]) => m !== 'Ping' && m !== 'GetExtents');
        assert.deepEqual(asked, [], `round ${i}: only the barrier (and the frame's rect, which activation may move)`);
      }
    } finally {
      await helper.close();
    }
  });

  it('a window that gains the focus is read before anyone asks; the first read of it is warm', async () => {
    const helper = spawnHelper(desktop.env);
    try {
      await helper.call('hello', { client: 'warm-test' });
      const warmed = line(helper, new RegExp(`\\[prefetch\\] ${other.replace(/[.~]/g, '\\$&')}: \\d+ elements warm`), 30_000);
      await focus('Overseer Big');
      await warmed;
      const read = await helper.call('window_read', { window: other, max_nodes: 5000, profile: true });
      assert.equal(read.profile?.loads_reloaded, 0, JSON.stringify(read.profile));
      const asked = Object.entries(read.profile?.calls_by_member ?? {}).filter(([m]) => m !== 'Ping' && m !== 'GetExtents');
      assert.deepEqual(asked, [], 'the details were read by the prefetch');
    } finally {
      await helper.close();
    }
  });

  it('without prefetching (OVERSEER_PREFETCH=0) the same first read loads the application', async () => {
    const helper = spawnHelper({ ...desktop.env, OVERSEER_PREFETCH: '0' });
    try {
      await helper.call('hello', { client: 'cold-test' });
      await focus('Overseer Fixture');
      await focus('Overseer Big');
      const read = await helper.call('window_read', { window: other, max_nodes: 5000, profile: true });
      assert.equal(read.profile?.loads_reloaded, 1);
    } finally {
      await helper.close();
    }
  });
});
