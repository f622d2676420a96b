import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Element, HelperResult, Selector } from '../../../protocol/index.js';
import { startTestDesktop, type TestDesktop } from '../../../e2e/desktop/testDesktop.js';
import { prepareWindows, prepareWine, wineUnavailable, type WindowsLane } from '../../../e2e/windows/lanes.js';
import { spawnHelper, type HelperProcess } from '../../rpc/helperProcess.js';

const FIXTURE_TITLE = 'Overseer Win32 Fixture';
const native = process.platform === 'win32';
const why = native ? undefined : wineUnavailable();

/**
 * The Windows backends against real Win32 applications (a mingw-built fixture and notepad). Under
 * Wine (here): the helper in the Windows build of Node.js, where UI Automation cannot be created,
 * so `auto` falls back to the Win32 tier and its message contracts. On Windows (the CI workflow):
 * the same behaviours through UI Automation and its patterns.
 */
describe(native ? 'the UIA backend on Windows' : 'the Win32 tier under Wine', { skip: why }, () => {
  let desktop: TestDesktop | undefined;
  let wine: WindowsLane;
  /** What a behaviour is called through, by backend. */
  const viaUia = (): boolean => wine.backend === 'uia';
  const path = (win32: string, uia: string): string => (viaUia() ? uia : win32);
  const on = (e: Element | undefined): boolean => e?.state.checked === true || e?.state.selected === true;
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
    if (native) wine = prepareWindows();
    else {
      desktop = await startTestDesktop();
      wine = prepareWine(desktop.env);
    }
    log = join(desktop?.dir ?? wine.appDir, 'windows-helper.log');
    wine.launch(wine.fixtureExe);
    helper = spawnHelper({ ...process.env, ...desktop?.env }, wine.helperCommand(log, wine.backend));
    win = await windowId(FIXTURE_TITLE);
  });

  after(async () => {
    await helper?.close();
    wine?.stop();
    await desktop?.stop();
  });


  it('falls back from UI Automation to the Win32 tier and says why (Wine 8 has no CUIAutomation)', { skip: native && 'UI Automation exists on Windows' }, async () => {
    const hello = await helper.call('hello', { client: 'wine-test' });
    assert.equal(hello.backend, 'win32');
    assert.match(hello.fallback_reason ?? '', /UI Automation is unavailable: CoCreateInstance\(IUIAutomation\) answered 0x80040154 REGDB_E_CLASSNOTREG/);
    assert.match(await readFile(log, 'utf8'), /falling back to the Win32 tier/);
  });

  it('answers backend "uia" with every call refused and the reason, when UI Automation cannot be created', { skip: native && 'UI Automation exists on Windows' }, async () => {
    const uia = spawnHelper({ ...process.env, ...desktop?.env }, wine.helperCommand(`${log}.uia`, 'uia'));
    try {
      assert.equal((await uia.call('hello', { client: 'wine-test' })).backend, 'uia');
      await assert.rejects(uia.call('window_list', {}), (e: { code?: string; message?: string }) => e.code === 'accessibility_unavailable' && /REGDB_E_CLASSNOTREG/.test(e.message ?? ''));
    } finally {
      await uia.close();
    }
  });

  it('runs UI Automation where it exists', { skip: !native && 'Wine 8 cannot create CUIAutomation' }, async () => {
    const hello = await helper.call('hello', { client: 'windows-test' });
    assert.equal(hello.backend, wine.backend);
    assert.equal(hello.fallback_reason, undefined);
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
    assert.match(by('1005')?.name ?? '', /^Name:?$/, 'an edit is named by the label before it');
    assert.equal(by('1005')?.value, 'Alice');
    assert.equal(by('1006')?.state.password, true);
    assert.equal(by('1006')?.value, undefined);
    assert.equal(by('1007')?.role, 'check_box');
    assert.ok(on(by('1008')), 'the selected radio button');
    assert.equal(by('1010')?.role, 'combo_box');
    assert.equal(by('1010')?.value, 'Red');
    assert.equal(by('1014')?.state.enabled, false);
    assert.equal(by('1012')?.name, 'Привет, мир — ünïcödé');
    assert.ok((r.elements ?? []).filter((e) => e.role === 'list_item').length >= 20, 'list items are children');
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
    assert.equal(r.path, path('win32:BM_CLICK', 'uia:InvokePattern.Invoke'));
    await waitFor({ automation_id: '1002' }, (e) => e.name === 'Clicks: 1');
  });

  it('sets text with WM_SETTEXT, verified by reading back, and the application saw it', async () => {
    const r = await act({ automation_id: '1005' }, 'set_value', 'Мария Müller');
    assert.equal(r.outcome, 'completed');
    assert.equal(r.path, path('win32:WM_SETTEXT', 'uia:ValuePattern.SetValue'));
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
    assert.equal(on(await one({ automation_id: '1008' })), false);
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'size: large');
  });

  it('selects combo box and list box items with their notifications', async () => {
    const c = await act({ role: 'list_item', name: 'Green' }, 'select');
    assert.equal(c.path, path('win32:CB_SETCURSEL+CBN_SELCHANGE', 'uia:SelectionItemPattern.Select'));
    assert.equal(c.verification, 'verified', JSON.stringify(c));
    assert.equal((await one({ automation_id: '1010' })).value, 'Green');
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'color=Green');
    const l = await act({ role: 'list_item', name: 'Item 7' }, 'select');
    assert.equal(l.path, path('win32:LB_SETCURSEL+LBN_SELCHANGE', 'uia:SelectionItemPattern.Select'));
    assert.equal(l.verification, 'verified');
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'list=Item 7');
  });

  it('refuses unsupported actions with the supported list, and disabled controls, without dispatching', async () => {
    const label = await act({ automation_id: '1012' }, 'toggle');
    assert.equal(label.refusal?.code, 'pattern_unsupported');
    assert.ok(Array.isArray(label.refusal?.data?.['supported']));
    if (!viaUia()) {
      const expand = await act({ automation_id: '1010' }, 'expand');
      assert.equal(expand.refusal?.code, 'pattern_unsupported', 'the Win32 tier has no message contract for expanding');
      const focus = await act({ automation_id: '1005' }, 'focus');
      assert.equal(focus.refusal?.code, 'pattern_unsupported', 'no foreground input: focus is not offered');
    }
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

  it('calls real COM objects through vtables: BSTRs, VARIANTs, SAFEARRAYs, and no leaked or doubly released reference', () => {
    const out = JSON.parse(wine.runScript('helper/backends/windows/com/comSelfTest.ts')) as Record<string, unknown>;
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
    assert.match(String(out['uia']), /REGDB_E_CLASSNOTREG/);
    assert.equal(out['live'], 0, 'every interface pointer was released once');
  });

  it('answers a frozen application within timeout_ms plus grace, partially, and is never wedged', async () => {
    const r = await act({ automation_id: '1019' }, 'invoke');
    assert.equal(r.outcome, 'completed', 'the click is posted: a busy application does not hold the helper');
    await new Promise((res) => setTimeout(res, 300));
    const t0 = Date.now();
    const read = await helper.call('window_read', { window: win, timeout_ms: 1000 });
    const took = Date.now() - t0;
    assert.ok(took < 1000 + 750, `answered in ${took} ms`);
    assert.ok(read.truncated_by.includes('timeout'), JSON.stringify(read.truncated_by));
    await waitFor({ automation_id: '1016' }, (e) => e.name === 'thawed');
    const thawed = await helper.call('window_read', { window: win });
    assert.deepEqual(thawed.truncated_by, []);
  });

  it('reads and writes notepad', async () => {
    wine.launch(wine.notepad.command);
    const pad = await windowId(wine.notepad.title);
    const r = await helper.call('element_act', { window: pad, selector: { role: viaUia() ? 'document' : 'edit' }, action: 'set_value', text: 'Hello from Overseer' });
    assert.equal(r.verification, 'verified', JSON.stringify(r));
  });
});
