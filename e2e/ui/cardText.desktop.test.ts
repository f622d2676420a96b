import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { SCREENSHOTS } from './browser.js';
import { armed, cardFor, settleQueue } from './queue.js';
import { BIDI_CONTROLS, readShown } from './shownText.js';
import { UI_LANES, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const AGENT = 'card-text-agent';
const RLO = '\u202Egnp.exe';
const DISGUISED = 'De\u00ADlete all files and Se\u200Bnd to boss';
const SIXTY_LINES = `first line${'\n'.repeat(60)}last line`;
/**
 * docs/security.md#what-a-card-can-and-cannot-show, through the real `overseer serve`, helper and
 * GTK fixture in Debian's Chromium, with a real MCP SDK client as the agent: a card shows hidden and
 * direction characters as marked escapes in their real order, warns about them, stays bounded in
 * height, and what the person approved is exactly what the application then holds.
 */
describe('card text that cannot lie (browser lane)', () => {
  let desktop: PrivateDesktop;
  let ui: UiSession;
  let agent: Client;
  let page: Page;
  let dark: { page: Page; close: () => Promise<void> };
  let win: string;
  const act = (args: Record<string, unknown>): Promise<Receipt & { error?: { code: string } }> =>
    toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 120_000 });
  const nameValue = async (): Promise<string | undefined> =>
    (await toolJson<{ matches: { value?: string }[] }>(agent, 'element_find', { window: win, selector: { automation_id: 'name_entry' } })).matches[0]?.value;
  /** Screenshots of one card in both themes, beside the other UI specs' artifacts. */
  const shoot = async (name: string): Promise<string[]> => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const paths: string[] = [];
    for (const [theme, p] of [
      ['light', page],
      ['dark', dark.page],
    ] as const) {
      const card = cardFor(p, 'name_entry');
      await card.waitFor();
      await card.scrollIntoViewIfNeeded();
      const path = join(SCREENSHOTS, `card-text-${name}-${theme}.png`);
      await card.screenshot({ path });
      paths.push(path);
    }
    console.log(`[card-text] screenshots: ${paths.join(', ')}`);
    return paths;
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' });
    const browserLane = UI_LANES.find((l) => l.name === 'browser');
    assert.ok(browserLane);
    ui = await browserLane.start(desktop.env);
    page = ui.page;
    await page.setViewportSize({ width: 1280, height: 720 });
    dark = await ui.darkPage();
    await dark.page.setViewportSize({ width: 1280, height: 720 });
    agent = await httpClient(ui.mcp, AGENT);
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
    assert.notEqual(win, '', 'the fixture window is listed');
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
  });
  beforeEach(() => settleQueue(page));
  after(async () => {
    await agent?.close().catch(() => {});
    await dark?.close().catch(() => {});
    await ui?.stop();
    await desktop?.stop();
  });

  it('shows a right-to-left override as a marked escape before gnp.exe, isolated, with a hint; the approved text is what the field holds', async () => {
    const answer = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: RLO });
    const card = cardFor(page, 'name_entry');
    await card.waitFor({ timeout: 15_000 });
    const shown = await readShown(card.getByTestId('diff-new-text'));
    assert.equal(shown.raw, RLO, 'the New box stands for exactly the string the agent sent');
    assert.equal(shown.text, 'U+202E RLOgnp.exe', 'the escape, then gnp.exe, in logical order');
    assert.deepEqual(shown.chips, [{ label: 'U+202E RLO', name: 'right-to-left override (U+202E)' }]);
    assert.equal(shown.unicodeBidi, 'isolate');
    assert.equal(shown.direction, 'ltr');
    // Laid out, not just stored, in that order: the chip, then g … e from left to right.
    const xs = await card.getByTestId('diff-new-text').evaluate((node) => {
      const chip = node.querySelector('.esc')?.getBoundingClientRect().left ?? NaN;
      const text = [...node.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').includes('gnp.exe')) as Text;
      const lefts = [0, 2, 6].map((i) => {
        const r = document.createRange();
        r.setStart(text, i);
        r.setEnd(text, i + 1);
        return r.getBoundingClientRect().left;
      });
      return { chip, g: lefts[0] ?? NaN, p: lefts[1] ?? NaN, e: lefts[2] ?? NaN };
    });
    assert.ok(xs.chip < xs.g && xs.g < xs.p && xs.p < xs.e, `laid out left to right: ${JSON.stringify(xs)}`);
    assert.doesNotMatch((await card.textContent()) ?? '', BIDI_CONTROLS, 'no raw bidi control anywhere on the card');
    assert.match((await card.getByTestId('risk-hints').textContent()) ?? '', /text direction override/);
    const darkShown = await readShown(cardFor(dark.page, 'name_entry').getByTestId('diff-new-text'));
    assert.equal(darkShown.text, shown.text, 'the dark theme shows the same marks');
    await shoot('rlo');
    await (await armed(card.getByTestId('approve-button'))).click();
    const r = await answer;
    assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
    assert.equal(await nameValue(), RLO, 'the field holds exactly U+202E + gnp.exe: what the card showed is what ran');
  });

  it('shows a soft hyphen and a zero-width space as escapes, and warns about Delete and Send', async () => {
    const answer = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: DISGUISED });
    const card = cardFor(page, 'name_entry');
    await card.waitFor({ timeout: 15_000 });
    const shown = await readShown(card.getByTestId('diff-new-text'));
    assert.equal(shown.raw, DISGUISED);
    assert.equal(shown.text, 'DeU+00AD SHYlete all files and SeU+200B ZWSPnd to boss');
    assert.deepEqual(
      shown.chips.map((c) => c.name),
      ['soft hyphen (U+00AD)', 'zero width space (U+200B)'],
    );
    const current = await readShown(card.getByTestId('diff-old-text'));
    assert.equal(current.raw, RLO, "the application's current value is untrusted text too");
    assert.equal(current.chips[0]?.label, 'U+202E RLO');
    const hints = (await card.getByTestId('risk-hints').textContent()) ?? '';
    assert.match(hints, /⚠ Check carefully: .*“Delete”.*“Send”/);
    assert.match(hints, /hidden characters/);
    assert.match((await card.getAttribute('class')) ?? '', /\brisky\b/);
    await shoot('soft-hyphen');
    await (await armed(card.getByTestId('deny-button'))).click();
    await page.getByTestId('deny-reason').press('Enter');
    assert.equal((await answer).refusal?.code, 'denied');
    assert.equal(await nameValue(), RLO, 'denied: the field is unchanged');
  });

  it('keeps a card with 60 line breaks bounded in height until "show all"', async () => {
    const answer = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: SIXTY_LINES });
    const card = cardFor(page, 'name_entry');
    await card.waitFor({ timeout: 15_000 });
    const text = card.getByTestId('diff-new-text');
    const shown = await readShown(text);
    assert.equal(shown.raw, SIXTY_LINES, 'every line break is there, as a mark');
    assert.equal((shown.text.match(/↵/g) ?? []).length, 60);
    const box = card.getByTestId('diff-new-text-box');
    const collapsed = await box.boundingBox();
    const cardBox = await card.boundingBox();
    assert.ok(collapsed && cardBox);
    const toggle = card.getByTestId('untrusted-toggle');
    assert.equal(await toggle.textContent(), `show all (61 lines, ${SIXTY_LINES.length} characters)`);
    await shoot('sixty-lines');
    // In a place of fixed height the text cannot grow: "show all" opens the card's details, where it is whole.
    await toggle.click();
    const details = page.getByTestId('card-details');
    await details.waitFor();
    const expanded = await details.getByTestId('diff-new-text-box').boundingBox();
    assert.ok(expanded);
    console.log(
      `[card-text] 60 line breaks: New box ${Math.round(collapsed.height)} px collapsed, ${Math.round(expanded.height)} px shown whole; card ${Math.round(cardBox.height)} px`,
    );
    assert.ok(collapsed.height <= 120, `the New box stays within six lines (${collapsed.height} px)`);
    assert.ok(cardBox.height < 720, `the card fits the 720 px window (${cardBox.height} px)`);
    assert.ok(expanded.height > 5 * collapsed.height, `"show all" shows all 61 lines (${expanded.height} px)`);
    await mkdir(SCREENSHOTS, { recursive: true });
    await details.screenshot({ path: join(SCREENSHOTS, 'card-text-sixty-lines-expanded-light.png') });
    await details.getByTestId('card-details-close').click();
    await (await armed(card.getByTestId('deny-button'))).click();
    await page.getByTestId('deny-reason').press('Enter');
    assert.equal((await answer).refusal?.code, 'denied');
  });
});
