import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, type UiSnapshot } from '../../protocol/index.js';
import { groupReceipts } from '../model/receiptRows.js';
import { nineActs } from '../testing/receiptFixtures.js';
import { createAppStore } from './store.js';

describe('receipts in the store', () => {
  it('groups the snapshot with the older receipts_backfill chunks into the same rows', () => {
    const store = createAppStore();
    const all = nineActs();
    const snap: UiSnapshot = {
      agents: [],
      windows: [],
      tree_status: { state: 'none' },
      pending: [],
      held: [],
      receipts: all.slice(5),
      brake: 'running',
      helper: { state: 'ready', restarts: 0 },
      settings: DEFAULT_SETTINGS,
      rules: [],
      grants: [],
      connections: { list: [{ name: 'local', kind: 'local', where: 'this desktop', enabled: true, status: 'up' }], viewed: 'local' },
      connection: { mcp_url: '', stdio_command: [] },
    };
    store.getState().applyEvent({ event: 'snapshot', data: snap });
    assert.equal(groupReceipts(store.getState().receipts).find((r) => r.key === 'r:A3')?.records.length, 1, 'only the action_wait came so far');
    store.getState().applyEvent({ event: 'receipts_backfill', data: all.slice(2, 5) });
    store.getState().applyEvent({ event: 'receipts_backfill', data: all.slice(0, 2) });
    store.getState().applyEvent({ event: 'receipts_backfill', data: all.slice(0, 2) });
    const out = groupReceipts(store.getState().receipts);
    assert.equal(out.length, 10);
    assert.deepEqual(
      out.find((r) => r.key === 'r:A3')?.records.map((r) => r.seq),
      [4, 5, 6],
    );
  });
});
