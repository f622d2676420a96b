import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Element } from '../../../protocol/index.js';
import { FIXTURE } from '../../contract/atspiLane.js';
import { startTestDesktop, type TestDesktop } from '../../../e2e/desktop/testDesktop.js';
import { spawnHelper, type HelperProcess } from '../../rpc/helperProcess.js';
import { A11yBus } from './dbus.js';
import { I } from './atspiNode.js';
import { refOf } from './refs.js';

const comparable = (els: Element[]): unknown[] => els.map((e) => [e.key, e.role, e.name, e.automation_id, e.value, e.state, e.rect, e.depth, e.parent]);

describe('atspi cache: fresh and faithful', () => {
  let desktop: TestDesktop;
  let bulk: HelperProcess;
  let walk: HelperProcess;
  let window: string;

  before(async () => {
    desktop = await startTestDesktop();
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
