import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { FixtureDriver } from '../../main/testing/fixtureDriver.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { approvalId, armed, cardFor, settleQueue } from './queue.js';
import { UI_LANES, type UiLane, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const AGENT = 'approvals-test-agent';

/**
 * docs/supervision.md#arming-and-decisions, through the real UI against the real
 * supervisor, helper and GTK fixture, with a real MCP SDK client as the agent: each click decides
 * the card it was aimed at or says why not; nothing moves under the pointer; allow-for-session
 * takes a named second step; the pause's held actions stay listed; every decision shows its outcome.
 */
for (const lane of UI_LANES) {
  const why = lane.unavailable();
  if (why !== undefined) {
    describe(`approvals in the supervisor UI (${lane.name} lane)`, () => {
      it(`runs the approval specs in the ${lane.name} lane`, { skip: why }, () => {});
    });
    continue;
  }
  approvalSpecs(lane);
}

function approvalSpecs(lane: UiLane): void {
  describe(`approvals in the supervisor UI (${lane.name} lane)`, () => {
    let desktop: PrivateDesktop;
    let ui: UiSession;
    let agent: Client;
    let page: Page;
    let driver: FixtureDriver;
    let win: string;
    let app: string;
    const shot = (name: string): Promise<string> => screenshot(page, lane.name === 'browser' ? name : `${lane.name}-${name}`);
    const act = (args: Record<string, unknown>): Promise<Receipt & { error?: { code: string } }> =>
      toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 120_000 });
    /** The outcome line a decided card shows in Recent decisions (it stays after placeholders collapse). */
    const outcomeOf = (id: string) => page.locator(`[data-testid="recent-decision"][data-approval-id="${id}"]`).getByTestId('recent-outcome');
    /** Whether an agent call is still unanswered a moment from now. */
    const stillWaiting = async (answer: Promise<unknown>): Promise<boolean> =>
      await Promise.race([answer.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 300))]);

    before(async () => {
      desktop = await startPrivateDesktop();
      await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
      ui = await lane.start(desktop.env);
      page = ui.page;
      // Tall enough that five cards fit without scrolling (each element card shows its element at 1:1, docs/supervision.md#card-pictures): these specs are about the queue changing, not about scrolling it.
      // A card arms only while 90% of it is on screen: all five must be, at once.
      await page.setViewportSize({ width: 1280, height: 2100 });
      agent = await httpClient(ui.mcp, AGENT);
      driver = await FixtureDriver.connect(desktop.a11yBusAddress);
      const fixture = (await toolJson<{ windows: { window: string; title: string; app: string }[] }>(agent, 'window_list')).windows.find(
        (w) => w.title === 'Overseer Fixture',
      );
      win = fixture?.window ?? '';
      app = fixture?.app ?? '';
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
    });
    beforeEach(() => settleQueue(page));
    after(async () => {
      driver?.close();
      await agent?.close().catch(() => {});
      await ui?.stop();
      await desktop?.stop();
    });

    it('decides the card under the pointer for each of five clicks 150 ms apart, and creates no rule', async () => {
      const ids = ['counter', 'dup_a', 'dup_b', 'save_ru', 'hello_ru'];
      // One after another, each waiting for its card, so that all five are pending at once (see the report: the helper can miss an element under concurrent selector calls).
      const answers: Promise<Receipt>[] = [];
      for (const id of ids) {
        answers.push(act({ selector: { automation_id: id }, action: 'invoke' }));
        await cardFor(page, id).waitFor({ timeout: 15_000 });
      }
      const cards = page.getByTestId('pending-card');
      assert.equal(await cards.count(), 5);
      const heights = new Set<number>();
      for (let i = 0; i < 5; i++) {
        await armed(cards.nth(i).getByTestId('approve-button'));
        heights.add(Math.round((await cards.nth(i).boundingBox())?.height ?? 0));
      }
      await shot('five-cards-armed');
      const order = await Promise.all([0, 1, 2, 3, 4].map((i) => approvalId(cards.nth(i))));
      const points = await Promise.all(
        [0, 1, 2, 3, 4].map(async (i) => {
          const box = await cards.nth(i).getByTestId('approve-button').boundingBox();
          assert.ok(box);
          return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
        }),
      );
      for (const p of points) {
        await page.mouse.click(p.x, p.y);
        await new Promise((r) => setTimeout(r, 150));
      }
      await shot('five-cards-decided');
      const receipts = await Promise.all(answers);
      for (const [i, r] of receipts.entries()) {
        assert.equal(r.decision?.verdict, 'approved', `${ids[i]}: ${JSON.stringify(r.refusal ?? r.error)}`);
        assert.equal(r.decision?.by, 'human');
        assert.equal(r.outcome, 'completed');
      }
      for (const id of order)
        assert.equal(await page.locator(`[data-testid="placeholder"][data-approval-id="${id}"]`).count(), 1, 'each card left a placeholder in its place');
      assert.equal(heights.size, 1, `the cards fill places of one height (${[...heights].join(', ')}): a card shown in a freed place moves nothing`);
      await page.getByTestId('tab-settings').click();
      assert.equal(await page.getByTestId('settings-allow-rule').count(), 0, 'no allow rule: no second step was confirmed');
      await page.getByTestId('tab-tree').click();
    });

    it('does not decide another card when the same point is clicked again right after a decision', async () => {
      const first = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Twice Tina' });
      const firstCard = cardFor(page, 'name_entry');
      const approve = await armed(firstCard.getByTestId('approve-button'));
      const second = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      const secondCard = cardFor(page, 'counter');
      await armed(secondCard.getByTestId('approve-button'));
      const before = await secondCard.boundingBox();
      const box = await approve.boundingBox();
      assert.ok(box && before);
      const firstId = await approvalId(firstCard);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      assert.equal((await first).verification, 'verified');
      const placeholder = page.locator(`[data-testid="placeholder"][data-approval-id="${firstId}"]`);
      await placeholder.getByTestId('placeholder-note').getByText('Already decided here — nothing more was sent.').waitFor({ timeout: 5000 });
      assert.deepEqual(await secondCard.boundingBox(), before, 'the next card did not move');
      assert.equal(await stillWaiting(second), true, 'the second click decided nothing else');
      await (await armed(secondCard.getByTestId('deny-button'))).click();
      await page.getByTestId('deny-reason').press('Enter');
      assert.equal((await second).refusal?.code, 'denied');
    });

    it('refuses a click on Approve before the card is armed and says why; after arming it decides', async () => {
      const answer = act({ selector: { automation_id: 'dup_a' }, action: 'invoke' });
      const card = cardFor(page, 'dup_a');
      await card.waitFor();
      // At once, without a locator click's waits for stability: on a loaded machine those can outlast the arming time.
      const early = await card.getByTestId('approve-button').boundingBox();
      assert.ok(early);
      await page.mouse.click(early.x + early.width / 2, early.y + early.height / 2);
      const note = card.getByTestId('card-note');
      await note.getByText(/^Not decided: this card appeared 0\.\d s ago — read it first\.$/).waitFor({ timeout: 2000 });
      assert.equal(await note.getAttribute('role'), 'status', 'assistive tech hears it');
      await shot('card-not-armed');
      assert.equal(await stillWaiting(answer), true, 'the early click decided nothing');
      await (await armed(card.getByTestId('approve-button'))).click();
      const r = await answer;
      assert.equal(r.decision?.verdict, 'approved');
    });

    it('decides by key only a card selected for the arming time; S opens the second step and decides nothing', async () => {
      const firstAnswer = act({ selector: { automation_id: 'dup_b' }, action: 'invoke' });
      const first = cardFor(page, 'dup_b');
      await armed(first.getByTestId('approve-button'));
      const secondAnswer = act({ selector: { automation_id: 'hello_ru' }, action: 'invoke' });
      const second = cardFor(page, 'hello_ru');
      await armed(second.getByTestId('approve-button'));
      // Selected by a click on its words (the picture opens its viewer).
      await first.click({ position: { x: 8, y: 8 } });
      await page.keyboard.press('a');
      assert.equal((await firstAnswer).decision?.verdict, 'approved');
      await page.keyboard.press('a');
      await second
        .getByTestId('card-note')
        .getByText(/^Not decided: this card was selected 0\.\d s ago — read it first\.$/)
        .waitFor({ timeout: 2000 });
      assert.equal(await stillWaiting(secondAnswer), true, 'the second key press decided nothing');
      await second.and(page.locator('[data-keys-armed="true"]')).waitFor({ timeout: 5000 });
      await page.keyboard.press('s');
      await second.getByTestId('allow-step').waitFor();
      assert.equal(await stillWaiting(secondAnswer), true, 'S only opened the second step');
      await second.getByTestId('allow-cancel').click();
      await page.keyboard.press('a');
      const r = await secondAnswer;
      assert.equal(r.decision?.verdict, 'approved');
      await page.getByTestId('tab-settings').click();
      assert.equal(await page.getByTestId('settings-allow-rule').count(), 0, 'no rule came from S');
      await page.getByTestId('tab-tree').click();
    });

    it('allows for the session only through a second step that names the scope; the rule then decides', async () => {
      const answer = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      const card = cardFor(page, 'counter');
      const first = await armed(card.getByTestId('allow-session-button'));
      const firstBox = await first.boundingBox();
      await first.click();
      const step = card.getByTestId('allow-step');
      await step.waitFor();
      const scope = (await step.getByTestId('allow-scope').textContent()) ?? '';
      for (const part of [AGENT, 'invoke', app, 'button "Counter"']) assert.ok(scope.includes(part), `the scope names ${part}: ${scope}`);
      assert.match(scope, /session [\w-]{8}/, 'and the session');
      const confirm = step.getByTestId('allow-confirm');
      const confirmBox = await confirm.boundingBox();
      assert.ok(firstBox && confirmBox);
      assert.ok(
        confirmBox.y >= firstBox.y + firstBox.height || confirmBox.y + confirmBox.height <= firstBox.y,
        'Confirm never sits where the first button was',
      );
      await page.mouse.click(firstBox.x + firstBox.width / 2, firstBox.y + firstBox.height / 2);
      assert.equal(await stillWaiting(answer), true, 'a repeated click on the first button confirms nothing');
      await shot('allow-second-step');
      await (await armed(confirm)).click();
      const r = await answer;
      assert.equal(r.decision?.verdict, 'approved');
      await page.getByTestId('tab-settings').click();
      const rule = page.getByTestId('settings-allow-rule');
      await rule.waitFor();
      const text = (await rule.textContent()) ?? '';
      assert.ok(text.includes(AGENT) && text.includes('button "Counter"') && text.includes('invoke'), text);
      await shot('allow-rule');
      await page.getByTestId('tab-tree').click();
      const again = await act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      assert.equal(again.decision?.verdict, 'auto', 'the identical action on that element runs by the rule');
      assert.equal(again.outcome, 'completed');
      const other = act({ selector: { automation_id: 'dup_b' }, action: 'invoke' });
      const otherCard = cardFor(page, 'dup_b');
      await otherCard.waitFor({ timeout: 10_000 });
      await (await armed(otherCard.getByTestId('deny-button'))).click();
      await page.getByTestId('deny-reason').press('Enter');
      assert.equal((await other).refusal?.code, 'denied', 'the same action on another element still asked');
    });

    it('moves an approval made while paused to "Held by the pause"; Resume runs it, Cancel denies', async () => {
      await page.getByTestId('brake-pause').click();
      await page.getByTestId('brake-state').and(page.locator('[data-state="paused"]')).waitFor();
      try {
        const answer = act({ selector: { automation_id: 'subscribe' }, action: 'toggle' });
        const card = cardFor(page, 'subscribe');
        const id = await approvalId(card);
        await (await armed(card.getByTestId('approve-button'))).click();
        const held = page.locator(`[data-testid="held-item"][data-approval-id="${id}"]`);
        await held.waitFor({ timeout: 5000 });
        await page.getByTestId('held-section').getByText('Held by the pause (1)').waitFor();
        const empty = page.getByTestId('queue-empty');
        assert.equal(await empty.textContent(), '1 approved action waits for Resume.');
        assert.doesNotMatch((await page.getByTestId('approval-queue').textContent()) ?? '', /Nothing waits for you/);
        await outcomeOf(id).getByText('Approved — held by the pause; runs on Resume').waitFor();
        await shot('held-by-pause');
        assert.equal(await stillWaiting(answer), true);
        await page.getByTestId('brake-resume').click();
        const r = await answer;
        assert.equal(r.outcome, 'completed');
        await held.waitFor({ state: 'detached' });
        await outcomeOf(id)
          .getByText(/^Approved — (verified|completed \(not checked\))$/)
          .waitFor({ timeout: 5000 });

        await page.getByTestId('brake-pause').click();
        await page.getByTestId('brake-state').and(page.locator('[data-state="paused"]')).waitFor();
        const cancelled = act({ selector: { automation_id: 'save_ru' }, action: 'invoke' });
        const card2 = cardFor(page, 'save_ru');
        const id2 = await approvalId(card2);
        await (await armed(card2.getByTestId('approve-button'))).click();
        const held2 = page.locator(`[data-testid="held-item"][data-approval-id="${id2}"]`);
        await (await armed(held2.getByTestId('held-cancel'))).click();
        const c = await cancelled;
        assert.equal(c.refusal?.code, 'denied');
        assert.equal(c.action_call_made, false);
        await outcomeOf(id2)
          .getByText(/^Approved — denied/)
          .waitFor({ timeout: 5000 });
      } finally {
        if ((await page.getByTestId('brake-resume').count()) > 0) await page.getByTestId('brake-resume').click();
        await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
      }
    });

    it('shows "verified" after an approved set_value, and a stale_element refusal when the entry changed meanwhile', async () => {
      const ok = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Outcome Olga' });
      const card = cardFor(page, 'name_entry');
      const id = await approvalId(card);
      await (await armed(card.getByTestId('approve-button'))).click();
      assert.equal((await ok).verification, 'verified');
      await page
        .locator(`[data-testid="placeholder"][data-approval-id="${id}"]`)
        .getByTestId('outcome-line')
        .getByText('Approved — verified')
        .waitFor({ timeout: 5000 });
      await outcomeOf(id).getByText('Approved — verified').waitFor();

      const stale = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Stale Sam' });
      const card2 = cardFor(page, 'name_entry');
      const id2 = await approvalId(card2);
      await card2.getByText('Outcome Olga').first().waitFor();
      await driver.setText('name_entry', 'Changed Outside');
      await (await armed(card2.getByTestId('approve-button'))).click();
      const r = await stale;
      assert.equal(r.refusal?.code, 'stale_element');
      await outcomeOf(id2)
        .getByText(/^Approved — refused: stale_element — .+/)
        .waitFor({ timeout: 5000 });
      await shot('outcome-stale');
    });
  });
}
