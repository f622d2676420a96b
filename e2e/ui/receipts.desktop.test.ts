import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import type { PendingApproval, Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { warp } from '../../main/testing/pointer.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../../main/testing/serveHarness.js';
import { launchBrowser, openUi, screenshot } from './browser.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const AGENT = 'receipts-test-agent';
const DENY_REASON = 'Not this one: wrong checkbox';

/** A local time as a datetime-local field takes it, to the second. */
function localField(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * The receipts timeline a person reads (docs/supervision.md#the-receipts-timeline), through the real
 * supervisor, helper and GTK fixture in Chromium, with a real MCP SDK client as the agent: nine acts
 * (approved, allowed by a rule, automatic, denied with a reason, refused, typed text, a password,
 * one answered pending and fetched with action_wait) are nine rows, each with its decision,
 * outcome, text and reason in words; search, the decision filter and the time range narrow them;
 * the details are fields. The person's decisions go over the UI channel, as the queue's buttons send them.
 */
describe('receipts a person reads', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let ui: UiClient;
  let agent: Client;
  let browser: Browser;
  let page: Page;
  let cookie: string;
  let win: string;
  /** A moment between the fifth act and the sixth, a second clear of both. */
  let mark: number;
  const answers: Record<string, Receipt> = {};

  const act = (args: Record<string, unknown>): Promise<Receipt & { error?: { code: string } }> =>
    toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 60_000 });
  /** Starts a call and returns its card once the person's UI has it, with the call's answer to come. */
  const carded = async <T>(call: () => Promise<T>, test: (p: PendingApproval) => boolean): Promise<{ card: PendingApproval; answer: Promise<T> }> => {
    const since = ui.mark();
    const answer = call();
    const list = await Promise.race([
      ui.waitFor<PendingApproval[]>('pending', (l) => l.some(test), 15_000, since),
      answer.then((a) => {
        throw new Error(`answered before a card: ${JSON.stringify(a)}`);
      }),
    ]);
    return { card: list.find(test) as PendingApproval, answer };
  };
  const rows = (p: Page = page) => p.getByTestId('receipt-row');
  const count = (p: Page = page) => p.getByTestId('receipts-count');

  before(async () => {
    desktop = await startPrivateDesktop({ width: 1280, height: 800 });
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '5'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    ui = await UiClient.connect(s);
    cookie = await s.uiCookie();
    browser = await launchBrowser();
    page = await openUi(browser, `${s.origin}/`, 'light', cookie);
    await page.setViewportSize({ width: 1280, height: 720 });
    agent = await httpClient(s, AGENT);
    const list = await toolJson<{ windows: { window: string; title: string; rect?: { cx: number; cy: number } }[] }>(agent, 'window_list');
    const fixture = list.windows.find((w) => w.title === 'Overseer Fixture');
    assert.ok(fixture?.rect !== undefined);
    win = fixture.window;
    // The test desktop has no window manager: the keys go to the window under the pointer.
    warp(desktop.display, fixture.rect.cx, fixture.rect.cy);

    // 1. Approved by the person, who also allows it for the session on that element.
    const a1 = await carded(
      () => act({ selector: { automation_id: 'counter' }, action: 'invoke' }),
      (p) => p.kind === 'element' && p.target.automation_id === 'counter',
    );
    await ui.command('approve', { approval_id: a1.card.approval_id, allow: { scope: 'element' } });
    answers['approved'] = await a1.answer;
    // 2. The same act again: the session rule decides.
    answers['rule'] = await act({ selector: { automation_id: 'counter' }, action: 'invoke' });
    // 3. Answered pending after a second; the person approves later and the agent fetches it with action_wait: three records, one action.
    await ui.command('update_settings', { approval_wait_ms: 1000 });
    // (The card may reach the UI after the pending answer: a card takes its picture first.)
    const since = ui.mark();
    const a3answer = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Receipt Rita' });
    const a3card = (await ui.waitFor<PendingApproval[]>('pending', (l) => l.some((p) => p.action === 'set_value'), 15_000, since)).find(
      (p) => p.action === 'set_value',
    ) as PendingApproval;
    const early = await a3answer;
    assert.equal(early.outcome, 'pending');
    await ui.command('update_settings', { approval_wait_ms: 45_000 });
    await ui.command('approve', { approval_id: a3card.approval_id });
    answers['pending'] = await toolJson<Receipt>(agent, 'action_wait', { receipt_id: early.receipt_id }, { timeout: 60_000 });
    // 4. Denied with a reason.
    const a4 = await carded(
      () => act({ selector: { automation_id: 'subscribe' }, action: 'toggle' }),
      (p) => p.action === 'toggle',
    );
    await ui.command('deny', { approval_id: a4.card.approval_id, reason: DENY_REASON });
    answers['denied'] = await a4.answer;
    // 5. Refused before anyone was asked: nothing matches.
    answers['refused'] = await act({ selector: { automation_id: 'no_such_button' }, action: 'invoke' });
    await sleep(1100);
    mark = Date.now();
    await sleep(1100);
    // 6. Automatic: focusing an entry changes only the view.
    answers['focus'] = await act({ selector: { automation_id: 'name_entry' }, action: 'focus' });
    // 7. Typed text, approved.
    const a7 = await carded(
      () => toolJson<Receipt>(agent, 'type_text', { text: 'hello' }, { timeout: 60_000 }),
      (p) => p.action === 'type_text',
    );
    await ui.command('approve', { approval_id: a7.card.approval_id });
    answers['typed'] = await a7.answer;
    // 8–9. Into a password field: the text is never shown.
    answers['focus_password'] = await act({ selector: { automation_id: 'password' }, action: 'focus' });
    const a9 = await carded(
      () => toolJson<Receipt>(agent, 'type_text', { text: 'sesame' }, { timeout: 60_000 }),
      (p) => p.action === 'type_text',
    );
    await ui.command('approve', { approval_id: a9.card.approval_id });
    answers['password'] = await a9.answer;
  });

  after(async () => {
    await agent?.close().catch(() => {});
    ui?.close();
    await browser?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('ran the nine acts as intended', () => {
    assert.equal(answers['approved']?.decision?.by, 'human');
    assert.equal(answers['rule']?.decision?.verdict, 'auto');
    assert.equal(answers['pending']?.outcome, 'completed', JSON.stringify(answers['pending']));
    assert.equal(answers['denied']?.refusal?.code, 'denied');
    assert.equal(answers['refused']?.refusal?.code, 'not_found');
    assert.equal(answers['focus']?.decision?.verdict, 'auto');
    assert.equal(answers['typed']?.outcome, 'completed', JSON.stringify(answers['typed']));
    assert.equal(answers['password']?.text, '••••••', 'the supervisor masked it: the focus was in a password field');
  });

  it('shows one row per action, each with its decision, outcome and duration; the typed text; the deny reason in words', async () => {
    await page.getByTestId('tab-receipts').click();
    // window_list and the nine acts; the pending act's three records are one row.
    await count().getByText('10 of 10').waitFor({ timeout: 10_000 });
    assert.equal(await rows().and(page.locator('[data-kind="act"]')).count(), 9);
    const records = await rows().evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-records'))));
    assert.equal(
      records.reduce((a, b) => a + b, 0),
      12,
      'twelve records: the pending act left three',
    );
    const pendingRow = rows().filter({ hasText: 'Receipt Rita' });
    assert.equal(await pendingRow.getAttribute('data-records'), '3');
    assert.equal(await pendingRow.getByTestId('receipt-decision').innerText(), 'approved by person');
    assert.equal(await pendingRow.getByTestId('receipt-outcome').innerText(), 'completed');

    const typed = rows().filter({ has: page.getByTestId('receipt-act').getByText('type_text “hello”') });
    assert.equal(await typed.count(), 1, 'the typed text is in its row');
    assert.equal(await typed.getByTestId('receipt-outcome').innerText(), 'completed');
    assert.equal(await rows().filter({ hasText: 'type_text “••••••”' }).count(), 1, 'the password text is masked');
    assert.ok(!(await page.locator('body').innerText()).includes('sesame'), 'the password text is nowhere on the page');

    const denied = rows().and(page.locator('[data-decision="denied"]'));
    assert.equal(await denied.getByTestId('receipt-reason').innerText(), `Denied by the person: “${DENY_REASON}”`);
    const refused = rows().filter({ hasText: 'no element matched' });
    assert.match(await refused.getByTestId('receipt-reason').innerText(), /^Refused: no element matched \(not_found\)/);
    assert.match(await rows().and(page.locator('[data-decision="rule"]')).getByTestId('receipt-decision').innerText(), /^approved by rule R/);
    assert.equal(await rows().and(page.locator('[data-decision="automatic"]')).count(), 2);
    await screenshot(page, 'receipts-1280-light');
  });

  it('narrows by search, by decision and by time range', async () => {
    const search = page.getByTestId('receipts-search');
    await search.fill('hello');
    await count().getByText('1 of 10').waitFor();
    assert.match(await rows().getByTestId('receipt-act').innerText(), /^type_text “hello”/);
    await search.fill('wrong checkbox');
    await count().getByText('1 of 10').waitFor();
    assert.equal(await rows().getAttribute('data-decision'), 'denied');
    await search.fill('sesame');
    await count().getByText('0 of 10').waitFor();
    await search.fill('');

    const decision = page.getByTestId('receipts-filter-decision');
    await decision.selectOption('denied');
    await count().getByText('1 of 10').waitFor();
    assert.match(await rows().getByTestId('receipt-reason').innerText(), /wrong checkbox/);
    await screenshot(page, 'receipts-filter-denied');
    await decision.selectOption('person');
    await count().getByText('4 of 10').waitFor();
    await decision.selectOption('refused');
    await count().getByText('1 of 10').waitFor();
    await decision.selectOption('');
    await page.getByTestId('receipts-more').click();
    await page.getByTestId('receipts-filter-tool').selectOption('type_text');
    await count().getByText('2 of 10').waitFor();
    await page.getByTestId('receipts-filter-tool').selectOption('');

    const range = page.getByTestId('receipts-filter-range');
    await range.selectOption('5m');
    await count().getByText('10 of 10').waitFor();
    await range.selectOption('custom');
    await page.getByTestId('receipts-from').fill(localField(mark));
    await count().getByText('4 of 10').waitFor();
    assert.equal(await rows().filter({ hasText: 'Receipt Rita' }).count(), 0, 'the earlier acts are out of range');
    await page.getByTestId('receipts-from').fill('');
    // Each bound on its own: a failure says which step of the range went wrong.
    await count().getByText('10 of 10').waitFor();
    await page.getByTestId('receipts-to').fill(localField(mark));
    await count().getByText('6 of 10').waitFor();
    await screenshot(page, 'receipts-filter-time');
    await page.getByTestId('receipts-clear').click();
    await count().getByText('10 of 10').waitFor();
  });

  it('shows the details as labelled fields, the raw records on request', async () => {
    await rows().filter({ hasText: 'Receipt Rita' }).click();
    const fields = page.getByTestId('receipt-fields');
    await fields.waitFor();
    const field = async (label: string): Promise<string> => fields.locator(`[data-field="${label}"] dd`).innerText();
    assert.match(await field('Window'), /Overseer Fixture/);
    assert.match(await field('Element'), /“Name”/);
    assert.equal(await field('Automation id'), 'name_entry');
    assert.equal(await field('Text'), 'Receipt Rita');
    assert.match(await field('Value'), /^Alice → Receipt Rita$/);
    assert.match(await field('Decision'), /^approved by person at /);
    assert.match(await field('Records'), /element_act pending · #\d+ element_act completed · #\d+ action_wait completed$/);
    assert.equal(await page.getByTestId('receipt-json').count(), 0, 'no raw JSON until asked');
    await page.getByTestId('receipt-raw-toggle').click();
    assert.match(await page.getByTestId('receipt-json').innerText(), /"receipt_id"/);
    await screenshot(page, 'receipts-details');
    await rows().and(page.locator('[data-decision="denied"]')).click();
    assert.equal(await field('Reason'), `Denied by the person: “${DENY_REASON}”`);
    assert.equal(await field('Ran'), 'no');
  });

  it('reads the same at 1024×700 in the dark theme', async () => {
    const dark = await openUi(browser, `${s.origin}/`, 'dark', cookie);
    try {
      await dark.setViewportSize({ width: 1024, height: 700 });
      await dark.getByTestId('tab-receipts').click();
      await count(dark).getByText('10 of 10').waitFor({ timeout: 10_000 });
      const typed = rows(dark).filter({ has: dark.getByTestId('receipt-act').getByText('type_text “hello”') });
      assert.equal(await typed.count(), 1);
      // The act and its decision are on screen inside the list, not cut off by it.
      const list = await dark.getByTestId('receipts-list').boundingBox();
      const act = await typed.getByTestId('receipt-act').boundingBox();
      const outcome = await typed.getByTestId('receipt-outcome').boundingBox();
      assert.ok(list && act && outcome);
      assert.ok(act.x + act.width <= list.x + list.width && outcome.x + outcome.width <= list.x + list.width, 'the row fits the list');
      await screenshot(dark, 'receipts-1024-dark');
      await rows(dark).and(dark.locator('[data-decision="denied"]')).click();
      await dark.getByTestId('receipt-fields').waitFor();
      await screenshot(dark, 'receipts-details-1024-dark');
    } finally {
      await dark.context().close();
    }
  });
});
