import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from 'playwright-core';
import { imageToPhysical, physicalToImage, type Receipt, type ScreenshotAnswer, type ScreenTransform } from '../../protocol/index.js';
import { startPrivateDesktop, type LaunchedApp, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { approvalId, armed, settleQueue } from './queue.js';
import { UI_LANES, type UiLane, type UiSession } from './uiLanes.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
/** Where the canvas window is placed (the test desktop runs no window manager), and its size. */
const AT = { x: 160, y: 120 };
const SIZE = { width: 400, height: 300 };

/** The colour a picture shows at a picture pixel, read from the <img> itself through a canvas. */
async function pictureRgb(picture: Locator, x: number, y: number): Promise<[number, number, number]> {
  return picture.locator('img').evaluate(
    (img: HTMLImageElement, [px, py]) => {
      const c = document.createElement('canvas');
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const g = c.getContext('2d');
      if (g === null) throw new Error('no 2d context');
      g.drawImage(img, 0, 0);
      const d = g.getImageData(px as number, py as number, 1, 1).data;
      return [d[0] ?? 0, d[1] ?? 0, d[2] ?? 0] as [number, number, number];
    },
    [x, y],
  );
}

/** Which of the canvas's quadrant colours (red, green, blue, yellow) a pixel is, within JPEG's error; 'other' otherwise. */
function quadrant([r, g, b]: [number, number, number]): string {
  const hi = (v: number) => v > 180;
  const lo = (v: number) => v < 80;
  if (hi(r) && lo(g) && lo(b)) return 'red';
  if (lo(r) && hi(g) && lo(b)) return 'green';
  if (lo(r) && lo(g) && hi(b)) return 'blue';
  if (hi(r) && hi(g) && lo(b)) return 'yellow';
  return 'other';
}

/**
 * The Screen view and screen input cards (docs/tools.md#screen-tier: "so the person sees what the agent sees")
 * against the real supervisor and helper on the test desktop, with the canvas fixture at a known
 * place: the view's picture is the screen, and the element outline lands on the element's pixels.
 */
for (const lane of UI_LANES) {
  const why = lane.unavailable();
  if (why !== undefined) {
    describe(`the screen in the supervisor UI (${lane.name} lane)`, () => {
      it(`runs the screen specs in the ${lane.name} lane`, { skip: why }, () => {});
    });
    continue;
  }
  screenSpecs(lane);
}

function screenSpecs(lane: UiLane): void {
  describe(`the screen in the supervisor UI (${lane.name} lane)`, () => {
    let desktop: PrivateDesktop;
    let canvas: LaunchedApp;
    let ui: UiSession;
    let agent: Client;
    let page: Page;
    const shot = (name: string): Promise<string> => screenshot(page, lane.name === 'browser' ? name : `${lane.name}-${name}`);

    before(async () => {
      desktop = await startPrivateDesktop();
      canvas = await desktop.launch('/usr/bin/python3', [CANVAS, '--x', String(AT.x), '--y', String(AT.y)], { waitForWindow: 'Overseer Canvas' });
      ui = await lane.start(desktop.env);
      page = ui.page;
      agent = await httpClient(ui.mcp, 'screen-test-agent');
      await page.getByTestId('brake-state').waitFor();
    });
    after(async () => {
      await agent?.close().catch(() => {});
      await ui?.stop();
      await desktop?.stop();
    });

    it('shows the screen beside the tree and outlines the selected element on its own pixels', async () => {
      await page.getByTestId('window-item').filter({ hasText: 'Overseer Canvas' }).click();
      await page.getByTestId('tree-row').first().waitFor({ timeout: 15_000 });
      await page.getByTestId('aside-screen').click();
      await page.getByTestId('screen-whole').check();
      const view = page.getByTestId('screen-view');
      await page.getByTestId('screen-view-picture').locator('img').waitFor();
      await page.getByTestId('tree-row').first().click();
      const outline = page.getByTestId('screen-outline');
      await outline.waitFor({ timeout: 10_000 });
      const t = JSON.parse((await view.getAttribute('data-transform')) ?? '{}') as ScreenTransform;
      const o = Object.fromEntries(await Promise.all(['x', 'y', 'w', 'h'].map(async (k) => [k, Number(await outline.getAttribute(`data-${k}`))]))) as Record<
        'x' | 'y' | 'w' | 'h',
        number
      >;
      // The window element's rect is where the canvas was placed; on the picture it is (physical − origin) / scale.
      const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} ≠ ${b}`);
      near(o.x, (AT.x - t.origin.x) / t.scale_x, 'x');
      near(o.y, (AT.y - t.origin.y) / t.scale_y, 'y');
      near(o.w, SIZE.width / t.scale_x, 'w');
      near(o.h, SIZE.height / t.scale_y, 'h');
      const picture = page.getByTestId('screen-view-picture');
      // And the picture shows the canvas's quadrants just inside the outline's corners, and something else just outside.
      const inset = 6;
      const px = (v: number) => Math.round(v);
      assert.equal(quadrant(await pictureRgb(picture, px(o.x + inset), px(o.y + inset))), 'red');
      assert.equal(quadrant(await pictureRgb(picture, px(o.x + o.w - inset), px(o.y + inset))), 'green');
      assert.equal(quadrant(await pictureRgb(picture, px(o.x + inset), px(o.y + o.h - inset))), 'blue');
      assert.equal(quadrant(await pictureRgb(picture, px(o.x + o.w - inset), px(o.y + o.h - inset))), 'yellow');
      assert.equal(quadrant(await pictureRgb(picture, px(o.x - inset), px(o.y - inset))), 'other');
      // The outline is drawn where the picture shows it: its box on the page is the picture's box scaled.
      const img = await page.getByTestId('screen-view-picture').locator('img').boundingBox();
      const box = await outline.locator('rect.mark-outline').boundingBox();
      const natural = Number(await page.getByTestId('screen-view-picture').getAttribute('data-width'));
      assert.ok(img !== null && box !== null);
      const k = img.width / natural;
      // Centers compared (the page box includes the 2 px stroke, drawn at the same width at any scale).
      const center = { x: img.x + (o.x + o.w / 2) * k, y: img.y + (o.y + o.h / 2) * k };
      assert.ok(
        Math.abs(box.x + box.width / 2 - center.x) < 1 && Math.abs(box.y + box.height / 2 - center.y) < 1 && Math.abs(box.width - o.w * k) < 3,
        `outline at ${box.x},${box.width} on the page; picture at ${img.x},${img.width} (${natural} px), outline ${o.x},${o.w}`,
      );
      await shot('screen-view');
    });

    it('shows a click card with the screenshot the agent planned on, the point marked on its pixel, the crop, the element and window', async () => {
      await page.getByTestId('aside-detail').click();
      const shotAnswer = (await agent.callTool({ name: 'screenshot', arguments: {} })).structuredContent as ScreenshotAnswer;
      // A point in the canvas's green quadrant, in the screenshot's image pixels (the desktop is downscaled 1.5×).
      const point = physicalToImage(shotAnswer, AT.x + 300, AT.y + 75);
      const phys = imageToPhysical(shotAnswer, point.x, point.y);
      const answer = toolJson<Receipt>(agent, 'click', { x: point.x, y: point.y }, { timeout: 120_000 });
      const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-input') });
      await card.waitFor({ timeout: 15_000 });
      assert.match(await card.getByTestId('card-action').innerText(), /^click$/i);
      // The card shows the crop around the point; its details the whole screenshot and every field.
      const crop = card.getByTestId('screen-crop');
      await crop.locator('img').waitFor();
      await card.getByTestId('card-details-button').click();
      const details = page.getByTestId('card-details');
      const picture = details.getByTestId('screen-picture');
      await picture.locator('img').waitFor();
      assert.equal(Number(await picture.getAttribute('data-width')), shotAnswer.width, 'the picture is the screenshot the agent planned on');
      assert.equal(await card.getByTestId('screen-input').getAttribute('data-planned'), 'true');
      assert.equal(await card.getByTestId('screen-unplanned').count(), 0);
      const mark = picture.getByTestId('screen-mark-point');
      assert.equal(Number(await mark.getAttribute('data-x')), point.x + 0.5, 'the mark is on the center of the picture pixel the agent named');
      assert.equal(Number(await mark.getAttribute('data-y')), point.y + 0.5);
      assert.equal(quadrant(await pictureRgb(picture, point.x, point.y)), 'green', 'the marked pixel shows what the click lands on');
      const cropPoint = crop.getByTestId('screen-mark-point');
      const cx = Number(await cropPoint.getAttribute('data-x')) - 0.5;
      const cy = Number(await cropPoint.getAttribute('data-y')) - 0.5;
      assert.equal(quadrant(await pictureRgb(crop, cx, cy)), 'green', 'the crop is the screen at full resolution around the point');
      assert.match(await details.getByTestId('screen-window').innerText(), /Overseer Canvas/);
      assert.match(await details.getByTestId('screen-point').innerText(), new RegExp(`picture ${point.x},${point.y} → screen ${phys.x},${phys.y}`));
      const alt = (await picture.locator('img').getAttribute('alt')) ?? '';
      assert.ok(alt.includes(`click at ${point.x},${point.y} of the picture (screen ${phys.x},${phys.y})`), alt);
      await details.getByTestId('card-details-close').click();
      const approve = await armed(card.getByTestId('approve-button'));
      await shot('screen-card-click');
      await approve.click();
      const r = await answer;
      assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
      assert.deepEqual(r.screen?.physical, phys);
      await page.getByTestId('tab-receipts').click();
      const line = page.getByTestId('receipt-screen').first();
      await line.waitFor();
      assert.ok((await line.innerText()).startsWith(`click · ${point.x},${point.y} (screen ${phys.x},${phys.y})`), await line.innerText());
      await page
        .getByTestId('receipt-row')
        .filter({ has: page.getByTestId('receipt-screen') })
        .first()
        .click();
      await page.getByTestId('receipt-screen-detail').waitFor();
      // The timeline shows the screen right after the click, as the supervisor kept it.
      const after = page.getByTestId('receipt-picture');
      await after.waitFor();
      assert.match((await after.getAttribute('src')) ?? '', /^data:image\/jpeg;base64,/);
      assert.ok(await after.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the picture decodes');
      await shot('screen-receipts');
      await page.getByTestId('tab-tree').click();
    });

    it('marks a scroll with its direction and detents, a drag with its path, and says when the picture was captured for the card', async () => {
      // Tall enough that both cards fit without scrolling the queue: this spec is about their marks, not about scrolling.
      await page.setViewportSize({ width: 1280, height: 1500 });
      await settleQueue(page);
      const shotAnswer = (await agent.callTool({ name: 'screenshot', arguments: {} })).structuredContent as ScreenshotAnswer;
      const point = physicalToImage(shotAnswer, AT.x + 100, AT.y + 220);
      const scroll = toolJson<Receipt>(agent, 'scroll', { x: point.x, y: point.y, direction: 'down', amount: 4 }, { timeout: 120_000 });
      const scrollCard = page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-mark-scroll') });
      await scrollCard.waitFor({ timeout: 15_000 });
      assert.equal(await scrollCard.getByTestId('screen-mark-scroll').getAttribute('data-direction'), 'down');
      assert.match((await scrollCard.getByTestId('screen-mark-scroll').textContent()) ?? '', /×4/);
      assert.match(await scrollCard.getByTestId('screen-scroll').innerText(), /scroll down 4 detents/);
      // Raw physical points name no screenshot: the card's picture was captured for it, and it says so.
      const drag = toolJson<Receipt>(
        agent,
        'left_click_drag',
        { x: AT.x + 50, y: AT.y + 50, to_x: AT.x + 250, to_y: AT.y + 200, raw: true },
        { timeout: 120_000 },
      );
      const dragCard = page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-mark-drag') });
      await dragCard.waitFor({ timeout: 15_000 });
      assert.equal(await dragCard.getByTestId('screen-unplanned').innerText(), 'captured for this card: the agent named no screenshot');
      await armed(dragCard.getByTestId('deny-button'));
      await shot('screen-cards-scroll-drag');
      // The lower card first: deciding it never moves the one above.
      // Each by its approval id: denying replaces its picture (and its marks) with the reason field.
      for (const found of [dragCard, scrollCard]) {
        const c = page.locator(`[data-testid="pending-card"][data-approval-id="${await approvalId(found)}"]`);
        await (await armed(c.getByTestId('deny-button'))).click();
        await c.getByTestId('deny-confirm').click();
      }
      assert.equal((await scroll).refusal?.code, 'denied');
      assert.equal((await drag).refusal?.code, 'denied');
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    it('says "capture unavailable" with the reason when the window cannot be captured', async () => {
      await page.getByTestId('aside-screen').click();
      await page.getByTestId('screen-whole').uncheck();
      await page.getByTestId('screen-view-picture').locator('img').waitFor();
      await canvas.stop();
      await page.getByTestId('screen-refresh').click();
      const error = page.getByTestId('screen-error');
      await error.waitFor({ timeout: 10_000 });
      assert.match(await error.innerText(), /^capture unavailable: /);
      await shot('screen-view-unavailable');
    });
  });
}
