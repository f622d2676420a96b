import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from 'playwright-core';
import { physicalToImage, type Receipt, type ScreenshotAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { audit, describeViolations } from './axe.js';
import { screenshot } from './browser.js';
import { armed, cardFor } from './queue.js';
import { UI_LANES, type UiLane, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
/** The sizes the UI must work at: a small laptop, a common laptop, a desktop monitor. */
const SIZES = [
  { width: 1024, height: 700 },
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
] as const;
const THEMES = ['light', 'dark'] as const;
type Theme = (typeof THEMES)[number];
/** The narrowest the element tree may be at any of SIZES (docs/supervision.md#both-themes-and-small-screens: it once was 110 px at 1024). */
const TREE_MIN = 280;
/** The queue's initial width, growing with the window (docs/supervision.md#both-themes-and-small-screens): at 1280 px and at 1024 px. */
const QUEUE_INITIAL = { 1280: 495, 1024: 410 } as const;
/** The panels that scroll up and down but must never hide anything sideways. */
const PANELS = [
  '.sidebar',
  '.panel',
  '.queue-column',
  '.view',
  '.tree-scroll',
  '.tree-aside',
  '.detail',
  '.settings-view',
  '.receipts-scroll',
  '.card',
  '.topbar',
  '.brake',
];

/** Panels whose content is wider than they are (content cut off or scrolled sideways), with both widths. */
async function clippedPanels(page: Page): Promise<string[]> {
  return page.evaluate((selectors) => {
    const out: string[] = [];
    for (const sel of selectors)
      document.querySelectorAll(sel).forEach((el, i) => {
        if (el.scrollWidth > el.clientWidth + 1) out.push(`${sel}[${i}] scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}`);
      });
    return out;
  }, PANELS);
}

/** Asserts an element is wholly inside the viewport (scrolled to first, as a person would), and its text is not cut. */
async function assertWhole(page: Page, el: Locator, what: string): Promise<void> {
  await el.scrollIntoViewIfNeeded();
  const box = await el.boundingBox();
  const vp = page.viewportSize();
  assert.ok(box !== null && vp !== null, `${what} is on the page`);
  assert.ok(
    box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width + 0.5 && box.y + box.height <= vp.height + 0.5,
    `${what} lies within the ${vp.width}×${vp.height} viewport: ${JSON.stringify(box)}`,
  );
  const cut = await el.evaluate((e) =>
    e.scrollWidth > e.clientWidth + 1 ? `scrollWidth ${e.scrollWidth} > clientWidth ${e.clientWidth}: ${e.outerHTML.slice(0, 400)}` : '',
  );
  assert.equal(cut, '', `${what} shows all of its text`);
}

/**
 * Clicks a control that decides once it has armed, and waits for what the click opens. A click
 * right after the queue scrolled can land before the card's new place was measured and be refused
 * as "moved" (the card's note says so); a person clicks again, and so does this.
 */
async function clickArmedFor(control: Locator, opens: Locator): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await (await armed(control)).click();
    try {
      await opens.waitFor({ timeout: 2000 });
      return;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

/** A separator's value (the width of the pane it resizes) and the pane's laid-out width. */
async function paneWidth(page: Page, splitter: string, pane: string): Promise<{ value: number; box: number }> {
  const value = Number(await page.getByTestId(splitter).getAttribute('aria-valuenow'));
  const box = (await page.locator(pane).boundingBox())?.width ?? -1;
  return { value, box: Math.round(box) };
}

/**
 * docs/supervision.md#both-themes-and-small-screens, through the real UI against the real supervisor and helper on the test
 * desktop: in both themes and at 1024×700, 1280×720 and 1920×1080, with element, risky and screen
 * cards pending, axe-core finds no text or control under 4.5:1, the tree is at least 280 px wide,
 * no panel clips sideways, and the emergency notice, the deny reason, the card buttons and the
 * settings are whole on screen; the panes resize by mouse and keyboard and are remembered.
 */
for (const lane of UI_LANES) {
  const why = lane.unavailable();
  if (why !== undefined) {
    describe(`both themes at every size (${lane.name} lane)`, () => {
      it(`runs the look specs in the ${lane.name} lane`, { skip: why }, () => {});
    });
    continue;
  }
  lookSpecs(lane);
}

function lookSpecs(lane: UiLane): void {
  describe(`both themes at every size (${lane.name} lane)`, () => {
    let desktop: PrivateDesktop;
    let ui: UiSession;
    let agent: Client;
    let win: string;
    const answers: Promise<unknown>[] = [];
    const act = (args: Record<string, unknown>): Promise<Receipt & { error?: { code: string } }> =>
      toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 120_000 });
    const shotName = (name: string): string => (lane.name === 'browser' ? `look-${name}` : `${lane.name}-look-${name}`);

    /** Runs `body` on a page in each theme (the dark one opened for it and closed after). */
    async function inEachTheme(body: (page: Page, theme: Theme) => Promise<void>): Promise<void> {
      for (const theme of THEMES) {
        if (theme === 'light') {
          await body(ui.page, theme);
          continue;
        }
        const dark = await ui.darkPage();
        try {
          await dark.page.getByTestId('brake-state').waitFor();
          await body(dark.page, theme);
        } finally {
          await dark.close();
        }
      }
    }

    /** Audits with every axe-core rule (contrast, landmarks, headings, focusable scrolling regions…), prints what it found, and asserts there is nothing. */
    async function assertAxe(page: Page, where: string): Promise<void> {
      const found = await audit(page, 'all');
      const nodes = found.reduce((n, v) => n + v.nodes.length, 0);
      console.log(`[look] ${where}: ${nodes} axe violation(s)${found.length > 0 ? `: ${found.map((v) => v.rule).join(', ')}` : ''}`);
      assert.equal(found.length, 0, `${where}:\n${describeViolations(found)}`);
    }

    before(async () => {
      desktop = await startPrivateDesktop();
      await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
      ui = await lane.start(desktop.env);
      agent = await httpClient(ui.mcp, 'look-test-agent');
      win =
        (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
        '';
      const page = ui.page;
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
      // The cards stay for the whole spec: it looks at them, it does not decide them.
      await page.getByTestId('tab-settings').click();
      await page.getByLabel('Approval expiry (seconds)').fill('3600');
      await page.getByTestId('settings-save').click();
      await page.getByTestId('tab-tree').click();
      // Receipts to read: one approved, one denied with a reason.
      const approved = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Bob' });
      await (await armed(cardFor(page, 'name_entry').getByTestId('approve-button'))).click();
      assert.equal((await approved).outcome, 'completed');
      const denied = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      await (await armed(cardFor(page, 'counter').getByTestId('deny-button'))).click();
      await page.getByTestId('deny-reason').fill('not now');
      await page.getByTestId('deny-reason').press('Enter');
      assert.equal((await denied).refusal?.code, 'denied');
      // Cards left pending: a risky set_value (the risk banner), a screen click, and an invoke that
      // waits for a free place where two places fit (1024×700, 1280×720) and is shown at 1920×1080.
      answers.push(act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Send the order now' }).catch(() => undefined));
      await page.getByTestId('risk-hints').waitFor({ timeout: 15_000 });
      const shot = (await agent.callTool({ name: 'screenshot', arguments: {} })).structuredContent as ScreenshotAnswer;
      const point = physicalToImage(shot, 60, 60);
      answers.push(toolJson(agent, 'click', { x: point.x, y: point.y }, { timeout: 120_000 }).catch(() => undefined));
      await page
        .getByTestId('pending-card')
        .filter({ has: page.getByTestId('screen-input') })
        .waitFor({ timeout: 15_000 });
      answers.push(act({ selector: { automation_id: 'dup_a' }, action: 'invoke' }).catch(() => undefined));
      await page.getByTestId('queue-more').getByText('1 more waits').waitFor({ timeout: 15_000 });
      await page.getByTestId('window-item').filter({ hasText: 'Overseer Fixture' }).click();
      await page.getByTestId('tree-row').first().waitFor({ timeout: 15_000 });
    });
    after(async () => {
      await agent?.close().catch(() => {});
      await ui?.stop();
      await desktop?.stop();
      await Promise.allSettled(answers);
    });

    it('passes every axe-core rule (contrast, landmarks, headings, focusable scrolling regions) and keeps the tree ≥ 280 px with nothing cut off, in both themes at every size, with cards pending', async () => {
      await inEachTheme(async (page, theme) => {
        for (const size of SIZES) {
          const at = `${theme} ${size.width}×${size.height}`;
          await page.setViewportSize(size);
          // The tree with a selection, its details beside it, and the queue's cards.
          await page.getByTestId('tab-tree').click();
          await page.getByTestId('window-item').filter({ hasText: 'Overseer Fixture' }).click();
          await page.getByTestId('tree-row').nth(1).click();
          await page.getByTestId('pending-card').first().scrollIntoViewIfNeeded();
          for (const card of await page.getByTestId('pending-card').all()) await armed(card.getByTestId('approve-button'));
          const tree = await page.locator('.tree-scroll').boundingBox();
          const placement = await page.locator('.tree-split').getAttribute('data-placement');
          console.log(`[look] ${at}: tree ${Math.round(tree?.width ?? 0)} px wide, details ${placement} it`);
          assert.ok(tree !== null && tree.width >= TREE_MIN, `${at}: the tree is ${tree?.width} px wide`);
          assert.deepEqual(await clippedPanels(page), [], `${at}: no panel clips sideways`);
          for (const [i, card] of (await page.getByTestId('pending-card').all()).entries())
            for (const b of ['approve-button', 'deny-button', 'allow-session-button']) await assertWhole(page, card.getByTestId(b), `${at}: card ${i} ${b}`);
          await assertAxe(page, `${at} tree and cards`);
          await screenshot(page, shotName(`tree-${size.width}-${theme}`));
          // The deny reason, opened on the risky card.
          const risky = page.getByTestId('pending-card').filter({ has: page.getByTestId('risk-hints') });
          await clickArmedFor(risky.getByTestId('deny-button'), risky.getByTestId('deny-reason'));
          await assertWhole(page, risky.getByTestId('deny-reason'), `${at}: the deny reason`);
          // What the agent will be told is read whole while typed: the field spans the card and grows with the text.
          const told = 'Not now: the order goes out on Friday after the review, and the address in the form is the old one — check it first. '.repeat(2);
          await risky.getByTestId('deny-reason').fill(told);
          const field = await risky.getByTestId('deny-reason').evaluate((el) => ({
            hidden: el.scrollHeight - el.clientHeight,
            width: el.getBoundingClientRect().width,
            card: el.closest('[data-testid="pending-card"]')?.getBoundingClientRect().width ?? 0,
          }));
          assert.ok(field.hidden <= 1, `${at}: none of the reason is scrolled out of its field (${field.hidden} px)`);
          assert.ok(field.width >= 0.8 * field.card, `${at}: the reason spans the card (${Math.round(field.width)} of ${Math.round(field.card)} px)`);
          await assertWhole(page, risky.getByTestId('deny-reason'), `${at}: the deny reason with its text`);
          await assertWhole(page, risky.getByTestId('deny-confirm'), `${at}: the deny button`);
          await assertAxe(page, `${at} deny form`);
          await screenshot(page, shotName(`deny-${size.width}-${theme}`));
          await risky.getByTestId('deny-cancel').click();
          // The screen card's picture and fields.
          const screenCard = page.getByTestId('pending-card').filter({ has: page.getByTestId('screen-input') });
          await screenCard.scrollIntoViewIfNeeded();
          await screenshot(page, shotName(`screen-card-${size.width}-${theme}`));
          // Receipts, one selected.
          await page.getByTestId('tab-receipts').click();
          await page.getByTestId('receipt-row').first().click();
          assert.deepEqual(await clippedPanels(page), [], `${at}: no receipts panel clips sideways`);
          await assertAxe(page, `${at} receipts`);
          await screenshot(page, shotName(`receipts-${size.width}-${theme}`));
          // Settings.
          await page.getByTestId('tab-settings').click();
          await page.getByTestId('settings-save').waitFor();
          assert.deepEqual(await clippedPanels(page), [], `${at}: the settings panel does not clip sideways`);
          await assertWhole(page, page.getByLabel('Approval expiry (seconds)'), `${at}: a settings field`);
          await assertWhole(page, page.getByTestId('settings-save'), `${at}: Save`);
          await assertAxe(page, `${at} settings`);
          await screenshot(page, shotName(`settings-${size.width}-${theme}`));
          await page.getByTestId('tab-tree').click();
        }
      });
    });

    it('resizes the panes by mouse and keyboard, remembers them, and keeps the tree ≥ 280 px whatever was chosen', async () => {
      const page = ui.page;
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.getByTestId('tab-tree').click();
      const queue = () => paneWidth(page, 'splitter-queue', '#pane-queue');
      const sidebar = () => paneWidth(page, 'splitter-sidebar', '#pane-sidebar');
      const aside = () => paneWidth(page, 'splitter-tree', '#pane-tree-aside');
      assert.deepEqual(await queue(), { value: QUEUE_INITIAL[1280], box: QUEUE_INITIAL[1280] }, 'the queue starts at its initial width');
      for (const id of ['splitter-sidebar', 'splitter-queue', 'splitter-tree']) {
        const sep = page.getByTestId(id);
        assert.equal(await sep.getAttribute('role'), 'separator');
        assert.equal(await sep.getAttribute('aria-orientation'), 'vertical');
        assert.ok(Number(await sep.getAttribute('aria-valuemax')) >= Number(await sep.getAttribute('aria-valuenow')), id);
      }
      // By mouse: the queue's separator dragged 60 px to the left widens the queue by 60 px.
      const grip = await page.getByTestId('splitter-queue').boundingBox();
      assert.ok(grip !== null);
      await page.mouse.move(grip.x + grip.width / 2, grip.y + 200);
      await page.mouse.down();
      await page.mouse.move(grip.x + grip.width / 2 - 30, grip.y + 200, { steps: 3 });
      await page.mouse.move(grip.x + grip.width / 2 - 60, grip.y + 200, { steps: 3 });
      await page.mouse.up();
      assert.deepEqual(await queue(), { value: QUEUE_INITIAL[1280] + 60, box: QUEUE_INITIAL[1280] + 60 }, 'dragged 60 px');
      // By keyboard: arrows move the separator 16 px, Home and End to the narrowest and widest.
      await page.getByTestId('splitter-sidebar').focus();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      assert.deepEqual(await sidebar(), { value: 188, box: 188 });
      await page.keyboard.press('Home');
      assert.equal((await sidebar()).value, 180);
      await page.keyboard.press('End');
      const widest = Number(await page.getByTestId('splitter-sidebar').getAttribute('aria-valuemax'));
      assert.deepEqual(await sidebar(), { value: widest, box: widest }, 'End: as wide as leaves the centre its minimum');
      let tree = await page.locator('.tree-scroll').boundingBox();
      assert.ok(tree !== null && tree.width >= TREE_MIN, `the tree is still ${tree?.width} px wide`);
      await page.keyboard.press('Home');
      // The queue at its narrowest leaves the centre room for the details to widen.
      await page.getByTestId('splitter-queue').focus();
      await page.keyboard.press('Home');
      const asideBefore = await aside();
      await page.getByTestId('splitter-tree').focus();
      await page.keyboard.press('ArrowLeft');
      assert.deepEqual(await aside(), { value: asideBefore.value + 16, box: asideBefore.box + 16 }, 'ArrowLeft widens the pane right of the separator');
      await screenshot(page, shotName('panes-resized-1280'));
      // Remembered across a reload.
      const chosen = { queue: await queue(), sidebar: await sidebar(), aside: await aside() };
      await page.reload();
      await page.getByTestId('brake-state').waitFor();
      await page.getByTestId('window-item').filter({ hasText: 'Overseer Fixture' }).click();
      await page.getByTestId('tree-row').first().waitFor({ timeout: 15_000 });
      assert.deepEqual({ queue: await queue(), sidebar: await sidebar(), aside: await aside() }, chosen, 'the widths survive a reload');
      // At 1024 px the chosen widths give way to the tree's minimum, with details or the screen beside or below it.
      await page.setViewportSize({ width: 1024, height: 700 });
      for (const a of ['screen', 'detail']) {
        await page.getByTestId(`aside-${a}`).click();
        tree = await page.locator('.tree-scroll').boundingBox();
        const placement = await page.locator('.tree-split').getAttribute('data-placement');
        console.log(`[look] 1024×700 after resizing, ${a} ${placement}: tree ${Math.round(tree?.width ?? 0)} px wide`);
        assert.ok(tree !== null && tree.width >= TREE_MIN, `${a}: the tree is ${tree?.width} px wide`);
        assert.deepEqual(await clippedPanels(page), [], `${a}: no panel clips sideways`);
      }
      // Below the tree, its separator is horizontal: ArrowUp makes the details taller.
      const below = page.getByTestId('splitter-tree');
      assert.equal(await below.getAttribute('aria-orientation'), 'horizontal');
      const tall = Number(await below.getAttribute('aria-valuenow'));
      const boxBefore = (await page.locator('#pane-tree-aside').boundingBox())?.height ?? 0;
      await below.focus();
      await page.keyboard.press('ArrowUp');
      assert.equal(Number(await below.getAttribute('aria-valuenow')), tall + 16);
      assert.equal(Math.round((await page.locator('#pane-tree-aside').boundingBox())?.height ?? 0), Math.round(boxBefore) + 16);
      await screenshot(page, shotName('panes-resized-1024'));
      await page.evaluate(() => localStorage.clear());
      await page.reload();
      await page.getByTestId('brake-state').waitFor();
      assert.equal((await queue()).value, QUEUE_INITIAL[1024], 'cleared: the initial widths');
    });

    it('shows the stopped and the emergency brake bar whole and readable in both themes at every size', async () => {
      const page = ui.page;
      for (const [action, state] of [
        ['stop', 'stopped'],
        ['emergency', 'emergency'],
      ] as const) {
        if (action === 'stop') await page.getByTestId('brake-stop').click();
        else {
          await page.getByTestId('brake-emergency').click();
          await page.getByTestId('brake-emergency-confirm').click();
        }
        await page
          .getByTestId('brake-state')
          .and(page.locator(`[data-state="${state}"]`))
          .waitFor({ timeout: 10_000 });
        await inEachTheme(async (p, theme) => {
          for (const size of SIZES) {
            const at = `${theme} ${size.width}×${size.height} ${state}`;
            await p.setViewportSize(size);
            await p
              .getByTestId('brake-state')
              .and(p.locator(`[data-state="${state}"]`))
              .waitFor({ timeout: 10_000 });
            await assertWhole(p, p.getByTestId('brake-state'), `${at}: the brake notice`);
            for (const b of await p.locator('.brake-buttons button').all()) await assertWhole(p, b, `${at}: ${await b.innerText()}`);
            assert.deepEqual(await clippedPanels(p), [], `${at}: no panel clips sideways`);
            await assertAxe(p, at);
            await screenshot(p, shotName(`brake-${state}-${size.width}-${theme}`));
          }
        });
        if (action === 'stop') await page.getByTestId('brake-resume').click();
        else await page.getByTestId('brake-rearm').click();
        await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor({ timeout: 30_000 });
      }
    });
  });
}
