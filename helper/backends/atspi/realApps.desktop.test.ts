import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Selector } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { spawnHelper, type HelperProcess } from '../../../main/core/helperLink/helperProcess.js';

/** The AT-SPI backend against real Debian applications: GTK3 (widget factory, mousepad) and GTK4 (calculator). */
describe('atspi backend on real applications', () => {
  let desktop: PrivateDesktop;
  let helper: HelperProcess;
  const windows = new Map<string, string>();
  const act = (window: string, selector: Selector, action: 'invoke' | 'toggle' | 'select' | 'set_value', text?: string) =>
    helper.call('element_act', { window, selector, action, ...(text !== undefined ? { text } : {}) });

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('gnome-calculator', [], { waitForWindow: 'Calculator' });
    await desktop.launch('mousepad', [], { waitForWindow: /Mousepad/ });
    await desktop.launch('gtk3-widget-factory', [], { waitForWindow: /.*/ });
    helper = spawnHelper(desktop.env);
    for (let i = 0; i < 50 && windows.size < 3; i++) {
      for (const w of (await helper.call('window_list', {})).windows) windows.set(w.app, w.window);
      if (windows.size < 3) await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await helper?.close();
    await desktop?.stop();
  });

  const win = (app: string): string => {
    const w = windows.get(app);
    assert.ok(w, `${app} is listed (${[...windows.keys()].join(', ')})`);
    return w;
  };

  it('lists each application window with its title', async () => {
    const titles = (await helper.call('window_list', {})).windows.map((w) => `${w.app}: ${w.title}`);
    assert.ok(titles.includes('gnome-calculator: Calculator'), titles.join('; '));
    assert.ok(
      titles.some((t) => /^mousepad: .*Mousepad$/.test(t)),
      titles.join('; '),
    );
    assert.ok(titles.includes('gtk3-widget-factory: gtk3-widget-factory'), 'a frame without a name is titled by its application');
  });

  it('reads GTK4 through its lazily filled cache', async () => {
    const r = await helper.call('window_read', { window: win('gnome-calculator'), max_nodes: 5000, format: 'flat' });
    assert.deepEqual(r.truncated_by, []);
    assert.ok(r.node_count > 50, `${r.node_count} nodes`);
    assert.ok(
      r.elements.some((e) => e.role === 'button' && e.name === '1'),
      'GTK 4.8 names it "1 1": read as a person sees it',
    );
    assert.ok(
      r.elements.filter((e) => e.state.offscreen === true).length < r.elements.length / 4,
      'GTK 4.8 sets no SHOWING: a visible window is not read as offscreen',
    );
  });

  it('computes 1 + 2 = 3 on the GTK4 calculator', async () => {
    const calc = win('gnome-calculator');
    for (const key of ['1', '+', '2', '=']) {
      const r = await act(calc, { role: 'button', name: key }, 'invoke');
      assert.equal(r.outcome, 'completed', `${key}: ${JSON.stringify(r.refusal ?? r.error)}`);
      assert.equal(r.path, 'atspi:Action.DoAction(click)');
    }
    const display = await helper.call('element_find', { window: calc, selector: { role: 'edit', value_contains: '3' }, timeout_ms: 3000 });
    assert.equal(display.match_count, 1, JSON.stringify(display));
    assert.equal(display.matches[0]?.value?.trim(), '3');
  });

  it('writes multi-line Unicode text into mousepad and reads it back', async () => {
    const text = 'первая строка\nsecond line ✓';
    const r = await act(win('mousepad'), { role: 'edit' }, 'set_value', text);
    assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
    assert.equal(r.path, 'atspi:EditableText.SetTextContents');
    assert.equal(r.verification, 'verified');
    assert.equal(r.after?.value, text);
    const title = (await helper.call('window_list', {})).windows.find((w) => w.window === win('mousepad'))?.title;
    assert.match(title ?? '', /^\*/, 'mousepad marks the document modified in its title');
  });

  it('refuses an ambiguous selector in a real application', async () => {
    const r = await act(win('gtk3-widget-factory'), { role: 'edit', value_contains: 'entry' }, 'set_value', 'x');
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'ambiguous');
    assert.equal(r.action_call_made, false);
  });

  it('switches widget-factory pages and toggles a check box', async () => {
    const factory = win('gtk3-widget-factory');
    const page = await act(factory, { role: 'radio_button', name: 'Page 2' }, 'select');
    assert.equal(page.verification, 'verified', JSON.stringify(page.refusal ?? page.error));
    const back = await act(factory, { role: 'radio_button', name: 'Page 1' }, 'select');
    assert.equal(back.verification, 'verified');
    const check = await helper.call('element_find', { window: factory, selector: { role: 'check_box', name: 'checkbutton' } });
    const unchecked = check.matches.findIndex((m) => m.state.enabled === true && m.state.checked === false);
    assert.ok(unchecked >= 0);
    const toggled = await act(factory, { role: 'check_box', name: 'checkbutton', nth: unchecked }, 'toggle');
    assert.equal(toggled.verification, 'verified');
    assert.equal(toggled.after?.state.checked, true);
  });

  it('reads repeatedly from the cache while nothing changes', async () => {
    const calc = win('gnome-calculator');
    await helper.call('window_read', { window: calc, max_nodes: 5000 });
    const again = await helper.call('window_read', { window: calc, max_nodes: 5000 });
    const third = await helper.call('window_read', { window: calc, max_nodes: 5000 });
    assert.deepEqual(third.elements, again.elements, 'an unchanged application reads the same');
  });
});
