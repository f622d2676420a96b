import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { startDoomedAgent, type DoomedAgent } from '../../main/testing/doomedAgent.js';
import { httpClient, removeDataDir, serve, toolJson, type Served } from '../../main/testing/serveHarness.js';
import { launchBrowser, openUi, screenshot } from './browser.js';
import { approvalId, armed, cardFor, settleQueue } from './queue.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

/**
 * docs/supervision.md#when-an-agent-has-gone and #allow-for-the-session, as a person sees them at 1280×720 in Chromium against the real
 * supervisor, helper and fixture: a killed agent's card says "agent disconnected" and its agent
 * leaves the list; "Allow for session…" names the queued cards its rule covers and Confirm decides
 * exactly those. Figures are printed, not asserted.
 */
describe('departures and allow-for-session in the supervisor UI (1280×720)', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let browser: Browser;
  let page: Page;
  let agent: Client;
  let win: string;
  const doomed: DoomedAgent[] = [];

  /** What the page shows of a card that left the queue: its placeholder's outcome, or its line in Recent decisions. */
  const outcomeText = (id: string) =>
    page.locator(
      `[data-testid="placeholder"][data-approval-id="${id}"] [data-testid="outcome-line"], [data-testid="recent-decision"][data-approval-id="${id}"] [data-testid="recent-outcome"]`,
    );

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    browser = await launchBrowser();
    page = await openUi(browser, s.uiUrl);
    await page.setViewportSize({ width: 1280, height: 720 });
    agent = await httpClient(s, 'ui-steady-agent');
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
  });
  after(async () => {
    for (const d of doomed) await d.dispose();
    await agent?.close().catch(() => {});
    await browser?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('marks a killed agent’s card "agent disconnected" and drops the agent from the list', async () => {
    const doomedAgent = await startDoomedAgent(s, win, 'ui-doomed-agent');
    doomed.push(doomedAgent);
    const card = page.getByTestId('pending-card').filter({ hasText: 'ui-doomed-agent' });
    await card.waitFor({ timeout: 20_000 });
    const listed = page.getByTestId('agent-item').filter({ hasText: 'ui-doomed-agent' });
    await listed.waitFor();
    const id = await approvalId(card);
    await screenshot(page, 'departure-before-kill');
    const t0 = Date.now();
    doomedAgent.child.kill('SIGKILL');
    await outcomeText(id)
      .filter({ hasText: /agent disconnected/i })
      .first()
      .waitFor({ timeout: 10_000 });
    console.log(`# the killed agent's card read "agent disconnected" ${Date.now() - t0} ms after SIGKILL (the bound: 2000 ms)`);
    await screenshot(page, 'departure-agent-disconnected');
    await listed.waitFor({ state: 'detached', timeout: 10_000 });
    console.log(`# the killed agent left the agents list ${Date.now() - t0} ms after SIGKILL`);
    assert.equal(await page.locator(`[data-testid="pending-card"][data-approval-id="${id}"]`).count(), 0, 'no live card is left to approve');
  });

  it('names the queued cards a new session rule covers and decides exactly those on Confirm', async () => {
    await settleQueue(page).catch(() => {});
    const setName = (text: string): Promise<Receipt> =>
      toolJson<Receipt>(agent, 'element_act', { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text }, { timeout: 120_000 });
    const sets = [setName('Ada'), setName('Grace'), setName('Edsger')];
    const other = toolJson<Receipt>(agent, 'element_act', { window: win, selector: { automation_id: 'counter' }, action: 'invoke' }, { timeout: 120_000 });
    const cards = page.getByTestId('pending-card');
    // Four asked; as many shown as have a place (two at 1280×720), the rest wait unseen.
    await page.waitForFunction(() => Number(document.querySelector('#queue-heading .count')?.textContent) === 4, undefined, { timeout: 15_000 });
    const setCards = cards.filter({ hasText: '#name_entry' });
    const first = setCards.first();
    await first.waitFor();
    const firstId = await approvalId(first);
    await (await armed(first.getByTestId('allow-session-button'))).click();
    const step = first.getByTestId('allow-step');
    const also = step.getByTestId('allow-also');
    await also.waitFor();
    assert.match((await also.textContent()) ?? '', /Also approve these 2 queued cards/);
    const items = step.getByTestId('allow-also-item');
    const named = await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-approval-id') ?? ''));
    const others = named.filter((id) => id !== firstId);
    assert.equal(others.length, 2);
    const listed = (await items.allInnerTexts()).join(' | ');
    for (const text of ['Grace', 'Edsger']) assert.ok(listed.includes(text), `the other set_value cards are named, shown or waiting: ${listed}`);
    assert.ok(!/counter/i.test(listed), `not the invoke: ${listed}`);
    const confirm = step.getByTestId('allow-confirm');
    await armed(confirm);
    await screenshot(page, 'allow-for-session-names-queued-cards');
    assert.match((await confirm.textContent()) ?? '', /approve the 2 queued/);
    await confirm.click();
    const receipts = await Promise.all(sets);
    for (const r of receipts) assert.equal(r.decision?.verdict, 'approved', JSON.stringify(r.refusal ?? r.error));
    for (const id of [firstId, ...others]) await outcomeText(id).first().waitFor({ timeout: 10_000 });
    assert.match(
      (await outcomeText(others[0] ?? '')
        .first()
        .textContent()) ?? '',
      /^Approved/,
      'decided here, not "elsewhere"',
    );
    await screenshot(page, 'allow-for-session-decided');
    const still = cardFor(page, 'counter');
    await still.waitFor({ timeout: 10_000 });
    assert.equal(await still.count(), 1, 'the card the rule does not cover still waits, shown in a freed place');
    // The placeholders above it collapse meanwhile, which moves it and arms it again: a refused click is retried once armed.
    const reason = page.getByTestId('deny-reason');
    for (let i = 0; i < 5 && !(await reason.isVisible()); i++) {
      await (await armed(still.getByTestId('deny-button'))).click();
      await reason.waitFor({ timeout: 2000 }).catch(() => {});
    }
    await reason.press('Enter');
    assert.equal((await other).refusal?.code, 'denied');
  });
});
