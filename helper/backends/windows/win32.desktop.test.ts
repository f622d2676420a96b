import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Element, Selector } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { prepareWindows, prepareWine, wineUnavailable, type WindowsLane } from '../../../e2e/windows/lanes.js';
import { spawnHelper, type HelperProcess } from '../../../main/core/helperLink/helperProcess.js';

const native = process.platform === 'win32';
const why = native ? undefined : wineUnavailable();

/**
 * What only Windows backends do, beyond the shared contract (helper/contract/windows.desktop.test.ts):
 * choosing and falling back between UIA and the Win32 tier, the COM layer against real COM
 * objects, list box selection with its notification, and notepad. Under Wine here; on Windows in CI.
 */
describe(native ? 'the Windows backends on Windows' : 'the Windows backends under Wine', { skip: why }, () => {
  let desktop: PrivateDesktop | undefined;
  let lane: WindowsLane;
  let helper: HelperProcess;
  let win: string;
  let log: string;
  const viaUia = (): boolean => lane.backend === 'uia';

  const find = (selector: Selector, window = win) => helper.call('element_find', { window, selector });
  const waitFor = async (selector: Selector, test: (e: Element) => boolean): Promise<Element> => {
    for (let i = 0; i < 50; i++) {
      const e = (await find(selector)).matches[0];
      if (e !== undefined && test(e)) return e;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`no element ${JSON.stringify(selector)} became as expected`);
  };
  const windowId = async (title: string): Promise<string> => {
    for (let i = 0; i < 100; i++) {
      const w = (await helper.call('window_list', {})).windows.find((x) => x.title === title);
      if (w !== undefined) return w.window;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`no window "${title}" appeared`);
  };

  before(async () => {
    if (native) lane = prepareWindows();
    else {
      desktop = await startPrivateDesktop();
      lane = prepareWine(desktop.env);
    }
    log = join(desktop?.dir ?? lane.appDir, 'windows-helper.log');
    lane.launch(lane.fixtureExe, ['--rows', '40']);
    helper = spawnHelper({ ...process.env, ...desktop?.env }, lane.helperCommand(log, lane.backend));
    win = await windowId('Overseer Fixture');
  });

  after(async () => {
    await helper?.close();
    lane?.stop();
    await desktop?.stop();
  });

  it(
    'falls back from UI Automation to the Win32 tier and says why (Wine 8 has no CUIAutomation)',
    { skip: native && 'UI Automation exists on Windows' },
    async () => {
      const hello = await helper.call('hello', { client: 'wine-test' });
      assert.equal(hello.backend, 'win32');
      assert.match(hello.fallback_reason ?? '', /UI Automation is unavailable: CoCreateInstance\(IUIAutomation\) answered 0x80040154 REGDB_E_CLASSNOTREG/);
      assert.match(await readFile(log, 'utf8'), /falling back to the Win32 tier/);
    },
  );

  it(
    'answers backend "uia" with every call refused and the reason, when UI Automation cannot be created',
    { skip: native && 'UI Automation exists on Windows' },
    async () => {
      const uia = spawnHelper({ ...process.env, ...desktop?.env }, lane.helperCommand(`${log}.uia`, 'uia'));
      try {
        assert.equal((await uia.call('hello', { client: 'wine-test' })).backend, 'uia');
        await assert.rejects(
          uia.call('window_list', {}),
          (e: { code?: string; message?: string }) => e.code === 'accessibility_unavailable' && /REGDB_E_CLASSNOTREG/.test(e.message ?? ''),
        );
      } finally {
        await uia.close();
      }
    },
  );

  it('runs UI Automation where it exists', { skip: !native && 'Wine 8 cannot create CUIAutomation' }, async () => {
    const hello = await helper.call('hello', { client: 'windows-test' });
    assert.equal(hello.backend, lane.backend);
    assert.equal(hello.fallback_reason, undefined);
  });

  it('calls real COM objects through vtables: BSTRs, VARIANTs, SAFEARRAYs, and no leaked or doubly released reference', () => {
    const out = JSON.parse(lane.runScript('helper/backends/windows/com/comSelfTest.ts')) as Record<string, unknown>;
    assert.equal(out['error'], undefined, String(out['error']));
    assert.equal(out['bstr'], 'Привет, мир — BSTR');
    assert.equal(out['count'], 2);
    assert.equal(out['name'], 'Мария');
    assert.equal(out['half'], 0.5);
    assert.equal(out['exists'], true);
    assert.equal(out['doubleReleaseIsNoop'], true);
    assert.equal(out['queryDispatch'], true, 'QueryInterface finds an interface the object has');
    assert.equal(out['queryMissing'], true, 'and answers none for one it lacks');
    assert.deepEqual(out['array'], [10, 20, -30]);
    if (!native) assert.match(String(out['uia']), /REGDB_E_CLASSNOTREG/);
    assert.equal(out['live'], 0, 'every interface pointer was released once');
  });

  it('selects a list box row with its notification, and the application sees it', async () => {
    const r = await helper.call('element_act', { window: win, selector: { role: 'list_item', name: 'Row 7' }, action: 'select' });
    assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
    assert.equal(r.path, viaUia() ? 'uia:SelectionItemPattern.Select' : 'win32:LB_SETCURSEL+LBN_SELCHANGE');
    assert.equal(r.verification, 'verified');
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'Status: row Row 7');
  });

  it('reads and writes notepad', async () => {
    lane.launch(lane.notepad.command);
    const pad = await windowId(lane.notepad.title);
    const r = await helper.call('element_act', {
      window: pad,
      selector: { role: viaUia() ? 'document' : 'edit' },
      action: 'set_value',
      text: 'Hello from Overseer',
    });
    assert.equal(r.verification, 'verified', JSON.stringify(r));
  });
});
