import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { answerRemoteDesktop, answerScreenshotQuestion } from '../../desktop/gnomeDialogs.js';
import { startGnomeDesktop, type GnomeDesktop } from '../../desktop/gnomeDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { LANDING_GRACE_MS } from '../../main/core/supervision/landingGuard.js';
import { canvasIn } from '../../main/testing/canvasPattern.js';
import { decodePng } from '../../main/testing/pngDecode.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { approvalId, armed, settleQueue } from './queue.js';
import { UI_LANES, themePage, type UiSession } from './uiLanes.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const THEMES = ['light', 'dark'] as const;

/**
 * The screen tier of a GNOME Wayland desktop in the real UI (docs/wayland.md#windows-and-coordinates,
 * docs/security.md#screen-input-where-windows-are-unknown), at 1280×720 in both themes, against the
 * real supervisor and helper with the MCP SDK as the agent: a click card says its place is unknown,
 * a typing card names the window the keys go to, a decision made while an agent's input lands
 * comes back saying why and is taken a second later, and Settings → Screen says what Overseer
 * cannot do there.
 */
describe('a Wayland desktop in the supervisor UI', () => {
  const lane = UI_LANES.find((l) => l.name === 'browser');
  let desktop: GnomeDesktop;
  let ui: UiSession;
  let agent: Client;
  let canvas: { x: number; y: number };
  let consented = false;

  before(async () => {
    desktop = await startGnomeDesktop({ width: 1280, height: 800 });
    await desktop.launch('/usr/bin/python3', [CANVAS], { waitForWindow: 'Overseer Canvas' });
    if (lane === undefined) throw new Error('no browser lane');
    ui = await lane.start(desktop.env);
    agent = await httpClient(ui.mcp, 'wayland-ui-agent');
    // The first screenshot asks the person on the desktop itself; they allow it.
    const shoot = async (): Promise<{ x: number; y: number } | undefined> => {
      const r = await agent.callTool({ name: 'screenshot', arguments: {} });
      const image = (r.content as { type: string; data?: string }[]).find((c) => c.type === 'image');
      return image?.data === undefined ? undefined : canvasIn(decodePng(Buffer.from(image.data, 'base64')));
    };
    let found = (await Promise.all([shoot(), answerScreenshotQuestion(desktop, 'Allow')]))[0];
    for (let i = 0; found === undefined && i < 50; i++) {
      await sleep(100);
      found = await shoot();
    }
    if (found === undefined) throw new Error('the canvas is not in the screenshot');
    canvas = found;
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
      const screenCards = (): Locator => page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-input') });
      /** The ids of the screen cards shown now, so that a card a failed test left behind is never taken for the next one. */
      const shown = async (): Promise<Set<string>> =>
        new Set(await Promise.all((await screenCards().all()).map(async (c) => (await c.getAttribute('data-approval-id')) ?? '')));
      /** The one screen card that is not among `old`, once it shows. */
      const newCard = async (old: Set<string>): Promise<Locator> => {
        for (let i = 0; i < 300; i++) {
          for (const card of await screenCards().all()) if (!old.has((await card.getAttribute('data-approval-id')) ?? '')) return card;
          await sleep(50);
        }
        throw new Error('no new card');
      };

      it('a click card says its place is unknown; approved, the click lands', async () => {
        await settleQueue(page);
        const old = await shown();
        const answer = toolJson<Receipt>(agent, 'click', { x: canvas.x + 40, y: canvas.y + 30 }, { timeout: 120_000 });
        const card = await newCard(old);
        assert.match(await card.getByTestId('screen-element').innerText(), /place unknown[\s\S]*could land on any window, Overseer's own included/);
        await screenshot(page, `wayland-click-card-${theme}`);
        await (await armed(card.getByTestId('approve-button'))).click();
        // The first input asks the person on the desktop itself, once.
        if (!consented) await answerRemoteDesktop(desktop, 'share');
        consented = true;
        const r = await answer;
        assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
      });

      it('a typing card names the window the keys go to, as the accessibility tree says', async () => {
        await settleQueue(page);
        await sleep(LANDING_GRACE_MS);
        const old = await shown();
        const answer = toolJson<Receipt>(agent, 'type_text', { text: `Привет ${theme}` }, { timeout: 120_000 });
        const card = await newCard(old);
        // The compact card names the window on the element's row.
        assert.match(await card.getByTestId('screen-element').innerText(), /Overseer Canvas/);
        assert.equal(await card.getByTestId('screen-element').getByText('place unknown').count(), 0);
        await screenshot(page, `wayland-type-card-${theme}`);
        await (await armed(card.getByTestId('approve-button'))).click();
        assert.equal((await answer).outcome, 'completed');
      });

      it("a card approved while an agent's input lands comes back saying why, and is taken a second later", async () => {
        await settleQueue(page);
        await sleep(LANDING_GRACE_MS);
        const old = await shown();
        const waiting = toolJson<Receipt>(agent, 'click', { x: canvas.x + 60, y: canvas.y + 50 }, { timeout: 120_000 });
        const waitingCard = await newCard(old);
        const waitingId = await approvalId(waitingCard);
        const holding = toolJson<Receipt>(agent, 'hold_key', { keys: 'shift', duration_ms: 3000 }, { timeout: 120_000 });
        const holdingCard = await newCard(new Set([...old, waitingId]));
        await (await armed(holdingCard.getByTestId('approve-button'))).click();
        await sleep(500);
        const again = page.locator(`[data-testid="pending-card"][data-approval-id="${waitingId}"]`);
        await (await armed(again.getByTestId('approve-button'))).click();
        const note = again.getByTestId('card-note');
        await note.filter({ hasText: 'could have been them' }).waitFor({ timeout: 5000 });
        assert.match(await note.innerText(), /^Not decided: .*an agent's click or keys were landing on this desktop/);
        await screenshot(page, `wayland-landing-refused-${theme}`);
        assert.equal((await holding).outcome, 'completed');
        await sleep(LANDING_GRACE_MS);
        await (await armed(again.getByTestId('approve-button'))).click();
        assert.equal((await waiting).outcome, 'completed');
      });

      it('Settings → Screen says what Overseer cannot do on this desktop', async () => {
        await page.getByTestId('tab-settings').click();
        const words = page.getByTestId('screen-windows-unknown');
        await words.waitFor();
        assert.match(await words.innerText(), /tells no program where windows are[\s\S]*another workspace/);
        await words.scrollIntoViewIfNeeded();
        await screenshot(page, `wayland-settings-screen-${theme}`);
        await page.getByTestId('tab-tree').click();
      });
    });
  }
});
