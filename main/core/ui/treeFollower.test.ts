import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, type Element, type HelperMethod, type HelperParams, type HelperResult, type TreeStatus } from '../../../protocol/index.js';
import { FakeClock, flush } from '../../testing/fakeClock.js';
import { FAKE_WINDOW } from '../../testing/fakeHelper.js';
import type { HelperCaller } from '../helperLink/helperSupervisor.js';
import { ACT_HOLD_MAX_MS, TreeFollower, type ShownTree } from './treeFollower.js';

/** A helper whose window_read answers the current `value` of one element, and counts reads. */
class TreeHelper implements HelperCaller {
  value = '1';
  reads = 0;
  broken = false;
  gate: Promise<void> | undefined;
  async call<M extends HelperMethod>(method: M, _params: HelperParams<M>): Promise<HelperResult<M>> {
    if (method !== 'window_read') throw new Error(method);
    this.reads++;
    const value = this.value;
    if (this.gate !== undefined) await this.gate;
    if (this.broken) throw fail('helper_unavailable', 'the helper is restarting');
    const elements: Element[] = [
      { key: 'root', role: 'window', name: 'W', state: {}, patterns: [], children: [{ key: 'q', role: 'spinner', value, state: {}, patterns: [] }] },
    ];
    return { window: FAKE_WINDOW, format: 'tree', elements, node_count: 2, limits: {}, truncated_by: [], notes: [], read_ms: 1 } as unknown as HelperResult<M>;
  }
}

function rig() {
  const clock = new FakeClock();
  const helper = new TreeHelper();
  const trees: ShownTree[] = [];
  const statuses: TreeStatus[] = [];
  let watched = true;
  const follower = new TreeFollower({
    helper,
    watched: () => watched,
    onTree: (t) => trees.push(t),
    onStatus: (s) => statuses.push(s),
    log: () => {},
    clock,
    pollMs: 5000,
    debounceMs: 100,
  });
  const shown = (): string | undefined => trees.at(-1)?.elements[0]?.children?.[0]?.value;
  return { clock, helper, trees, statuses, follower, shown, unwatch: () => (watched = false) };
}

describe('TreeFollower: the tree a person sees stays current', () => {
  it('reads on choose, again (once, debounced) when the window’s process changes, and sends a tree only when it changed', async () => {
    const t = rig();
    await t.follower.choose(FAKE_WINDOW.window, FAKE_WINDOW.pid);
    assert.equal(t.shown(), '1');
    assert.equal(t.statuses.at(-1)?.state, 'current');
    t.helper.value = '10';
    t.follower.changed([FAKE_WINDOW.pid]);
    t.follower.changed([FAKE_WINDOW.pid]);
    t.follower.changed([999]);
    await t.clock.tick(100);
    await flush();
    assert.equal(t.helper.reads, 2, 'two reports within the debounce make one read; another process none');
    assert.equal(t.shown(), '10');
    t.follower.changed([FAKE_WINDOW.pid]);
    await t.clock.tick(100);
    await flush();
    assert.equal(t.trees.length, 2, 'an unchanged tree is not sent again');
  });

  it('reads no window of a process while an act runs there, then once when every act there ended', async () => {
    const t = rig();
    await t.follower.choose(FAKE_WINDOW.window, FAKE_WINDOW.pid);
    const first = t.follower.actingIn(FAKE_WINDOW.pid);
    const second = t.follower.actingIn(FAKE_WINDOW.pid);
    const elsewhere = t.follower.actingIn(999);
    t.helper.value = '2';
    t.follower.changed([FAKE_WINDOW.pid]);
    await t.clock.tick(ACT_HOLD_MAX_MS - 500);
    await flush();
    assert.equal(t.helper.reads, 1, 'a reported change does not read it meanwhile');
    first();
    first();
    await t.clock.tick(100);
    await flush();
    assert.equal(t.helper.reads, 1, 'one act there is still running');
    second();
    elsewhere();
    await t.clock.tick(100);
    await flush();
    assert.equal(t.helper.reads, 2, 'read once after the last act there ended');
    assert.equal(t.shown(), '2');
  });

  it('holds the tree back 3 s at most for acts that overlap without a break', async () => {
    const t = rig();
    await t.follower.choose(FAKE_WINDOW.window, FAKE_WINDOW.pid);
    let running = t.follower.actingIn(FAKE_WINDOW.pid);
    // Each act begins before the one before ends: the process is never without one.
    const overlap = async (): Promise<void> => {
      const next = t.follower.actingIn(FAKE_WINDOW.pid);
      running();
      running = next;
      await t.clock.tick(500);
      await flush();
    };
    t.helper.value = '3';
    for (let ms = 500; ms < ACT_HOLD_MAX_MS; ms += 500) await overlap();
    assert.equal(t.helper.reads, 1, 'held back while the acts last less than the bound');
    await overlap();
    await overlap();
    assert.equal(t.helper.reads, 2, 'read past the bound, acts or not');
    assert.equal(t.shown(), '3');
    running();
  });

  it('polls while watched, not while nobody looks', async () => {
    const t = rig();
    await t.follower.choose(FAKE_WINDOW.window, FAKE_WINDOW.pid);
    t.helper.value = '3';
    await t.clock.tick(5100);
    await flush();
    assert.equal(t.shown(), '3');
    t.unwatch();
    const reads = t.helper.reads;
    await t.clock.tick(60_000);
    assert.equal(t.helper.reads, reads);
  });

  it('says out of date when a read fails or the helper goes down, keeping the last tree, and current again after', async () => {
    const t = rig();
    await t.follower.choose(FAKE_WINDOW.window, FAKE_WINDOW.pid);
    t.helper.broken = true;
    await t.follower.reload();
    assert.equal(t.statuses.at(-1)?.state, 'out_of_date');
    assert.match(t.statuses.at(-1)?.why ?? '', /restarting/);
    assert.equal(t.shown(), '1', 'the last tree stays, marked out of date');
    t.follower.helperDown('the helper is restarting');
    t.helper.broken = false;
    await t.follower.reload();
    assert.equal(t.statuses.at(-1)?.state, 'current');
  });

  it('Reload waits for a read that begins after it, not one already under way', async () => {
    const t = rig();
    await t.follower.choose(FAKE_WINDOW.window, FAKE_WINDOW.pid);
    let open: () => void = () => {};
    t.helper.gate = new Promise((r) => (open = r));
    t.follower.changed([FAKE_WINDOW.pid]);
    await t.clock.tick(100); // a read is under way, with the old value
    t.helper.value = '42';
    const reload = t.follower.reload();
    t.helper.gate = undefined;
    open();
    await reload;
    assert.equal(t.shown(), '42');
  });
});
