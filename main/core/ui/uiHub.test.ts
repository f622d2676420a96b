import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UiFrame, UiSnapshot } from '../../../protocol/index.js';
import { UiHub, type UiClient, type UiHandlers } from './uiHub.js';

/** A hub whose snapshot answers only when the test says so (or fails). */
function slowHub(): { hub: UiHub; answer: () => void; fail: (error: Error) => void; asked: Promise<void> } {
  let answer: () => void = () => {};
  let failWith: (error: Error) => void = () => {};
  let wasAsked: () => void = () => {};
  const asked = new Promise<void>((resolve) => (wasAsked = resolve));
  const snapshot = (): Promise<UiSnapshot> =>
    new Promise<UiSnapshot>((resolve, reject) => {
      answer = () => resolve({} as UiSnapshot);
      failWith = reject;
      wasAsked();
    });
  const handlers = new Proxy({} as UiHandlers, { get: (_t, name) => (name === 'snapshot' ? snapshot : () => Promise.resolve({ ok: true })) });
  return { hub: new UiHub(handlers, () => {}), answer: () => answer(), fail: (e) => failWith(e), asked };
}

const recorder = (): UiClient & { frames: UiFrame[] } => {
  const frames: UiFrame[] = [];
  return { frames, send: (f) => frames.push(f) };
};

describe('UI hub: clients that leave while attaching', () => {
  it('removes a client that leaves before attach resolves, and never sends it the snapshot or events', async () => {
    const { hub, answer } = slowHub();
    const client = recorder();
    const attached = hub.attach(client);
    assert.equal(hub.size, 1);
    assert.equal(hub.watching, 1);
    hub.detach(client);
    assert.equal(hub.size, 0, 'gone at once, not when the snapshot arrives');
    assert.equal(hub.watching, 0, 'a departed UI does not keep the tree followed');
    hub.emit('brake', 'running');
    answer();
    await attached;
    hub.emit('brake', 'stopped');
    assert.deepEqual(client.frames, []);
    assert.equal(hub.size, 0);
  });

  it('keeps no client when its snapshot fails', async () => {
    const { hub, fail } = slowHub();
    const client = recorder();
    const attached = hub.attach(client);
    fail(new Error('snapshot broke'));
    await assert.rejects(attached, /snapshot broke/);
    assert.equal(hub.size, 0);
    assert.equal(hub.watching, 0);
    hub.emit('brake', 'running');
    assert.deepEqual(client.frames, []);
  });
});
