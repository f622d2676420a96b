import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Locator, Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { cardFor, installQueueProbe, queueCounts } from './queue.js';
import { UI_LANES, themePage, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1024, height: 700 },
] as const;

/** The test id of the element that has keyboard focus, or of its nearest ancestor that has one. */
const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.closest('[data-testid]')?.getAttribute('data-testid') ?? null);

/** Presses Tab until focus is inside `target` (at most `limit` times), as a person without a mouse would; answers how many presses it took. */
async function tabInto(page: Page, target: Locator, limit = 120): Promise<number> {
  for (let i = 1; i <= limit; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el.contains(document.activeElement))) return i;
  }
  throw new Error(`Tab never reached ${String(target)}`);
}

/**
 * A person's first run and a session without a mouse (docs/supervision.md#first-run,
 * docs/supervision.md#arming-and-decisions), in Debian's Chromium against the real `overseer serve`
 * and the helper on the private desktop: before any agent connects, the page leads to Settings →
 * Connect an agent, whose snippet connects a real MCP SDK client and whose check then names it;
 * focus starts at the brakes; two agents' cards — actions, a deny with a reason, a question — are
 * all decided by keys alone, with no refusal, no scrolling, and no card re-armed by being focused.
 */
describe('the first run and the keyboard (browser lane)', () => {
  const lane = UI_LANES.find((l) => l.name === 'browser');
  let desktop: PrivateDesktop;
  let ui: UiSession;
  const agents: Client[] = [];

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '5'], { waitForWindow: 'Overseer Fixture' });
    if (lane === undefined) throw new Error('no browser lane');
    ui = await lane.start(desktop.env);
    await ui.page.getByTestId('brake-state').and(ui.page.locator('[data-state="running"]')).waitFor();
  });
  after(async () => {
    for (const a of agents) await a.close().catch(() => {});
    await ui?.stop();
    await desktop?.stop();
  });

  it('before any agent connects, leads to the snippets, and says when an agent connected', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { page, close } = await themePage(ui, theme);
      try {
        for (const size of SIZES) {
          await page.setViewportSize(size);
          await page.getByTestId('tab-tree').click();
          const first = page.getByTestId('first-run');
          await first.waitFor();
          assert.match(await page.getByTestId('queue-empty').innerText(), /no agent is connected/);
          assert.equal(await page.getByTestId('agents-connect').count(), 1, 'the Agents panel links to Connect an agent');
          await screenshot(page, `first-run-${size.width}-${theme}`);
          await first.getByTestId('first-run-connect').click();
          const heading = page.getByRole('heading', { name: 'Connect an agent' });
          await heading.waitFor();
          assert.equal(await heading.evaluate((el) => el === document.activeElement), true, 'the heading has focus');
          const box = await heading.boundingBox();
          assert.ok(box !== null && box.y >= 0 && box.y + box.height <= size.height, `the heading is on screen: ${JSON.stringify(box)}`);
          assert.match(await page.getByTestId('agent-check').innerText(), /Waiting for an agent to connect/);
          await screenshot(page, `connect-agent-${size.width}-${theme}`);
        }
      } finally {
        await close();
      }
    }
    const page = ui.page;
    await page.setViewportSize({ width: 1280, height: 720 });
    const http = (
      JSON.parse(await page.getByTestId('settings-snippet-http-token').innerText()) as {
        mcpServers: { overseer: { url: string; headers: Record<string, string> } };
      }
    ).mcpServers.overseer;
    const agent = new Client({ name: 'first-run-agent', version: '1.0.0' });
    agents.push(agent);
    await agent.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: http.headers } }));
    await page.getByTestId('agent-check').filter({ hasText: 'Connected: first-run-agent (http)' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'connect-agent-connected-1280-light');
    await page.getByTestId('tab-tree').click();
    assert.equal(await page.getByTestId('first-run').count(), 0, 'once an agent is connected the tree asks for a window');
  });

  it('starts keyboard focus at the brakes, not in the queue, when the page opens', async () => {
    const page = ui.page;
    await page.reload();
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
    assert.notEqual(await focusedTestId(page), 'pending-card');
    await page.keyboard.press('Tab');
    assert.equal(await focusedTestId(page), 'brake-pause', 'the first control on screen is the first Tab stop');
  });

  it('decides two agents’ cards by keys alone: no refusal, no scroll, and focus never re-arms a card', async () => {
    const page = ui.page;
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.reload();
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
    await page.mouse.move(2, 2);
    await installQueueProbe(page);
    const [a, b] = [await httpClient(ui.mcp, 'keyboard-agent-a'), await httpClient(ui.mcp, 'keyboard-agent-b')];
    agents.push(a, b);
    const win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(a, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
    const act = (agent: Client, args: Record<string, unknown>) => toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 120_000 });
    const setName = act(a, { selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'typed by keys' });
    const oldest = cardFor(page, 'name_entry');
    await oldest.waitFor({ timeout: 15_000 });
    const count = act(b, { selector: { automation_id: 'counter' }, action: 'invoke' });
    await cardFor(page, 'counter').waitFor({ timeout: 15_000 });

    // The selected (oldest) card: reached by Tab, it keeps its arming — nothing moved.
    await oldest.getByTestId('approve-button').and(page.locator('[data-armed="true"]')).waitFor({ timeout: 5000 });
    const presses = await tabInto(page, oldest);
    assert.equal(await oldest.getByTestId('approve-button').getAttribute('data-armed'), 'true', 'focusing the card did not re-arm it');
    console.log(`[keyboard] ${presses} Tab presses from the brakes to the first card`);
    await page.waitForTimeout(900);
    const id = await oldest.getAttribute('data-approval-id');
    await page.keyboard.press('a');
    await page
      .locator(`[data-testid="pending-card"][data-approval-id="${id}"]`)
      .waitFor({ state: 'detached', timeout: 5000 })
      .catch(async () => {
        throw new Error(`A did not approve: focus ${await focusedTestId(page)}; ${await page.getByTestId('approval-queue').innerText()}`);
      });
    const named = await setName;
    assert.equal(named.outcome, 'completed', JSON.stringify(named));

    // The next card: D opens its reason, typed and confirmed by Enter.
    await page.waitForTimeout(900);
    await page.keyboard.press('d');
    const reason = page.getByTestId('deny-reason');
    await reason.waitFor();
    assert.equal(await reason.evaluate((el) => el === document.activeElement), true, 'the reason field has focus');
    await page.keyboard.type('not by keys');
    await page.keyboard.press('Enter');
    const denied = await count;
    assert.equal(denied.refusal?.code, 'denied');
    assert.equal(denied.decision?.note, 'not by keys');

    // A question: its choice reached by Tab and pressed with Enter.
    const asked = toolJson<{ outcome: string; answer?: string }>(
      a,
      'computer_ask',
      { question: 'Which one?', choices: ['left', 'right'] },
      { timeout: 120_000 },
    );
    const question = page.getByTestId('question-card');
    await question.waitFor({ timeout: 15_000 });
    const right = question.getByTestId('choice-button').filter({ hasText: 'right' });
    await right.and(page.locator('[data-armed="true"]')).waitFor({ timeout: 5000 });
    await tabInto(page, right);
    await page.keyboard.press('Enter');
    assert.deepEqual([(await asked).outcome, (await asked).answer], ['answered', 'right']);

    const counts = await queueCounts(page);
    console.log(`[keyboard] refusals ${counts.refusals.length}, scroll events ${counts.scrolls}`);
    assert.deepEqual(counts.refusals, [], 'a person who waits is never refused');
    assert.equal(counts.scrolls, 0, 'nothing scrolled');
    await screenshot(page, 'keyboard-session-1280-light');
  });

  it('says what a deny rule does — every action on the app refused, reads not — and does exactly that', async () => {
    const page = ui.page;
    // One of the keyboard spec's agents (its tiers are active; the first run's agent only connected).
    const agent = agents[1] as Client;
    const fixture = (await toolJson<{ windows: { window: string; title: string; app: string }[] }>(agent, 'window_list')).windows.find(
      (w) => w.title === 'Overseer Fixture',
    );
    assert.ok(fixture);
    await page.getByTestId('tab-settings').click();
    await page.getByLabel('Refuse every action on applications matching').fill(fixture.app);
    await page.getByTestId('settings-rule-add').click();
    const rule = page.getByTestId('settings-rule').filter({ hasText: fixture.app });
    await rule.waitFor();
    assert.match(await rule.innerText(), /every action on .* is refused \(reads are not: agents can still see it\)/);
    await screenshot(page, 'settings-deny-rule-1280-light');
    const read = await toolJson<{ matches: unknown[] }>(agent, 'element_find', { window: fixture.window, selector: { automation_id: 'counter' } });
    assert.equal(read.matches.length, 1, 'a read of the denied app still answers');
    const act = await toolJson<Receipt>(
      agent,
      'element_act',
      { window: fixture.window, selector: { automation_id: 'counter' }, action: 'invoke' },
      { timeout: 60_000 },
    );
    assert.equal(act.refusal?.code, 'denied', JSON.stringify(act));
    await rule.getByTestId('settings-rule-remove').click();
    await rule.waitFor({ state: 'detached' });
    await page.getByTestId('tab-tree').click();
  });
});
