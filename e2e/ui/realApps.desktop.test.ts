import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import type { ElementFindAnswer, Receipt, WindowListAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { FORM_PAGE_TITLE, FORM_PAGE_URL, writeSpreadsheet } from '../realApps/documents.js';
import { peerCell, peerFind } from '../realApps/peer.js';
import { launchChromium, launchFirefox, startOffice, type LaunchedOffice, type LaunchedRealApp } from '../realApps/realApps.js';
import { realAppsLayout, startRealAppsWindowManager } from '../realApps/windows.js';
import { screenshot } from './browser.js';
import { armed, newCard, pointAndClick, settleQueue, shownIds } from './queue.js';
import { UI_LANES, type UiSession } from './uiLanes.js';

const SCREEN = { width: 1280, height: 800 };

/**
 * The applications people use, decided by a person in the real UI (browser lane, 1280×720):
 * Firefox's and Chromium's forms filled and submitted, and a Calc cell set, each card showing what
 * the field holds, what it will hold and how it will be done (typed), and each effect read back by
 * an independent pyatspi client (docs/compatibility.md, docs/tools.md#set-value-by-typing).
 */
describe('a person approves acts on real applications in the UI', () => {
  let desktop: PrivateDesktop;
  let ui: UiSession;
  let page: Page;
  let agent: Client;
  let firefox: LaunchedRealApp;
  let chromium: LaunchedRealApp;
  let office: LaunchedOffice;
  const ids = new Map<string, string>();

  /** The agent asks; the person reads the card, then clicks its Approve once it is armed. */
  const decide = async (args: Record<string, unknown>, expect: { card?: RegExp[]; shot?: string } = {}): Promise<Receipt> => {
    const known = await shownIds(page);
    const answer = toolJson<Receipt>(agent, 'element_act', args, { timeout: 120_000 });
    const card = await newCard(page, known, 30_000);
    const text = (await card.innerText()).replace(/\s+/g, ' ');
    for (const want of expect.card ?? []) assert.match(text, want);
    if (expect.shot !== undefined) await screenshot(page, expect.shot);
    await pointAndClick(page, await armed(card.getByTestId('approve-button'), 10_000));
    const receipt = await answer;
    assert.equal(receipt.decision?.verdict, 'approved', JSON.stringify(receipt.refusal ?? receipt.error));
    await settleQueue(page);
    return receipt;
  };

  before(async () => {
    const lane = UI_LANES.find((l) => l.name === 'browser');
    assert.ok(lane !== undefined);
    desktop = await startPrivateDesktop(SCREEN);
    await startRealAppsWindowManager(desktop, SCREEN);
    const place = realAppsLayout(SCREEN);
    const sheet = writeSpreadsheet(desktop.dir, { rows: 50 });
    [firefox, chromium, office] = await Promise.all([
      launchFirefox(desktop, FORM_PAGE_URL, { pageTitle: FORM_PAGE_TITLE, place: place.firefox }),
      launchChromium(desktop, FORM_PAGE_URL, { pageTitle: FORM_PAGE_TITLE, place: place.chromium }),
      startOffice(desktop, [sheet], { places: [place.calc] }),
    ]);
    ui = await lane.start(desktop.env);
    page = ui.page;
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
    agent = await httpClient(ui.mcp, 'real-apps-ui-agent');
    for (const w of (await toolJson<WindowListAnswer>(agent, 'window_list')).windows) ids.set(w.title, w.window);
  });
  after(async () => {
    await agent?.close().catch(() => {});
    await ui?.stop();
    await desktop?.stop();
  });

  for (const which of ['Firefox', 'Chromium'] as const) {
    it(`fills and submits the ${which} form: the cards say the text is typed, and the page says what was sent`, async () => {
      const app = which === 'Firefox' ? firefox : chromium;
      const window = ids.get(app.title) ?? assert.fail(`${app.title} is listed`);
      const first = await decide(
        { window, selector: { role: 'edit', name: 'First name' }, action: 'set_value', text: 'Grace' },
        { card: [/Ada/, /Grace/, /How: typed/], ...(which === 'Firefox' ? { shot: 'real-apps-typed-card' } : {}) },
      );
      assert.equal(first.verification, 'verified', JSON.stringify({ after: first.after, detail: first.verification_detail, path: first.path }));
      const submit = await decide({ window, selector: { role: 'button', name: 'Submit' }, action: 'invoke' }, { card: [/Submit/] });
      assert.equal(submit.outcome, 'completed');
      let status = '';
      for (let i = 0; i < 40 && !status.startsWith('Submitted'); i++) {
        status = (await peerFind(desktop, { app: app.appName, title: app.title, role: 'status bar' })).text ?? '';
        if (!status.startsWith('Submitted')) await new Promise((r) => setTimeout(r, 100));
      }
      // Gecko keeps the trailing space of an empty notes field, Chromium trims it.
      assert.equal(status.trim(), 'Submitted: Grace /');
    });
  }

  it('sets a Calc cell the person approved, found by its address in the visible sheet', async () => {
    const calc = office.windows[0] ?? assert.fail('Calc started');
    const window = ids.get(calc.title) ?? assert.fail(`${calc.title} is listed`);
    const found = await toolJson<ElementFindAnswer>(agent, 'element_find', { window, selector: { role: 'cell', name: 'C2' } });
    assert.equal(found.match_count, 1);
    const set = await decide({ target: found.matches[0]?.target, action: 'set_value', text: '99' }, { card: [/C2/, /1\.5/, /99/, /How: typed/] });
    assert.equal(set.verification, 'verified', JSON.stringify(set.after));
    assert.equal((await peerCell(desktop, { app: office.appName, title: calc.title }, 1, 2)).text, '99');
  });
});
