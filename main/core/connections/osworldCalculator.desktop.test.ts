// 7 + 3 = on a calculator in an OSWorld "VM", the way an agent on an osworld_http connection works:
// it reads the VM's tree for where the buttons are, takes a screenshot, and clicks there bound to it
// (element_act is refused on this connection). The result is read twice: through the connection, and
// independently by an AT-SPI helper on the VM's own desktop. This desktop runs its own calculator,
// whose every name and value must read the same after as before. galculator (GTK3), because
// OSWorld's tree has rects only for accessibles that are visible and showing, and GTK4's
// gnome-calculator does not say its buttons are showing: through this connection they have no rect.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import type { Element } from '../../../protocol/index.js';
import { startOsworldServer, type OsworldServer } from '../../testing/osworldServer.js';
import { spawnHelper, type HelperProcess } from '../helperLink/helperProcess.js';
import { osworldTarget } from './osworldTarget.js';

const flatten = (els: Element[]): Element[] => els.flatMap((e) => [e, ...flatten(e.children ?? [])]);

/** Every name and value of the calculator window: what it shows now. */
async function display(helper: HelperProcess): Promise<string[]> {
  const list = await helper.call('window_list', {});
  const calc = list.windows.find((w) => /culator/i.test(w.title));
  assert.ok(calc !== undefined, JSON.stringify(list.windows.map((w) => w.title)));
  const read = await helper.call('window_read', { window: calc.window, max_nodes: 5000, max_tokens: 200_000 });
  return flatten(read.elements).flatMap((e) => [e.name ?? '', e.value ?? '']);
}

describe('7 + 3 = on a calculator through an osworld_http connection', () => {
  let local: PrivateDesktop;
  let vm: PrivateDesktop;
  let server: OsworldServer;
  let remote: HelperProcess;
  let localHelper: HelperProcess;
  let vmOwnHelper: HelperProcess;

  before(async () => {
    [local, vm] = await Promise.all([startPrivateDesktop({ width: 1024, height: 768 }), startPrivateDesktop({ width: 1024, height: 768 })]);
    await Promise.all([local.launch('galculator', [], { waitForWindow: 'galculator' }), vm.launch('galculator', [], { waitForWindow: 'galculator' })]);
    server = await startOsworldServer(vm);
    const target = osworldTarget({ name: 'vm1', kind: 'osworld_http', enabled: true, url: server.url }, { log: () => {} });
    // The connection's helper runs with this desktop's environment; the VM is reached only over HTTP.
    remote = target.spawnHelper({ ...local.env, OVERSEER_HELPER_SELF_CHECK: '1' });
    localHelper = spawnHelper(local.env);
    vmOwnHelper = spawnHelper(vm.env);
  });

  after(async () => {
    await Promise.all([remote?.close(), localHelper?.close(), vmOwnHelper?.close()]);
    await server?.stop();
    await Promise.all([local?.stop(), vm?.stop()]);
  });

  it('computes 10 in the VM by screenshot and click, read there two ways, and this desktop is untouched', async (t) => {
    let t0 = performance.now();
    const localBefore = await display(localHelper);
    t.diagnostic(`# local read ${(performance.now() - t0).toFixed(0)} ms`);
    t0 = performance.now();
    const calc = (await remote.call('window_list', {})).windows.find((w) => /culator/i.test(w.title));
    assert.ok(calc !== undefined, 'the VM calculator is listed through the connection');
    t.diagnostic(`# remote list ${(performance.now() - t0).toFixed(0)} ms`);
    const started = performance.now();
    for (const name of ['7', '+', '3', '=']) {
      const found = await remote.call('element_find', { window: calc.window, selector: { role: 'toggle_button', name } });
      const rect: { cx: number; cy: number } | undefined = found.matches[0]?.rect;
      assert.ok(found.match_count === 1 && rect !== undefined, `${name}: ${JSON.stringify(found.matches)}`);
      const shot = await remote.call('screen_capture', { keep: true });
      const r: { dispatched: boolean } = await remote.call('screen_input', {
        op: 'click',
        point: { x: rect.cx, y: rect.cy },
        button: 'left',
        count: 1,
        bound: shot.capture,
      });
      assert.equal(r.dispatched, true);
    }
    t.diagnostic(`# four bound clicks (find, screenshot, click each) through the osworld connection: ${(performance.now() - started).toFixed(0)} ms`);
    let through: string[] = [];
    for (let i = 0; i < 30 && !through.some((v) => v.trim() === '10'); i++) {
      await sleep(200);
      through = await display(remote);
    }
    assert.ok(
      through.some((v) => v.trim() === '10'),
      `read through the connection: ${JSON.stringify(through)}`,
    );
    const own = await display(vmOwnHelper);
    assert.ok(
      own.some((v) => v.trim() === '10'),
      `read on the VM's own desktop: ${JSON.stringify(own)}`,
    );
    assert.deepEqual(await display(localHelper), localBefore, 'this desktop’s calculator shows what it showed before');
    const act = await remote.call('element_act', { window: calc.window, selector: { role: 'toggle_button', name: '=' }, action: 'toggle' });
    assert.equal(act.refusal?.code, 'pattern_unsupported', 'element_act stays refused: the screen tier is how this connection acts');
  });
});
