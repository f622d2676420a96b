import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import type { ScreenTransform } from '../../protocol/index.js';
import { startPrivateDesktop, type LaunchedApp, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/paths.js';
import { httpClient } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { UI_LANES, type UiLane, type UiSession } from './uiLanes.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
/** Where the canvas window is placed (the test desktop runs no window manager), and its size. */
const AT = { x: 160, y: 120 };
const SIZE = { width: 400, height: 300 };

/** The colour a picture shows at a picture pixel, read from the <img> itself through a canvas. */
async function pictureRgb(page: Page, testId: string, x: number, y: number): Promise<[number, number, number]> {
  return page
    .getByTestId(testId)
    .locator('img')
    .evaluate(
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
 * The Screen view and screen input cards (SPEC §9: "so the person sees what the agent sees")
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
      // And the picture shows the canvas's quadrants just inside the outline's corners, and something else just outside.
      const inset = 6;
      const px = (v: number) => Math.round(v);
      assert.equal(quadrant(await pictureRgb(page, 'screen-view-picture', px(o.x + inset), px(o.y + inset))), 'red');
      assert.equal(quadrant(await pictureRgb(page, 'screen-view-picture', px(o.x + o.w - inset), px(o.y + inset))), 'green');
      assert.equal(quadrant(await pictureRgb(page, 'screen-view-picture', px(o.x + inset), px(o.y + o.h - inset))), 'blue');
      assert.equal(quadrant(await pictureRgb(page, 'screen-view-picture', px(o.x + o.w - inset), px(o.y + o.h - inset))), 'yellow');
      assert.equal(quadrant(await pictureRgb(page, 'screen-view-picture', px(o.x - inset), px(o.y - inset))), 'other');
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

    it('says "capture unavailable" with the reason when the window cannot be captured', async () => {
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
