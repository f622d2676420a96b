import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, type IpcAnswer, type UiSnapshot } from '../../protocol/index.js';
import { UiHub, type UiHandlers } from '../../main/core/ui/uiHub.js';
import { APP_URL } from '../../main/electron/security.js';
import { registerUiIpc, type IpcInvokeEventLike } from '../../main/electron/uiIpc.js';
import { buildBridge } from '../../preload/bridge.js';
import { createApi, type AnyUiEvent, type LinkStatus } from './api.js';
import { IpcTransport } from './transport.js';

/**
 * The desktop app's UI channel end to end in memory: the renderer's api over IpcTransport, the
 * preload's bridge, the main process's IPC registration and the supervisor's UiHub. Only
 * Electron's two IPC objects are stand-ins (they route channels like ipcRenderer/ipcMain).
 */
function wire(frameUrl = APP_URL) {
  const handlers = new Map<string, (event: IpcInvokeEventLike, params: unknown) => Promise<IpcAnswer>>();
  const listeners = new Set<(event: unknown, frame: unknown) => void>();
  const snapshot: UiSnapshot = {
    agents: [],
    windows: [],
    tree_status: { state: 'none' },
    pending: [],
    held: [],
    receipts: [],
    brake: 'running',
    helper: { state: 'ready', restarts: 0 },
    settings: DEFAULT_SETTINGS,
    rules: [],
    grants: [],
    connections: { list: [{ name: 'local', kind: 'local', where: 'this desktop', enabled: true, status: 'up' }], viewed: 'local' },
    connection: { mcp_url: 'http://127.0.0.1:7300/mcp', stdio_command: ['overseer', 'mcp'] },
  };
  const hubHandlers = new Proxy({} as UiHandlers, {
    get: (_t, name) => (params: unknown) => {
      if (name === 'snapshot') return Promise.resolve(snapshot);
      if (name === 'brake') return Promise.resolve({ brake: (params as { action: string }).action === 'pause' ? 'paused' : 'running' });
      return Promise.resolve({ ok: true });
    },
  });
  const hub = new UiHub(hubHandlers, () => {});
  registerUiIpc({ handle: (c, l) => handlers.set(c, l), removeHandler: (c) => handlers.delete(c) }, hub, APP_URL, () => {});
  const bridge = buildBridge({
    invoke: (channel, params) => {
      const h = handlers.get(channel);
      return h === undefined
        ? Promise.reject(new Error(`No handler registered for '${channel}'`))
        : h({ senderFrame: { url: frameUrl, parent: null } }, params);
    },
    on: (_c, l) => listeners.add(l),
    removeListener: (_c, l) => listeners.delete(l),
  });
  const emit = (event: string, data: unknown): void => {
    for (const l of listeners) l({}, { type: 'event', event, data });
  };
  return { bridge, emit, listeners };
}

describe('the UI channel over the desktop app’s IPC', () => {
  it('opens with a snapshot, answers commands with validated results and typed errors, and relays events', async () => {
    const { bridge, emit, listeners } = wire();
    const events: AnyUiEvent[] = [];
    const statuses: LinkStatus['state'][] = [];
    const api = createApi({ transport: () => new IpcTransport(bridge), onEvent: (e) => events.push(e), onStatus: (s) => statuses.push(s.state) });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(statuses, ['connecting', 'open']);
    assert.equal(events[0]?.event, 'snapshot');
    assert.deepEqual(await api.command('brake', { action: 'pause' }), { brake: 'paused' });
    await assert.rejects(api.command('approve', { approval_id: 7 } as never), (e: { info: { code: string } }) => e.info.code === 'invalid_argument');
    emit('brake', 'paused');
    emit('brake', 'not a brake state');
    assert.deepEqual(events.slice(1), [{ event: 'brake', data: 'paused' }], 'invalid events are dropped by the same validation as over WebSocket');
    api.close();
    assert.equal(listeners.size, 0, 'closing unsubscribes from events');
    assert.equal(statuses.at(-1), 'closed');
  });

  it('surfaces the main process’s refusal of an untrusted frame as a typed error', async () => {
    const { bridge } = wire('https://evil.example/');
    const api = createApi({ transport: () => new IpcTransport(bridge), onEvent: () => {}, onStatus: () => {} });
    await new Promise((r) => setTimeout(r, 10));
    await assert.rejects(api.command('brake', { action: 'emergency_stop' }), (e: { info: { code: string } }) => e.info.code === 'denied');
    api.close();
  });
});
