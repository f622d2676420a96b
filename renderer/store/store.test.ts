import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, type Element, type PendingApproval, type ReceiptEntry, type UiSnapshot, type WindowInfo } from '../../protocol/index.js';
import { selectSelectedNode } from './selectors.js';
import { filterRows } from '../model/receiptFilter.js';
import { groupReceipts } from '../model/receiptRows.js';
import { createAppStore } from './store.js';

const win = (id: string): WindowInfo => ({ window: id, title: `Window ${id}`, app: 'fixture', pid: 42, process_start: '1', foreground: false });
const el = (key: string, extra: Partial<Element> = {}): Element => ({ key, role: 'button', state: {}, patterns: [], ...extra });

const tree: Element[] = [
  el('root', {
    role: 'window',
    name: 'Fixture',
    children: [
      el('form', {
        role: 'group',
        name: 'Form',
        children: [el('name', { role: 'edit', name: 'Name', automation_id: 'name_entry' }), el('delete', { name: 'Delete', automation_id: 'delete_btn' })],
      }),
      el('other', { name: 'Other' }),
    ],
  }),
];

const approval = (id: string, key: string, window = 'w1'): PendingApproval => ({
  kind: 'element',
  approval_id: id,
  receipt_id: `r-${id}`,
  session: 's1',
  agent: 'claude',
  action: 'invoke',
  password: false,
  target: el(key, { name: key }),
  ancestor_path: ['window "Fixture"'],
  window: win(window),
  created_at: new Date(0).toISOString(),
  expires_at: new Date(120_000).toISOString(),
  risk_hints: [],
});

const receipt = (seq: number, agent: string, tool: string, outcome: string): ReceiptEntry => ({
  seq,
  at: new Date(seq).toISOString(),
  session: 's1',
  agent,
  tool,
  outcome,
  duration_ms: 3,
  summary: `${tool} ${outcome}`,
});

const snapshot = (extra: Partial<UiSnapshot> = {}): UiSnapshot => ({
  agents: [
    {
      session: 's1',
      client: 'claude',
      transport: 'http',
      since: new Date(0).toISOString(),
      calls: 3,
      pending: 0,
      activated: true,
      last_active: new Date(0).toISOString(),
    },
  ],
  windows: [win('w1'), win('w2')],
  chosen_window: 'w1',
  tree,
  tree_status: { window: 'w1', state: 'current', read_at: new Date(0).toISOString() },
  pending: [],
  held: [],
  receipts: [receipt(1, 'claude', 'window_list', 'completed')],
  brake: 'running',
  helper: { state: 'ready', restarts: 0 },
  settings: DEFAULT_SETTINGS,
  rules: [],
  grants: [],
  connections: { list: [{ name: 'local', kind: 'local', where: 'this desktop', enabled: true, status: 'up' }], viewed: 'local' },
  connection: {
    mcp_url: 'http://127.0.0.1:7399/mcp',
    stdio_command: ['/usr/bin/node', '/opt/overseer/bin/overseer.mjs', 'mcp', '--data-dir', '/home/a/.local/share/overseer'],
  },
  ...extra,
});

describe('app store', () => {
  it('applies a snapshot, then a pending event, then a receipt', () => {
    const store = createAppStore();
    store.getState().applyEvent({ event: 'snapshot', data: snapshot() });
    let s = store.getState();
    assert.equal(s.ready, true);
    assert.equal(s.agents.length, 1);
    assert.equal(s.nodes.length, 5);
    assert.equal(s.receipts.length, 1);
    assert.equal(s.pending.length, 0);

    store.getState().applyEvent({ event: 'pending_delta', data: { added: [approval('a1', 'delete')], removed: [] } });
    store.getState().settle();
    s = store.getState();
    assert.equal(s.pending.length, 1);
    assert.equal(s.selectedApproval, 'a1', 'the first card is selected once it is shown');
    assert.equal(s.selectedKey, 'delete');

    store.getState().applyEvent({ event: 'receipt', data: receipt(2, 'claude', 'element_act', 'completed') });
    assert.deepEqual(
      store.getState().receipts.map((r) => r.seq),
      [1, 2],
    );

    store.getState().applyEvent({ event: 'snapshot', data: snapshot({ receipts: [], tree: [] }) });
    s = store.getState();
    assert.equal(s.receipts.length, 0, 'a snapshot replaces everything');
    assert.equal(s.pending.length, 0);
    assert.equal(s.selectedApproval, undefined);
  });

  it('takes how agents connect from its own event: the shared token shown again once it is turned back on', () => {
    const store = createAppStore();
    store.getState().applyEvent({ event: 'snapshot', data: snapshot() });
    assert.equal(store.getState().agentConnect?.mcp_token, undefined, 'the snapshot came while the token was off');
    const on = { ...snapshot().connection, mcp_token: 'ovr_shared' };
    store.getState().applyEvent({ event: 'agent_connect', data: on });
    assert.deepEqual(store.getState().agentConnect, on);
  });

  it('selecting a card selects its target key and expands its ancestors', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot({ pending: [approval('a1', 'other'), approval('a2', 'name')] }));
    store.getState().settle();
    store.getState().toggleCollapsed('form');
    store.getState().toggleCollapsed('root');
    store.getState().selectApproval('a2');
    const s = store.getState();
    assert.equal(s.selectedApproval, 'a2');
    assert.equal(s.selectedKey, 'name');
    assert.equal(s.collapsed.has('form'), false);
    assert.equal(s.collapsed.has('root'), false);
  });

  it('keeps the target selected when its window tree arrives later', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot({ chosen_window: 'w2', tree: [], pending: [approval('a1', 'delete', 'w1')] }));
    store.getState().settle();
    store.getState().setChosenWindow('w1');
    store.getState().applyEvent({ event: 'tree', data: { window: 'w1', elements: tree, truncated_by: [], read_at: new Date(0).toISOString() } });
    const s = store.getState();
    assert.equal(s.selectedKey, 'delete');
    assert.ok(s.byKey.has('delete'));
  });

  it('keeps the selected element and shows its new value when a changed tree arrives', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot());
    store.getState().selectKey('name');
    const changed: Element[] = [
      el('root', {
        role: 'window',
        name: 'Fixture',
        children: [el('form', { role: 'group', name: 'Form', children: [el('name', { role: 'edit', name: 'Name', value: 'Bob' })] })],
      }),
    ];
    store.getState().applyEvent({ event: 'tree', data: { window: 'w1', elements: changed, truncated_by: [], read_at: new Date(5000).toISOString() } });
    const s = store.getState();
    assert.equal(s.selectedKey, 'name');
    assert.equal(selectSelectedNode(s)?.element.value, 'Bob');
    assert.equal(s.treeReadAt, new Date(5000).toISOString());
  });

  it('filters receipts by agent, tool and outcome', () => {
    const store = createAppStore();
    store
      .getState()
      .setReceipts([
        receipt(1, 'claude', 'window_read', 'completed'),
        receipt(2, 'codex', 'element_act', 'refused'),
        receipt(3, 'claude', 'element_act', 'completed'),
      ]);
    const s = () => store.getState();
    s().setReceiptFilter('agent', 'claude');
    assert.deepEqual(
      filterRows(groupReceipts(s().receipts), s().receiptFilters, 0).map((r) => r.seq),
      [1, 3],
    );
    s().setReceiptFilter('tool', 'element_act');
    assert.deepEqual(
      filterRows(groupReceipts(s().receipts), s().receiptFilters, 0).map((r) => r.seq),
      [3],
    );
    s().setReceiptFilter('agent', undefined);
    s().setReceiptFilter('tool', undefined);
    s().setReceiptFilter('outcome', 'refused');
    assert.deepEqual(
      filterRows(groupReceipts(s().receipts), s().receiptFilters, 0).map((r) => r.seq),
      [2],
    );
  });

  it('searches the tree by name, role and automation id and steps through matches', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot());
    const s = () => store.getState();
    s().setSearch('delete_btn');
    assert.deepEqual(s().matches, ['delete']);
    assert.equal(s().selectedKey, 'delete');
    s().setSearch('EDIT');
    assert.deepEqual(s().matches, ['name']);
    s().setSearch('f');
    assert.deepEqual(s().matches, ['root', 'form']);
    assert.equal(s().selectedKey, 'root');
    s().stepMatch(1);
    assert.equal(s().selectedKey, 'form');
    s().stepMatch(1);
    assert.equal(s().selectedKey, 'root', 'stepping wraps around');
  });

  it('ignores a late tree for a window no longer chosen', () => {
    const store = createAppStore();
    store.getState().applySnapshot(snapshot({ chosen_window: 'w2', tree: [] }));
    store.getState().applyEvent({ event: 'tree', data: { window: 'w1', elements: tree, truncated_by: [], read_at: new Date(0).toISOString() } });
    assert.equal(store.getState().nodes.length, 0);
  });
});

describe('search across tree arrivals', () => {
  it('selects the first match of a search typed before the tree arrived', () => {
    const store = createAppStore();
    store.getState().setSearch('Target');
    store
      .getState()
      .setTree('w1', [
        { key: 'r', role: 'window', name: 'W', state: {}, patterns: [], children: [{ key: 'a', role: 'button', name: 'Target', state: {}, patterns: [] }] },
      ]);
    assert.equal(store.getState().selectedKey, 'a');
  });
});
