import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UI_COMMANDS, UI_EVENT_CHANNEL } from '../protocol/index.js';
import { buildBridge, type IpcRendererLike } from './bridge.js';

function fakeIpc(): IpcRendererLike & { invoked: [string, unknown][]; listeners: Map<string, Set<(e: unknown, f: unknown) => void>> } {
  const listeners = new Map<string, Set<(e: unknown, f: unknown) => void>>();
  const invoked: [string, unknown][] = [];
  return {
    invoked,
    listeners,
    invoke: (channel, params) => {
      invoked.push([channel, params]);
      return Promise.resolve({ ok: true });
    },
    on: (channel, l) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(l)),
    removeListener: (channel, l) => listeners.get(channel)?.delete(l),
  };
}

describe('the preload bridge', () => {
  it('exposes exactly one function per UI command of the table, on its own channel', async () => {
    const ipc = fakeIpc();
    const bridge = buildBridge(ipc);
    assert.deepEqual(Object.keys(bridge.commands).sort(), Object.keys(UI_COMMANDS).sort());
    await bridge.commands.approve({ approval_id: 'A1' });
    assert.deepEqual(ipc.invoked, [['overseer:approve', { approval_id: 'A1' }]]);
    assert.ok(Object.isFrozen(bridge.commands));
    assert.ok(!('invoke' in bridge) && !('ipc' in bridge), 'ipcRenderer itself is never exposed');
  });

  it('relays events and unsubscribes', () => {
    const ipc = fakeIpc();
    const seen: unknown[] = [];
    const off = buildBridge(ipc).onEvent((f) => seen.push(f));
    for (const l of ipc.listeners.get(UI_EVENT_CHANNEL) ?? []) l({}, { type: 'event', event: 'brake', data: 'paused' });
    off();
    assert.equal(ipc.listeners.get(UI_EVENT_CHANNEL)?.size, 0);
    assert.deepEqual(seen, [{ type: 'event', event: 'brake', data: 'paused' }]);
  });
});
