import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Element } from '../../../protocol/index.js';
import { FIXTURE } from '../../contract/atspiLane.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { spawnHelper, type HelperProcess } from '../../../main/core/helperLink/helperProcess.js';
import { A11yBus } from './dbus.js';
import { I } from './atspiNode.js';
import { refOf } from './refs.js';

const comparable = (els: Element[]): unknown[] => els.map((e) => [e.key, e.role, e.name, e.automation_id, e.value, e.state, e.rect, e.depth, e.parent]);

describe('atspi cache: fresh and faithful', () => {
  let desktop: PrivateDesktop;
  let bulk: HelperProcess;
  let walk: HelperProcess;
  let window: string;

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '200'], { waitForWindow: 'Overseer Fixture' });
    bulk = spawnHelper(desktop.env);
    walk = spawnHelper({ ...desktop.env, OVERSEER_ATSPI_NO_BULK: '1' });
    window = (await bulk.call('window_list', {})).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
  });
  after(async () => {
    await bulk?.close();
    await walk?.close();
    await desktop?.stop();
  });

  it('reads the same tree from the bulk cache as from a plain walk', async () => {
    const params = { window, format: 'flat' as const, max_nodes: 5000, max_tokens: 200_000 };
    const a = await bulk.call('window_read', params);
    const b = await walk.call('window_read', params);
    assert.equal(a.node_count, b.node_count);
    assert.deepEqual(comparable(a.elements), comparable(b.elements));
  });

  it('answers concurrent finds on a cold cache each rightly, and goes on doing so (never a false not found)', async () => {
    // A fresh helper: its first contact with the application is a burst of concurrent scans.
    const fresh = spawnHelper(desktop.env);
    try {
      const win = (await fresh.call('window_list', {})).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
      const ids = ['counter', 'dup_a', 'dup_b', 'save_ru', 'hello_ru', 'name_entry', 'subscribe', 'quantity'];
      for (let round = 0; round < 4; round++) {
        const found = await Promise.all(ids.map((id) => fresh.call('element_find', { window: win, selector: { automation_id: id } })));
        assert.deepEqual(
          found.map((f) => f.match_count),
          ids.map(() => 1),
          `round ${round}: ${ids.map((id, i) => `${id}=${found[i]?.match_count}`).join(' ')}`,
        );
      }
      const checks = await Promise.all(
        ids.map((id) => fresh.call('element_act', { window: win, selector: { automation_id: id }, action: 'focus', check_only: true })),
      );
      assert.deepEqual(
        checks.map((c) => c.refusal?.code ?? c.outcome),
        ids.map(() => 'pending'),
      );
    } finally {
      await fresh.close();
    }
  });

  it('never serves a stale value after another client changed the application', async () => {
    const entry = (await bulk.call('element_find', { window, selector: { automation_id: 'name_entry' } })).matches[0];
    const ref = entry === undefined ? undefined : refOf(entry.key);
    assert.ok(ref);
    process.env['AT_SPI_BUS_ADDRESS'] = desktop.a11yBusAddress;
    const other = await A11yBus.connect();
    try {
      for (let i = 0; i < 25; i++) {
        await bulk.call('window_read', { window, max_nodes: 5000 });
        const text = `outside change ${i}`;
        await other.call(ref.bus, ref.path, I.editableText, 'SetTextContents', 2000, 's', [text]);
        const r = await bulk.call('window_read', { window, max_nodes: 5000, format: 'flat' });
        assert.equal(r.elements.find((e) => e.automation_id === 'name_entry')?.value, text, `round ${i}`);
      }
    } finally {
      other.disconnect();
      delete process.env['AT_SPI_BUS_ADDRESS'];
    }
  });
});
