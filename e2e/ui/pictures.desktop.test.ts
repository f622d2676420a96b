import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from 'playwright-core';
import { physicalToImage, type ElementFindAnswer, type Receipt, type ScreenshotAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { decodePng, rgbAt } from '../../main/testing/pngDecode.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { approvalId, armed, settleQueue } from './queue.js';
import { UI_LANES, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const VIEWPORT = { width: 1280, height: 720 };

/** Whether an agent call is still unanswered a moment from now. */
const stillWaiting = async (answer: Promise<unknown>): Promise<boolean> =>
  await Promise.race([answer.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 400))]);

/** The test id of the element that has the page's focus. */
const focusedTestId = (page: Page): Promise<string | null> => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);

/** Denies a card (the person's second step included) so that the next spec starts from an empty queue. */
async function deny(found: Locator): Promise<void> {
  // By its approval id: denying replaces the card's picture (what `found` may be filtered by) with the reason field.
  const card = found.page().locator(`[data-testid="pending-card"][data-approval-id="${await approvalId(found)}"]`);
  await (await armed(card.getByTestId('deny-button'))).click();
  await card.getByTestId('deny-confirm').click();
}

/**
 * docs/supervision.md#card-pictures through the real supervisor, helper and GTK fixture in Chromium
 * at 1280×720, light and dark: an element card shows its element large enough to read with an
 * outline that leaves it visible; every picture opens full size in a viewer that no queue key gets
 * past; a screen card names in words the element and window at its point, or the focused field.
 */
const lane = UI_LANES.find((l) => l.name === 'browser');
describe('pictures a person can judge from (browser lane)', () => {
  let desktop: PrivateDesktop;
  let ui: UiSession;
  let agent: Client;
  let win: string;

  before(async () => {
    if (lane === undefined) throw new Error('no browser lane');
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' });
    ui = await lane.start(desktop.env);
    agent = await httpClient(ui.mcp, 'pictures-test-agent');
    const fixture = (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find(
      (w) => w.title === 'Overseer Fixture',
    );
    win = fixture?.window ?? '';
    await ui.page.getByTestId('brake-state').and(ui.page.locator('[data-state="running"]')).waitFor();
  });
  after(async () => {
    await agent?.close().catch(() => {});
    await ui?.stop();
    await desktop?.stop();
  });

  const rectOf = async (id: string) => {
    const found = await toolJson<ElementFindAnswer>(agent, 'element_find', { window: win, selector: { automation_id: id } });
    const rect = found.matches[0]?.rect;
    assert.ok(rect !== undefined, `the fixture's ${id} has a rectangle`);
    return rect;
  };

  for (const theme of ['light', 'dark'] as const) {
    describe(`${theme} theme`, () => {
      let page: Page;
      let closeDark: (() => Promise<void>) | undefined;
      before(async () => {
        if (theme === 'dark') {
          const dark = await ui.darkPage();
          page = dark.page;
          closeDark = dark.close;
        } else page = ui.page;
        await page.setViewportSize(VIEWPORT);
        await page.getByTestId('brake-state').waitFor();
      });
      after(async () => {
        await closeDark?.();
      });
      // A spec that failed half way must not leave the next one a viewer or cards: close the one, deny the others.
      afterEach(async () => {
        if ((await page.getByTestId('picture-viewer').count()) > 0) await page.keyboard.press('Escape');
        const cards = page.getByTestId('pending-card');
        while ((await cards.count()) > 0) await deny(cards.first()).catch(() => {});
      });

      it('shows the checkbox of an element card large enough to read, outlined outside its edge, and opens the window full size; A decides nothing while the viewer is open', async () => {
        await settleQueue(page);
        const real = await rectOf('subscribe');
        const answer = toolJson<Receipt>(
          agent,
          'element_act',
          { window: win, selector: { automation_id: 'subscribe' }, action: 'toggle' },
          { timeout: 120_000 },
        );
        const card = page.getByTestId('pending-card').filter({ hasText: '#subscribe' });
        await card.waitFor({ timeout: 15_000 });
        const picture = card.getByTestId('card-picture');
        await picture.locator('img').waitFor({ timeout: 15_000 });
        const img = await picture.locator('img').boundingBox();
        const bytes = ((await picture.locator('img').getAttribute('src')) ?? '').length;
        const natural = { width: Number(await picture.getAttribute('data-width')), height: Number(await picture.getAttribute('data-height')) };
        const outline = card.getByTestId('card-outline');
        const box = await outline.boundingBox();
        const stroke = await outline.evaluate((el) => parseFloat(getComputedStyle(el).borderTopWidth));
        const region = await card.getByTestId('card-picture-region').boundingBox();
        assert.ok(img !== null && box !== null && region !== null);
        const k = img.width / natural.width;
        const h = Number(await outline.getAttribute('data-h')) * k;
        const w = Number(await outline.getAttribute('data-w')) * k;
        console.log(
          `[pictures] ${theme}: checkbox ${real.w}×${real.h} px on screen; on the card ${w.toFixed(1)}×${h.toFixed(1)} CSS px ` +
            `(picture ${natural.width}×${natural.height} shown at ${k.toFixed(3)}×), outline box ${box.width.toFixed(1)}×${box.height.toFixed(1)} px, ` +
            `stroke ${stroke} px; region ${region.width.toFixed(0)}×${region.height.toFixed(0)} px; the picture is ${(bytes / 1024).toFixed(0)} KiB as a data: URL`,
        );
        assert.ok(stroke >= 2, `the outline's stroke is ${stroke} px`);
        assert.ok(h >= real.h - 0.5 && w >= real.w - 0.5, `the checkbox is shown ${w}×${h} CSS px; it is ${real.w}×${real.h} on screen`);
        // The outline frames the element with room to spare: its inner edge lies outside the element's rectangle.
        const ex = img.x + Number(await outline.getAttribute('data-x')) * k;
        const ey = img.y + Number(await outline.getAttribute('data-y')) * k;
        assert.ok(
          box.x + stroke <= ex && box.y + stroke <= ey && box.x + box.width - stroke >= ex + w && box.y + box.height - stroke >= ey + h,
          'the outline leaves the element visible',
        );
        // The element's start (the box and its label; GTK stretches the check button across the column) and its whole height are in the region the card shows.
        assert.ok(
          ex >= region.x && ey >= region.y && ex + Math.min(w, 120) <= region.x + region.width && ey + h <= region.y + region.height,
          'the element is in the shown region',
        );
        await armed(card.getByTestId('approve-button'));
        await screenshot(page, `pictures-element-card-${theme}`);

        // Opened by a click: the whole window at its own size, in a modal viewer.
        await card.getByTestId('card-picture-open').click();
        const viewer = page.getByTestId('picture-viewer');
        await viewer.waitFor();
        const full = viewer.getByTestId('card-picture-full');
        await full.locator('img').waitFor();
        const shown = await full.locator('img').boundingBox();
        assert.ok(shown !== null);
        console.log(`[pictures] ${theme}: the viewer shows the ${natural.width}×${natural.height} picture at ${shown.width}×${shown.height} CSS px`);
        assert.equal(Math.round(shown.width), natural.width, 'full size');
        assert.equal(Math.round(shown.height), natural.height, 'full size');
        assert.equal(await focusedTestId(page), 'picture-viewer-close', 'the viewer takes the focus');
        await screenshot(page, `pictures-viewer-${theme}`);
        // The card under the viewer is selected and armed for keys: A would approve it, were the viewer not open.
        await card.and(page.locator('[data-keys-armed="true"]')).waitFor({ timeout: 5000 });
        for (const key of ['a', 'A', 's', 'd']) await page.keyboard.press(key);
        assert.equal(await stillWaiting(answer), true, 'no key decided the card under the viewer');
        assert.equal(await card.getByTestId('allow-step').count(), 0, 'S opened nothing under the viewer');
        assert.equal(await card.getByTestId('deny-confirm').count(), 0, 'D opened nothing under the viewer');
        await page.keyboard.press('Escape');
        await viewer.waitFor({ state: 'detached' });
        assert.equal(await focusedTestId(page), 'card-picture-open', 'the focus returns to the picture');
        // By keyboard too: Enter on the picture opens it, Escape closes it.
        await page.keyboard.press('Enter');
        await viewer.waitFor();
        await page.keyboard.press('Escape');
        await viewer.waitFor({ state: 'detached' });
        // And with the viewer closed the same key decides: the key press above was held back by the viewer alone.
        await card.and(page.locator('[data-keys-armed="true"]')).waitFor({ timeout: 5000 });
        await page.keyboard.press('a');
        const r = await answer;
        assert.equal(r.decision?.verdict, 'approved');
      });

      it('names the text field and window a screen click lands on, and shows the screen around the point 1:1', async () => {
        await settleQueue(page);
        const field = await rectOf('name_entry');
        const shot = (await agent.callTool({ name: 'screenshot', arguments: {} })).structuredContent as ScreenshotAnswer;
        // The empty part of the field, right of its text.
        const point = physicalToImage(shot, field.x + field.w - 12, field.y + Math.floor(field.h / 2));
        const answer = toolJson<Receipt>(agent, 'click', { x: point.x, y: point.y }, { timeout: 120_000 });
        const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-input') });
        await card.waitFor({ timeout: 15_000 });
        const at = await card.getByTestId('screen-element').innerText();
        console.log(`[pictures] ${theme}: click card — At: ${at}`);
        assert.match(at, /^the “Name” text field in “Overseer Fixture”/);
        assert.equal(await card.locator('dt', { hasText: /^At$/ }).count(), 1);
        const region = card.getByTestId('screen-crop-region');
        await card.getByTestId('screen-crop').locator('img').waitFor({ timeout: 15_000 });
        assert.equal(Number(await region.getAttribute('data-scale')), 1, 'the screen around the point is shown 1:1');
        const cropImg = await card.getByTestId('screen-crop').locator('img').boundingBox();
        const regionBox = await region.boundingBox();
        assert.ok(cropImg !== null && regionBox !== null);
        console.log(
          `[pictures] ${theme}: the crop ${Math.round(cropImg.width)}×${Math.round(cropImg.height)} px shows ${Math.round(regionBox.width)}×${Math.round(regionBox.height)} px around the point`,
        );
        // The point's mark is centred on the point in the region the card shows.
        const mark = await card.getByTestId('screen-crop').getByTestId('screen-mark-point').boundingBox();
        assert.ok(mark !== null);
        assert.ok(
          mark.x >= regionBox.x && mark.x <= regionBox.x + regionBox.width && mark.y >= regionBox.y && mark.y <= regionBox.y + regionBox.height,
          'the point is in view',
        );
        await armed(card.getByTestId('deny-button'));
        await screenshot(page, `pictures-screen-click-${theme}`);
        // The whole screenshot opens full size too.
        await card.getByTestId('screen-picture-open').click();
        const full = page.getByTestId('picture-viewer').getByTestId('screen-picture-full');
        await full.locator('img').waitFor();
        assert.equal(Math.round((await full.locator('img').boundingBox())?.width ?? 0), shot.width);
        await page.keyboard.press('Escape');
        await page.getByTestId('picture-viewer').waitFor({ state: 'detached' });
        await deny(card);
        assert.equal((await answer).refusal?.code, 'denied');
      });

      it('names the focused field and app a type_text card types into', async () => {
        await settleQueue(page);
        const focused = await toolJson<Receipt>(
          agent,
          'element_act',
          { window: win, selector: { automation_id: 'name_entry' }, action: 'focus' },
          { timeout: 60_000 },
        );
        assert.equal(focused.outcome, 'completed', JSON.stringify(focused.refusal ?? focused.error));
        const answer = toolJson<Receipt>(agent, 'type_text', { text: 'Bob' }, { timeout: 120_000 });
        const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-text') });
        await card.waitFor({ timeout: 15_000 });
        const into = await card.getByTestId('screen-element').innerText();
        console.log(`[pictures] ${theme}: type_text card — Into: ${into}`);
        assert.match(into, /^the “Name” text field, which has the keyboard focus, in “Overseer Fixture”/);
        assert.equal(await card.locator('dt', { hasText: /^Into$/ }).count(), 1);
        // The picture shows where the keys go: a 1:1 crop around the field, the field outlined on it and on the whole screen.
        const field = await rectOf('name_entry');
        const crop = card.locator('figure.screen-crop[data-shows="focus"]');
        await crop.locator('img').waitFor({ timeout: 15_000 });
        const cropOutline = crop.getByTestId('card-outline');
        assert.deepEqual(
          [Number(await cropOutline.getAttribute('data-w')), Number(await cropOutline.getAttribute('data-h'))],
          [field.w, field.h],
          'the crop outlines the field at its own size, as element_find reads it',
        );
        assert.equal(Number(await crop.getByTestId('screen-crop-region').getAttribute('data-scale')), 1, 'the field is shown 1:1');
        const cropBox = await crop.getByTestId('screen-crop-region').boundingBox();
        const outlineBox = await cropOutline.boundingBox();
        assert.ok(cropBox !== null && outlineBox !== null);
        assert.ok(
          outlineBox.x >= cropBox.x - 1 && outlineBox.y >= cropBox.y - 1 && outlineBox.y + outlineBox.height <= cropBox.y + cropBox.height + 1,
          `the outlined field is in the region the card shows: outline ${JSON.stringify(outlineBox)}, region ${JSON.stringify(cropBox)}`,
        );
        const shot = (await agent.callTool({ name: 'screenshot', arguments: {} })).structuredContent as ScreenshotAnswer;
        const whole = card.getByTestId('screen-picture');
        const natural = await whole.locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth);
        const k = (shot.width * shot.scale_x) / natural;
        const wholeOutline = card.locator('.screen-whole').getByTestId('card-outline');
        const [ox, oy] = [Number(await wholeOutline.getAttribute('data-x')) * k, Number(await wholeOutline.getAttribute('data-y')) * k];
        assert.ok(
          Math.abs(ox - field.x) <= k + 1 && Math.abs(oy - field.y) <= k + 1,
          `the whole screen's outline is on the field: ${ox.toFixed(1)},${oy.toFixed(1)} against ${field.x},${field.y}`,
        );
        assert.equal(await crop.locator('figcaption').innerText(), 'where the keys go: the element with the keyboard focus, outlined');
        console.log(
          `[pictures] ${theme}: type_text card — the ${field.w}×${field.h} field outlined 1:1 in a ${Math.round(cropBox.width)}×${Math.round(cropBox.height)} px region`,
        );
        await armed(card.getByTestId('deny-button'));
        await screenshot(page, `pictures-type-text-${theme}`);
        await deny(card);
        assert.equal((await answer).refusal?.code, 'denied');
      });

      it('grows the crop of a click into a plain area until it shows where the point is, and says so', async () => {
        await settleQueue(page);
        const frame = (
          await toolJson<{ windows: { window: string; rect?: { x: number; y: number; w: number; h: number } }[] }>(agent, 'window_list')
        ).windows.find((w) => w.window === win)?.rect;
        assert.ok(frame !== undefined, 'the fixture window has a rectangle');
        const taken = await agent.callTool({ name: 'screenshot', arguments: {} });
        const shot = taken.structuredContent as ScreenshotAnswer;
        const png = decodePng(Buffer.from((taken.content as { type: string; data?: string }[]).find((c) => c.type === 'image')?.data ?? '', 'base64'));
        // A point of the fixture window with nothing but its background 200×120 px around it, read off the agent's own screenshot.
        const plainAround = (cx: number, cy: number): boolean => {
          const [hx, hy] = [Math.ceil(200 / shot.scale_x), Math.ceil(120 / shot.scale_y)];
          const base = rgbAt(png, cx, cy);
          for (let y = cy - hy; y < cy + hy; y++)
            for (let x = cx - hx; x < cx + hx; x++) if (rgbAt(png, x, y).some((v, i) => Math.abs(v - (base[i] ?? 0)) > 24)) return false;
          return true;
        };
        let point: { x: number; y: number } | undefined;
        const from = physicalToImage(shot, frame.x + 210, frame.y + 130);
        const to = physicalToImage(shot, frame.x + frame.w - 210, frame.y + frame.h - 130);
        for (let y = to.y; y >= from.y && point === undefined; y -= 8)
          for (let x = from.x; x <= to.x && point === undefined; x += 8) if (plainAround(x, y)) point = { x, y };
        assert.ok(point !== undefined, 'the fixture window has a plain area 400×240 px');
        const answer = toolJson<Receipt>(agent, 'click', { x: point.x, y: point.y }, { timeout: 120_000 });
        const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-input') });
        await card.waitFor({ timeout: 15_000 });
        const crop = card.locator('figure.screen-crop');
        await crop.locator('img').waitFor({ timeout: 15_000 });
        const natural = await crop
          .locator('img')
          .evaluate((img) => ({ w: (img as HTMLImageElement).naturalWidth, h: (img as HTMLImageElement).naturalHeight }));
        console.log(`[pictures] ${theme}: a click into plain background crops ${natural.w}×${natural.h} (${await crop.getAttribute('data-shows')})`);
        assert.equal(await crop.getAttribute('data-shows'), 'whole', 'the crop grew and is shown whole');
        assert.ok(natural.w > 400 && natural.h > 240, `the crop grew past 400×240: ${natural.w}×${natural.h}`);
        assert.match(await crop.locator('figcaption').innerText(), /shrunk: right around it is plain background/);
        await armed(card.getByTestId('deny-button'));
        await screenshot(page, `pictures-plain-click-${theme}`);
        assert.equal(await crop.getByTestId('screen-mark-point').count(), 1, 'the point is marked on the crop');
        await deny(card);
        assert.equal((await answer).refusal?.code, 'denied');
      });
    });
  }
});
