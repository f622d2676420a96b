import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_SETTINGS,
  type ConnectionInfo,
  type ConnectionRef,
  type ConnectionsView,
  type PendingApproval,
  type UiSnapshot,
} from '../../protocol/index.js';
import { selectConnections, selectViewedConnection } from './selectors.js';
import { createAppStore } from './store.js';

const local: ConnectionInfo = { name: 'local', kind: 'local', where: 'this desktop', enabled: true, status: 'up' };
const lab: ConnectionInfo = {
  name: 'lab',
  kind: 'ssh',
  where: 'ann@lab.example:2222',
  enabled: true,
  status: 'down',
  last_error: { code: 'connection_unavailable', detail: 'ssh exited 255' },
};
const vm: ConnectionInfo = { name: 'vm1', kind: 'osworld_http', where: 'http://10.0.0.5:5000', enabled: false, status: 'unknown' };
const view = (viewed: string, list: ConnectionInfo[] = [local, lab, vm]): ConnectionsView => ({ list, viewed });

const snapshot = (connections: ConnectionsView): UiSnapshot => ({
  agents: [],
  windows: [{ window: 'w1', title: 'Local window', app: 'fixture', pid: 42, process_start: '1', foreground: true }],
  chosen_window: 'w1',
  tree: [{ key: 'root', role: 'window', name: 'Local window', state: {}, patterns: [] }],
  tree_status: { window: 'w1', state: 'current', read_at: new Date(0).toISOString() },
  pending: [],
  held: [],
  receipts: [],
  brake: 'running',
  helper: { state: 'ready', restarts: 0 },
  settings: DEFAULT_SETTINGS,
  rules: [],
  grants: [],
  connections,
  connection: { mcp_url: 'http://127.0.0.1:7399/mcp', stdio_command: ['/usr/bin/node', 'overseer.mjs', 'mcp'] },
});

describe('connections in the store', () => {
  it('starts with this desktop only, not yet checked, until the snapshot names them all', () => {
    const store = createAppStore();
    assert.deepEqual(
      selectConnections(store.getState()).map((c) => [c.name, c.status]),
      [['local', 'unknown']],
    );
    store.getState().applyEvent({ event: 'snapshot', data: snapshot(view('local')) });
    assert.deepEqual(
      selectConnections(store.getState()).map((c) => c.name),
      ['local', 'lab', 'vm1'],
    );
    assert.equal(selectViewedConnection(store.getState()), 'local');
    assert.equal(store.getState().windows.length, 1, 'a snapshot carries the viewed desktop’s windows with it');
  });

  it('a connections event replaces the list and keeps what is shown while the viewed desktop stays', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot(view('local')));
    store.getState().applyEvent({ event: 'connections', data: view('local', [local, { ...lab, status: 'up' }]) });
    const s = store.getState();
    assert.deepEqual(
      s.connections.list.map((c) => `${c.name}:${c.status}`),
      ['local:up', 'lab:up'],
    );
    assert.equal(s.windows.length, 1);
    assert.equal(s.nodes.length, 1);
  });

  it('viewing another desktop empties the windows, tree and picture of the one before', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot(view('local')));
    store.getState().selectKey('root');
    const request = store.getState().screenRequested('w1');
    store.getState().applyEvent({ event: 'connections', data: view('lab') });
    const s = store.getState();
    assert.equal(s.connections.viewed, 'lab');
    assert.deepEqual(s.windows, []);
    assert.equal(s.chosenWindow, undefined);
    assert.equal(s.nodes.length, 0);
    assert.equal(s.selectedKey, undefined);
    assert.equal(s.treeStatus.state, 'none');
    // A capture of the local window answered after the switch is dropped, never shown as the remote desktop.
    s.screenAnswered(request, {
      view: {
        picture: 'data:image/png;base64,',
        width: 1,
        height: 1,
        captured_at: new Date(0).toISOString(),
        masked: [],
        transform: { scale: 1, offset_x: 0, offset_y: 0 },
      } as never,
    });
    assert.equal(store.getState().screen.shown, undefined);
  });

  it('puts a command’s answer in place, or at the end for a new connection', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot(view('local', [local, lab])));
    store.getState().putConnection({ ...lab, status: 'up' });
    store.getState().putConnection(vm);
    assert.deepEqual(
      store.getState().connections.list.map((c) => `${c.name}:${c.status}`),
      ['local:up', 'lab:up', 'vm1:unknown'],
    );
  });
});

describe('a card on another desktop', () => {
  it('selecting it leaves the tree of the desktop shown alone, whatever its key says', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot(view('local')));
    const card = (id: string, connection?: ConnectionRef): PendingApproval => ({
      kind: 'element',
      approval_id: id,
      receipt_id: `r-${id}`,
      session: 's1',
      agent: 'claude',
      action: 'invoke',
      password: false,
      target: { key: 'root', role: 'button', name: 'Delete', state: {}, patterns: [] },
      window: { window: 'w1', title: 'Fixture', app: 'fixture', pid: 42, process_start: '1', foreground: false },
      ancestor_path: [],
      created_at: new Date(0).toISOString(),
      expires_at: new Date(120_000).toISOString(),
      risk_hints: [],
      ...(connection !== undefined ? { connection } : {}),
    });
    store.getState().setPending([card('remote', { name: 'lab', kind: 'ssh', where: 'lab.example' }), card('here')]);
    store.getState().settle();
    store.getState().selectKey(undefined);
    store.getState().selectApproval('remote');
    assert.equal(store.getState().selectedApproval, 'remote');
    assert.equal(store.getState().selectedKey, undefined, 'the local element with the same key is not selected');
    store.getState().selectApproval('here');
    assert.equal(store.getState().selectedKey, 'root');
  });
});

describe('windows listed for one desktop', () => {
  it('are dropped when they arrive after the person switched to another', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot(view('local')));
    const late = [{ window: 'w9', title: 'Local only', app: 'fixture', pid: 1, process_start: '1', foreground: false }];
    store.getState().applyEvent({ event: 'connections', data: view('lab') });
    store.getState().setWindowsOf('local', late);
    assert.deepEqual(store.getState().windows, [], 'a late list of this desktop is not shown as lab’s');
    store.getState().setWindowsOf('lab', late);
    assert.equal(store.getState().windows.length, 1);
  });
});
