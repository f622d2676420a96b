import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import type { AskAnswer, HandoffAnswer, Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { approvalId, armed, cardFor, settleQueue } from './queue.js';
import { UI_LANES, themePage, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const THEMES = ['light', 'dark'] as const;

/**
 * Talking to the person in the real UI (docs/supervision.md#questions-and-handoffs), at
 * 1280×720 in both themes, against the real supervisor and fixture with the MCP SDK as the agent:
 * a question card answered by a choice and in words, never by the approval keys; a handoff shown
 * in a banner and on its card, holding the agent's input until the person gives control back with
 * a note, after which that input comes to its own card.
 */
describe('talking to the person in the supervisor UI', () => {
  const lane = UI_LANES.find((l) => l.name === 'browser');
  let desktop: PrivateDesktop;
  let ui: UiSession;
  let agent: Client;
  let win: string;

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '5'], { waitForWindow: 'Overseer Fixture' });
    if (lane === undefined) throw new Error('no browser lane');
    ui = await lane.start(desktop.env);
    agent = await httpClient(ui.mcp, 'asking-ui-agent');
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
  });
  after(async () => {
    await agent?.close().catch(() => {});
    await ui?.stop();
    await desktop?.stop();
  });

  for (const theme of THEMES) {
    describe(`${theme} theme at 1280×720`, () => {
      let page: Page;
      let close: (() => Promise<void>) | undefined;
      before(async () => {
        ({ page, close } = await themePage(ui, theme));
      });
      after(async () => {
        await close?.();
      });
      const outcomeOf = (id: string) => page.locator(`[data-testid="recent-decision"][data-approval-id="${id}"]`).getByTestId('recent-outcome');

      it('a question card: the approval keys do not answer it; a choice does, and the agent gets it', async () => {
        await settleQueue(page);
        const answer = toolJson<AskAnswer>(
          agent,
          'computer_ask',
          { question: 'Which account should I sign in with?', choices: ['personal', 'work'] },
          { timeout: 120_000 },
        );
        const card = page.getByTestId('question-card');
        await card.waitFor({ timeout: 15_000 });
        assert.equal(await card.getByTestId('question-text').innerText(), 'Which account should I sign in with?');
        const id = await approvalId(card);
        const work = card.getByTestId('choice-button').filter({ hasText: 'work' });
        await armed(work);
        // Selected and armed: A (approve) still answers nothing; the card says how to answer.
        await card.click({ position: { x: 5, y: 5 } });
        await page.waitForTimeout(800);
        await page.keyboard.press('a');
        await card.getByTestId('card-note').filter({ hasText: 'Not answered: pick a choice' }).waitFor();
        await screenshot(page, `question-${theme}-1280x720`);
        await (await armed(work)).click();
        const a = await answer;
        assert.deepEqual([a.outcome, a.answer, a.choice], ['answered', 'work', 1]);
        await outcomeOf(id).filter({ hasText: 'Answered — the agent was told' }).waitFor({ timeout: 10_000 });
      });

      it('a question answered in words; a decline with a note', async () => {
        await settleQueue(page);
        let answer = toolJson<AskAnswer>(agent, 'computer_ask', { question: 'What should the report be called?' }, { timeout: 120_000 });
        let card = page.getByTestId('question-card');
        await card.waitFor({ timeout: 15_000 });
        await armed(card.getByTestId('answer-button'));
        await card.getByTestId('answer-input').fill('Q3 numbers');
        await (await armed(card.getByTestId('answer-button'))).click();
        assert.deepEqual([(await answer).outcome, (await answer).answer], ['answered', 'Q3 numbers']);

        await settleQueue(page);
        answer = toolJson<AskAnswer>(agent, 'computer_ask', { question: 'May I empty the trash?', choices: ['yes', 'no'] }, { timeout: 120_000 });
        card = page.getByTestId('question-card');
        await card.waitFor({ timeout: 15_000 });
        const id = await approvalId(card);
        await (await armed(card.getByTestId('decline-button'))).click();
        await card.getByTestId('decline-note').fill('ask me tomorrow');
        await card.getByTestId('decline-confirm').click();
        const d = await answer;
        assert.deepEqual([d.outcome, d.note], ['declined', 'ask me tomorrow']);
        await outcomeOf(id).filter({ hasText: 'Declined' }).waitFor({ timeout: 10_000 });
      });

      it('a handoff: a banner and a card show the reason, the input waits, and control goes back with a note', async () => {
        await settleQueue(page);
        const handoff = toolJson<HandoffAnswer>(
          agent,
          'computer_ctrl',
          { handoff: { reason: 'Please solve the CAPTCHA in the browser' } },
          { timeout: 120_000 },
        );
        const banner = page.getByTestId('handoff-banner');
        await banner.filter({ hasText: 'Please solve the CAPTCHA in the browser' }).waitFor({ timeout: 15_000 });
        const card = page.getByTestId('handoff-card');
        await card.waitFor();
        const act = toolJson<Receipt>(
          agent,
          'element_act',
          { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: `typed after the ${theme} handoff` },
          { timeout: 120_000 },
        );
        await banner.filter({ hasText: '1 input waits' }).waitFor({ timeout: 15_000 });
        await card.getByTestId('handoff-held').filter({ hasText: '1 input waits' }).waitFor();
        // Held before it is checked: no card of the input while the person has the desktop.
        assert.equal(await cardFor(page, 'name_entry').count(), 0);
        await screenshot(page, `handoff-${theme}-1280x720`);
        await banner.getByTestId('handoff-show').click();
        await card.getByTestId('handoff-note').fill('done, you can go on');
        await (await armed(card.getByTestId('resume-button'))).click();
        const resumed = await handoff;
        assert.deepEqual([resumed.outcome, resumed.resumed, resumed.note], ['resumed', true, 'done, you can go on']);
        await banner.waitFor({ state: 'detached' });
        // The held input now comes to the person as its own card.
        const actCard = cardFor(page, 'name_entry');
        await actCard.waitFor({ timeout: 15_000 });
        await (await armed(actCard.getByTestId('deny-button'))).click();
        await actCard.getByTestId('deny-confirm').click();
        assert.equal((await act).refusal?.code, 'denied');
      });
    });
  }
});
