import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Element, ElementFindAnswer, PendingApproval, Receipt, WindowListAnswer, WindowReadAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { FORM_PAGE_TITLE, FORM_PAGE_URL, writeTextFile } from '../../e2e/realApps/documents.js';
import { peerFind, peerRead, type PeerElement, type PeerWindow } from '../../e2e/realApps/peer.js';
import {
  launchCalculator,
  launchChromium,
  launchFeatherPad,
  launchFirefox,
  launchQt6Form,
  launchSwingForm,
  type LaunchedRealApp,
} from '../../e2e/realApps/realApps.js';
import { realAppsLayout, startRealAppsWindowManager } from '../../e2e/realApps/windows.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../testing/serveHarness.js';
import { expectCard, type CardOf } from '../testing/cards.js';

const SCREEN = { width: 1280, height: 800 };
const NOTES = 'Dear diary,\nremember the milk.\n';

/**
 * docs/compatibility.md, through the real supervisor: Firefox, Chromium, a Qt 5 and a Qt 6
 * application, GTK 4 and Swing from Debian are listed, read as an independent pyatspi client reads
 * them, found by what a person sees, and acted on through a person's approval (the UI channel, as
 * the UI sends it), every effect read back by that independent client. LibreOffice has its own
 * lane (office.desktop.test.ts); the real UI approving is e2e/ui/realApps.desktop.test.ts.
 */
describe('the applications people use, through the real supervisor', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  const apps = {} as Record<'firefox' | 'chromium' | 'featherpad' | 'qt6' | 'swing' | 'calculator', LaunchedRealApp>;
  /** Chromium as an Electron app or a hand-started one usually runs: without --force-renderer-accessibility. */
  let plainChromium: LaunchedRealApp;
  const ids = new Map<string, string>();
  const win = (app: LaunchedRealApp): string => {
    const id = ids.get(app.title);
    assert.ok(id !== undefined, `${app.title} is listed`);
    return id;
  };
  const peerWindow = (app: LaunchedRealApp): PeerWindow => ({ app: app.appName, title: app.title });

  /** An element_act a person approves: the card it showed, and the receipt. */
  const approved = async (args: Record<string, unknown>): Promise<{ card: CardOf<'element'>; receipt: Receipt }> => {
    const since = ui.mark();
    const answer = toolJson<Receipt>(agent, 'element_act', args, { timeout: 120_000 });
    const list = await ui.waitFor<PendingApproval[]>('pending', (l) => l.length > 0, 30_000, since);
    const card = expectCard(list[0], 'element');
    await ui.command('approve', { approval_id: card.approval_id });
    const receipt = await answer;
    assert.equal(receipt.decision?.verdict, 'approved', JSON.stringify(receipt.refusal ?? receipt.error));
    return { card, receipt };
  };
  const read = (app: LaunchedRealApp, extra: Record<string, unknown> = {}): Promise<WindowReadAnswer> =>
    toolJson<WindowReadAnswer>(agent, 'window_read', { window: win(app), format: 'flat', max_nodes: 5000, timeout_ms: 15_000, ...extra });
  const find = (app: LaunchedRealApp, selector: Record<string, unknown>): Promise<ElementFindAnswer> =>
    toolJson<ElementFindAnswer>(agent, 'element_find', { window: win(app), selector, timeout_ms: 5000 });

  before(async () => {
    desktop = await startPrivateDesktop(SCREEN);
    await startRealAppsWindowManager(desktop, SCREEN);
    const place = realAppsLayout(SCREEN);
    const notes = writeTextFile(desktop.dir, 'notes.txt', NOTES);
    const plainPage = writeTextFile(desktop.dir, 'plain.html', '<!doctype html><title>Plain page</title><p>Nothing to see here.</p>');
    [apps.firefox, apps.chromium, apps.featherpad, apps.qt6, apps.swing, apps.calculator, plainChromium] = await Promise.all([
      launchFirefox(desktop, FORM_PAGE_URL, { pageTitle: FORM_PAGE_TITLE, place: place.firefox }),
      launchChromium(desktop, FORM_PAGE_URL, { pageTitle: FORM_PAGE_TITLE, place: place.chromium }),
      launchFeatherPad(desktop, notes, { place: place.featherpad }),
      launchQt6Form(desktop, { place: place.qt6 }),
      launchSwingForm(desktop, { place: place.swing }),
      launchCalculator(desktop, { place: place.calculator }),
      // Where no other window is: Chromium empties the page of a window another one covers.
      launchChromium(desktop, `file://${plainPage}`, { pageTitle: 'Plain page', webContentAccessible: false, place: place.calc }),
    ]);
    s = await serve(desktop.env);
    agent = await httpClient(s, 'real-apps-agent');
    ui = await UiClient.connect(s);
  });
  after(async () => {
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('lists every window a person sees, and says it walked the Qt applications', async () => {
    const list = await toolJson<WindowListAnswer>(agent, 'window_list');
    for (const w of list.windows) ids.set(w.title, w.window);
    for (const app of Object.values(apps)) assert.ok(ids.has(app.title), `${app.title} in ${[...ids.keys()].join(' | ')}`);
    assert.equal(list.total_known, true, JSON.stringify(list.notes));
    assert.ok(
      list.notes.some((n) => /^walked: FeatherPad \(Qt 5\./.test(n)),
      'Qt 5 answers no bulk read: said, never taken for "no windows"',
    );
  });

  /** Names the independent reader sees that the product's read does not have (GTK 4 names a button by its label twice). */
  const missingNames = (peer: readonly PeerElement[], product: readonly Element[], fix: (name: string) => string = (n) => n): string[] => {
    const names = new Set(product.flatMap((e) => [e.name ?? '', e.value ?? '', e.class ?? '']));
    return [...new Set(peer.map((e) => fix(e.name.trim())).filter((n) => n !== '' && !names.has(n)))];
  };
  /** Texts the reader sees (entries, paragraphs, headings…), without the marks of embedded children, that the product shows nowhere. */
  const missingTexts = (peer: readonly PeerElement[], product: readonly Element[]): string[] => {
    const shown = new Set(product.flatMap((e) => [e.name ?? '', e.value ?? '']).map((t) => t.trim()));
    const texts = peer.map((e) => (e.text ?? '').replace(/\uFFFC/g, '').trim()).filter((t) => t !== '' && !/^[\s•]*$/.test(t));
    return [...new Set(texts.filter((t) => !shown.has(t)))];
  };

  for (const [key, dynamic] of [
    ['firefox', /^$/],
    ['chromium', /Memory usage/],
    ['featherpad', /^(Encoding|Lines):/],
    ['qt6', /^$/],
    ['swing', /^$/],
    ['calculator', /^$/],
  ] as const) {
    it(`reads ${key} as an independent pyatspi client does: every name and every text`, async () => {
      const app = apps[key];
      const [product, peer] = await Promise.all([read(app), peerRead(desktop, peerWindow(app))]);
      assert.deepEqual(
        product.truncated_by.filter((t) => t !== 'visible_part'),
        [],
        product.notes.join('; '),
      );
      const elements = product.elements ?? [];
      const undouble = (n: string): string => (key === 'calculator' ? n.replace(/^(.+) \1$/, '$1') : n);
      const names = missingNames(peer, elements, undouble).filter((n) => !dynamic.test(n));
      assert.deepEqual(names, [], `names the reader sees and the product does not (of ${peer.length} elements)`);
      assert.deepEqual(missingTexts(peer, elements), [], 'texts the reader sees and the product does not');
      // Both read the whole window: within a tenth of each other (the reader does not walk the chrome the same way everywhere).
      assert.ok(Math.abs(elements.length - peer.length) <= Math.max(3, peer.length / 10), `product ${elements.length}, reader ${peer.length}`);
    });
  }

  it('reads GTK 4 as it shows: buttons by the name a person reads, a visible window not offscreen', async () => {
    const r = await read(apps.calculator);
    const elements = r.elements ?? [];
    assert.ok(
      elements.filter((e) => e.state.offscreen === true).length < elements.length / 4,
      `${elements.filter((e) => e.state.offscreen === true).length} of ${elements.length} offscreen`,
    );
    assert.ok(!elements.some((e) => /^Gtk[A-Z]/.test(e.name ?? '')), 'a widget type is a class, not a name');
    const seven = await find(apps.calculator, { role: 'button', name: '7' });
    assert.equal(seven.match_count, 1, JSON.stringify(seven));
  });

  it('finds page text and fields by what a person sees in Firefox and Chromium', async () => {
    for (const app of [apps.firefox, apps.chromium]) {
      const milk = await find(app, { value_contains: 'remember the milk' });
      assert.equal(milk.match_count, 1, `${app.title}: ${JSON.stringify(milk).slice(0, 1500)}`);
      assert.equal(milk.searched_whole_window, true);
      const first = await find(app, { role: 'edit', name: 'First name' });
      assert.equal(first.matches[0]?.value, 'Ada', `${app.title}: the field's text, read within its length`);
      const status = await find(app, { value_contains: 'Not submitted yet' });
      assert.equal(status.match_count, 1, `${app.title}: the status line`);
    }
  });

  for (const key of ['firefox', 'chromium'] as const) {
    it(`fills and submits the ${key} form with a person's approval, typed where the page takes no text, and the page says so`, async () => {
      const app = apps[key];
      const first = await approved({ window: win(app), selector: { role: 'edit', name: 'First name' }, action: 'set_value', text: 'Grace' });
      assert.equal(first.card.current_value, 'Ada', 'the card shows what the field holds');
      assert.match(first.card.method ?? '', /^typed: /, 'the card says the text will be typed');
      assert.equal(first.receipt.outcome, 'completed', JSON.stringify(first.receipt.error));
      assert.equal(first.receipt.verification, 'verified', JSON.stringify(first.receipt.after));
      assert.match(first.receipt.path ?? '', /Component\.GrabFocus \+ x11:XTEST/);
      const notes = await approved({ window: win(app), selector: { role: 'edit', name: 'Notes' }, action: 'set_value', text: 'Oat milk, not cow’s' });
      assert.equal(notes.receipt.verification, 'verified', JSON.stringify([notes.receipt.error, notes.receipt.after?.value]));
      const agree = await approved({ window: win(app), selector: { role: 'check_box', name: 'I agree' }, action: 'toggle' });
      assert.equal(agree.receipt.verification, 'verified');
      const submit = await approved({ window: win(app), selector: { role: 'button', name: 'Submit' }, action: 'invoke' });
      assert.equal(submit.receipt.outcome, 'completed');
      const pw = peerWindow(app);
      const entry = await peerFind(desktop, { ...pw, role: 'entry', name: 'First name' });
      assert.equal(entry.text, 'Grace', 'the independent reader sees the typed value');
      let status = '';
      for (let i = 0; i < 40 && !status.startsWith('Submitted'); i++) {
        status = (await peerFind(desktop, { ...pw, role: 'status bar' })).text ?? '';
        if (!status.startsWith('Submitted')) await new Promise((r) => setTimeout(r, 100));
      }
      // The accessible text collapses the page's double space (an empty last name), as a person sees it.
      assert.equal(status, 'Submitted: Grace / Oat milk, not cow’s');
      const back = await find(app, { value_contains: 'Submitted: Grace' });
      assert.equal(back.match_count, 1, 'and the product reads it back');
    });
  }

  it('says why a Chromium window without renderer accessibility shows no page, and what will work', async () => {
    const list = await toolJson<WindowListAnswer>(agent, 'window_list');
    const id = list.windows.find((w) => w.title === plainChromium.title)?.window;
    assert.ok(id !== undefined, `${plainChromium.title} is listed`);
    const r = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: id });
    assert.ok(
      r.notes.some((n) => /^no_web_content: .*--force-renderer-accessibility.*screen tier/.test(n)),
      r.notes.join('\n'),
    );
    assert.ok(!(await read(apps.chromium)).notes.some((n) => n.startsWith('no_web_content')), 'a Chromium that shows its page says nothing of the kind');
  });

  it('refuses a line break in a one-line web field before anyone is asked', async () => {
    const r = await toolJson<Receipt>(agent, 'element_act', {
      window: win(apps.firefox),
      selector: { role: 'edit', name: 'Last name' },
      action: 'set_value',
      text: 'Lovelace\nand submit',
    });
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'invalid_argument');
    assert.match(r.refusal?.detail ?? '', /one line/);
  });

  it('drives FeatherPad (Qt 5): its text replaced through EditableText, read back by the independent client', async () => {
    const { card, receipt } = await approved({
      window: win(apps.featherpad),
      selector: { role: 'edit', value_contains: 'milk' },
      action: 'set_value',
      text: 'Dear diary,\nbuy bread.\n',
    });
    assert.equal(card.current_value, NOTES);
    assert.equal(card.method, undefined, 'through the field’s own interface: nothing to explain');
    assert.equal(receipt.path, 'atspi:EditableText.SetTextContents');
    assert.equal(receipt.verification, 'verified');
    // FeatherPad marks the changed document in its title: the reader finds the window by what it is called now.
    const title = (await toolJson<WindowListAnswer>(agent, 'window_list')).windows.find((w) => w.window === win(apps.featherpad))?.title ?? '';
    assert.equal(title, `*${apps.featherpad.title}`);
    assert.equal((await peerFind(desktop, { app: apps.featherpad.appName, title, role: 'text' })).text, 'Dear diary,\nbuy bread.\n');
  });

  for (const [key, role, name] of [
    ['qt6', 'text', 'Name'],
    ['swing', 'text', 'Name'],
  ] as const) {
    it(`drives the ${key} form: a name set and Save pressed, read back by the independent client`, async () => {
      const app = apps[key];
      const set = await approved({ window: win(app), selector: { role: 'edit', name }, action: 'set_value', text: 'Grace' });
      assert.equal(set.receipt.verification, 'verified', JSON.stringify(set.receipt.error));
      const save = await approved({ window: win(app), selector: { role: 'button', name: 'Save' }, action: 'invoke' });
      assert.equal(save.receipt.outcome, 'completed');
      let status = '';
      for (let i = 0; i < 30 && status !== 'saved Grace'; i++) {
        status = (await peerFind(desktop, { ...peerWindow(app), role, name: 'Status' })).text ?? '';
        if (status !== 'saved Grace') await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 'saved Grace');
    });
  }

  it('computes 1 + 2 = 3 on the GTK 4 calculator with the names a person reads', async () => {
    for (const key of ['1', '+', '2', '=']) {
      const { receipt } = await approved({ window: win(apps.calculator), selector: { role: 'button', name: key }, action: 'invoke' });
      assert.equal(receipt.outcome, 'completed', key);
    }
    const display = await find(apps.calculator, { role: 'edit', value_contains: '3' });
    assert.equal(display.matches[0]?.value?.trim(), '3', JSON.stringify(display));
  });

  it('answers window_gone for a window whose application has gone, never internal', async () => {
    const title = apps.swing.title;
    const id = win(apps.swing);
    await apps.swing.app.stop();
    let code = '';
    for (let i = 0; i < 30 && code !== 'window_gone'; i++) {
      const r = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: id });
      code = r.error?.code ?? '';
      if (code !== 'window_gone') await new Promise((r2) => setTimeout(r2, 100));
    }
    assert.equal(code, 'window_gone', `${title} after its application exited`);
  });
});
