import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Element, HelperResult, Selector } from '../../../protocol/index.js';
import { startTestDesktop, type TestDesktop } from '../../../e2e/desktop/testDesktop.js';
import { prepareWine, wineUnavailable, type WineLane } from '../../../e2e/wine/wineLane.js';
import { spawnHelper, type HelperProcess } from '../../rpc/helperProcess.js';

const FIXTURE_TITLE = 'Overseer Win32 Fixture';
const why = wineUnavailable();

/**
 * The Win32 tier for real: the helper in the Windows build of Node.js under Wine, driving a
 * mingw-built Win32 fixture and Wine's notepad through their message contracts.
 */
describe('the Win32 tier under Wine', { skip: why }, () => {
  let desktop: TestDesktop;
  let wine: WineLane;
  let helper: HelperProcess;
  let win: string;
  let log: string;

  const find = (selector: Selector, window = win) => helper.call('element_find', { window, selector });
  const one = async (selector: Selector, window = win): Promise<Element> => {
    const r = await find(selector, window);
    assert.equal(r.match_count, 1, JSON.stringify(r).slice(0, 500));
    return r.matches[0] as Element;
  };
  const act = (selector: Selector, action: HelperResult<'element_act'>['action'], text?: string) => helper.call('element_act', { window: win, selector, action, ...(text !== undefined ? { text } : {}) });
  const waitFor = async (selector: Selector, test: (e: Element) => boolean, window = win): Promise<Element> => {
    for (let i = 0; i < 50; i++) {
      const r = await find(selector, window);
      const e = r.matches[0];
      if (e !== undefined && test(e)) return e;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`no element ${JSON.stringify(selector)} became as expected`);
  };
  const windowId = async (title: string): Promise<string> => {
    for (let i = 0; i < 100; i++) {
      const list = await helper.call('window_list', {});
      const w = list.windows.find((x) => x.title === title);
      if (w !== undefined) return w.window;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`no window "${title}" appeared`);
  };

  before(async () => {
    desktop = await startTestDesktop();
    wine = prepareWine(desktop.env);
    log = join(desktop.dir, 'wine-helper.log');
    wine.launch(wine.fixtureExe);
    helper = spawnHelper({ ...process.env, ...desktop.env }, wine.helperCommand(log, 'auto'));
    win = await windowId(FIXTURE_TITLE);
  });

  after(async () => {
    await helper?.close();
    wine?.stop();
    await desktop?.stop();
  });

  it('falls back from UI Automation to the Win32 tier and says why (Wine 8 has no CUIAutomation)', async () => {
    const hello = await helper.call('hello', { client: 'wine-test' });
    assert.equal(hello.backend, 'win32');
    assert.match(hello.fallback_reason ?? '', /UI Automation is unavailable: CoCreateInstance\(IUIAutomation\) answered 0x80040154 REGDB_E_CLASSNOTREG/);
    assert.match(await readFile(log, 'utf8'), /falling back to the Win32 tier/);
  });

  it('lists the fixture window with its process identity and rect', async () => {
    const list = await helper.call('window_list', {});
    const w = list.windows.find((x) => x.window === win);
    assert.ok(w);
    assert.equal(w.app, 'win32Fixture');
    assert.match(w.process_start, /^\d{15,}$/, 'a FILETIME creation time');
    assert.ok(w.pid > 0);
    assert.ok(w.rect !== undefined && w.rect.w > 100);
  });

  it('reads the child windows as a tree with roles, names, ids, states and values; never a password', async () => {
    const r = await helper.call('window_read', { window: win, format: 'flat' });
    const by = (id: string) => r.elements?.find((e) => e.automation_id === id);
    assert.equal(by('1001')?.role, 'button');
    assert.equal(by('1001')?.name, 'Count');
    assert.equal(by('1005')?.role, 'edit');
    assert.equal(by('1005')?.name, 'Name', 'an edit is named by the label before it');
    assert.equal(by('1005')?.value, 'Alice');
    assert.equal(by('1006')?.state.password, true);
    assert.equal(by('1006')?.value, undefined);
    assert.equal(by('1007')?.role, 'check_box');
    assert.equal(by('1008')?.state.checked, true);
    assert.equal(by('1010')?.role, 'combo_box');
    assert.equal(by('1010')?.value, 'Red');
    assert.equal(by('1014')?.state.enabled, false);
    assert.equal(by('1012')?.name, 'Привет, мир — ünïcödé');
    assert.ok((r.elements ?? []).filter((e) => e.role === 'list_item').length === 23, 'combo and list items are children');
    assert.deepEqual(r.truncated_by, []);
  });

  it('refuses a duplicate name as ambiguous and picks with nth', async () => {
    const r = await find({ role: 'button', name: 'duplicate' });
    assert.equal(r.match_count, 2);
    const second = await helper.call('element_find', { window: win, selector: { role: 'button', name: 'Duplicate', nth: 1 } });
    assert.equal(second.matches[0]?.automation_id, '1004');
  });

  it('invokes a button with BM_CLICK and the application shows the effect', async () => {
    const r = await act({ automation_id: '1001' }, 'invoke');
    assert.equal(r.outcome, 'completed', JSON.stringify(r));
    assert.equal(r.path, 'win32:BM_CLICK');
    await waitFor({ automation_id: '1002' }, (e) => e.name === 'Clicks: 1');
  });

  it('sets text with WM_SETTEXT, verified by reading back, and the application saw it', async () => {
    const r = await act({ automation_id: '1005' }, 'set_value', 'Мария Müller');
    assert.equal(r.outcome, 'completed');
    assert.equal(r.path, 'win32:WM_SETTEXT');
    assert.equal(r.verification, 'verified');
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'name=Мария Müller');
  });

  it('sets a password without reading it back or echoing it', async () => {
    const r = await act({ automation_id: '1006' }, 'set_value', 's3cret');
    assert.equal(r.outcome, 'completed');
    assert.equal(r.verification, 'not_checked');
    assert.ok(!JSON.stringify(r).includes('s3cret'));
  });

  it('toggles a check box and selects a radio button, each verified', async () => {
    const t = await act({ automation_id: '1007' }, 'toggle');
    assert.equal(t.verification, 'verified', JSON.stringify(t));
    assert.equal((await one({ automation_id: '1007' })).state.checked, true);
    const s = await act({ automation_id: '1009' }, 'select');
    assert.equal(s.verification, 'verified');
    assert.equal((await one({ automation_id: '1008' })).state.checked, false);
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'size: large');
  });

  it('selects combo box and list box items with their notifications', async () => {
    const c = await act({ role: 'list_item', name: 'Green' }, 'select');
    assert.equal(c.path, 'win32:CB_SETCURSEL+CBN_SELCHANGE');
    assert.equal(c.verification, 'verified', JSON.stringify(c));
    assert.equal((await one({ automation_id: '1010' })).value, 'Green');
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'color=Green');
    const l = await act({ role: 'list_item', name: 'Item 7' }, 'select');
    assert.equal(l.path, 'win32:LB_SETCURSEL+LBN_SELCHANGE');
    assert.equal(l.verification, 'verified');
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'list=Item 7');
  });

  it('refuses actions without a known message contract, and disabled controls, without dispatching', async () => {
    const expand = await act({ automation_id: '1010' }, 'expand');
    assert.equal(expand.refusal?.code, 'pattern_unsupported');
    const focus = await act({ automation_id: '1005' }, 'focus');
    assert.equal(focus.refusal?.code, 'pattern_unsupported', 'no foreground input: focus is not offered');
    const off = await act({ automation_id: '1014' }, 'invoke');
    assert.equal(off.refusal?.code, 'not_enabled');
    assert.equal(off.action_call_made, false);
  });

  it('drives a dialog and then answers its closed window stale', async () => {
    await act({ automation_id: '1015' }, 'invoke');
    const dialog = await windowId('Fixture Dialog');
    const ok = await helper.call('element_act', { window: dialog, selector: { role: 'button', name: 'OK' }, action: 'invoke' });
    assert.equal(ok.outcome, 'completed');
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'dialog: OK');
    const gone = await helper.call('window_read', { window: dialog }).catch((e: { code?: string }) => e);
    assert.equal((gone as { code?: string }).code, 'stale_window');
  });

  it('reads and writes Wine’s notepad', async () => {
    wine.launch('notepad');
    const pad = await windowId('Untitled - Notepad');
    const r = await helper.call('element_act', { window: pad, selector: { role: 'edit' }, action: 'set_value', text: 'Hello from Overseer' });
    assert.equal(r.verification, 'verified', JSON.stringify(r));
  });
});
