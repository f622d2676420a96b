import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { FixtureDriver } from '../../main/testing/fixtureDriver.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { armed, cardFor } from './queue.js';
import { UI_LANES, type UiLane, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

/**
 * The UI tells the truth about what it knows: the tree follows the application, a page that is
 * not signed in shows nothing, another browser is linked with a one-time link, and with the
 * supervisor gone nothing claims a state it cannot know.
 */
for (const lane of UI_LANES) {
  const why = lane.unavailable();
  if (why !== undefined) {
    describe(`the supervisor UI's live state (${lane.name} lane)`, () => {
      it(`runs the live state specs in the ${lane.name} lane`, { skip: why }, () => {});
    });
    continue;
  }
  liveStateSpecs(lane);
}

function liveStateSpecs(lane: UiLane): void {
  describe(`the supervisor UI's live state (${lane.name} lane)`, () => {
    let desktop: PrivateDesktop;
    let ui: UiSession;
    let agent: Client;
    let page: Page;
    let driver: FixtureDriver;
    let win: string;
    const browserOnly = lane.name === 'browser' ? false : 'the desktop app has no sign-in and no separate supervisor process';
    const shot = (p: Page, name: string): Promise<string> => screenshot(p, lane.name === 'browser' ? name : `${lane.name}-${name}`);
    const act = (args: Record<string, unknown>): Promise<Receipt> => toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 120_000 });
    const row = (automationId: string) => page.getByTestId('tree-row').filter({ hasText: `#${automationId}` });

    before(async () => {
      desktop = await startPrivateDesktop();
      await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
      ui = await lane.start(desktop.env);
      page = ui.page;
      agent = await httpClient(ui.mcp, 'live-state-agent');
      driver = await FixtureDriver.connect(desktop.a11yBusAddress);
      win =
        (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
        '';
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
    });
    after(async () => {
      driver?.close();
      await agent?.close().catch(() => {});
      await ui?.stop();
      await desktop?.stop();
    });

    it('keeps the tree and the selected element current after an approved set_value, and Reload reads it again', async () => {
      await page.getByTestId('window-item').filter({ hasText: 'Overseer Fixture' }).first().click();
      await row('quantity').waitFor({ timeout: 15_000 });
      const status = page.getByTestId('tree-status');
      await status.getByText(/^Live · last change \d/).waitFor({ timeout: 10_000 });
      const answer = act({ selector: { automation_id: 'quantity' }, action: 'set_value', text: '7' });
      const card = cardFor(page, 'quantity');
      await (await armed(card.getByTestId('approve-button'))).click();
      const r = await answer;
      assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
      // Nothing is pressed from here on: the supervisor re-reads the window after the dispatch.
      await row('quantity').getByText('=7').waitFor({ timeout: 10_000 });
      const detail = page.getByTestId('element-detail');
      await detail.getByText('Quantity').first().waitFor();
      await detail.locator('dd').getByText('7', { exact: true }).waitFor({ timeout: 5000 });
      await status.getByText(/^Live · last change \d/).waitFor();
      await shot(page, 'tree-follows');

      await driver.setText('name_entry', 'Reloaded Rita');
      await page.getByTestId('tree-reload').click();
      await page.getByTestId('tree-reload').getByText('Reload', { exact: true }).waitFor({ timeout: 10_000 });
      await row('name_entry').getByText('=Reloaded Rita').waitFor({ timeout: 5000 });
      assert.equal(await page.getByTestId('notice').count(), 0, 'Reload reported no failure');
      assert.equal(await status.getAttribute('data-state'), 'current');
    });

    it('lets another browser sign in once with a link made in Settings; the second use fails with a clear page', { skip: browserOnly }, async () => {
      assert.ok(ui.freshPage);
      await page.getByTestId('tab-settings').click();
      await page.getByTestId('pair-make').click();
      const url = await page.getByTestId('pair-url').inputValue();
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/pair\?code=[\w-]+$/);
      assert.match((await page.getByTestId('pair-expiry').textContent()) ?? '', /^Works once, until .+ \(\d+ min \d+ s left\)\./);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
      await page.getByTestId('pair-copy').click();
      await page.getByTestId('settings-pair').getByText('Copied.').waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
      await shot(page, 'pair-link');
      await page.getByTestId('tab-tree').click();

      const second = await ui.freshPage(url);
      try {
        await second.page.getByTestId('connection-state').getByText('connected', { exact: true }).waitFor({ timeout: 10_000 });
        await second.page.getByTestId('brake-state').and(second.page.locator('[data-state="running"]')).waitFor();
      } finally {
        await second.close();
      }
      const again = await ui.freshPage(url);
      try {
        await again.page.getByText('This sign-in link does not work').waitFor({ timeout: 5000 });
        assert.match((await again.page.textContent('body')) ?? '', /works once/);
        await shot(again.page, 'pair-link-used-twice');
      } finally {
        await again.close();
      }
    });

    it('shows a page opened without signing in that it is not signed in, and no data', { skip: browserOnly }, async () => {
      assert.ok(ui.freshPage && ui.origin !== undefined);
      const stranger = await ui.freshPage(`${ui.origin}/`);
      try {
        const p = stranger.page;
        const banner = p.getByTestId('connection-banner').and(p.locator('[data-reason="unauthorized"]'));
        await banner.getByText('This browser is not signed in to the supervisor.').waitFor({ timeout: 10_000 });
        assert.equal(await p.getByTestId('brake-state').getAttribute('data-state'), 'unknown');
        assert.doesNotMatch((await p.getByTestId('brake-state').textContent()) ?? '', /Running/);
        assert.equal(await p.getByTestId('agent-item').count(), 0, 'no agent is shown');
        assert.equal(await p.getByTestId('window-item').count(), 0, 'no window is shown');
        assert.equal(await p.getByTestId('tree-row').count(), 0, 'no tree is shown');
        assert.equal(await p.getByTestId('queue-empty').textContent(), 'Not connected: whether anything waits for you is unknown.');
        assert.equal(await p.getByTestId('helper-state').getAttribute('data-state'), 'unknown');
        await shot(p, 'not-signed-in');
      } finally {
        await stranger.close();
      }
    });

    it('keeps secrets out of the address bar: the sign-in link lands on a clean /, and an old ?token= URL is cleaned', { skip: browserOnly }, async () => {
      assert.equal(new URL(page.url()).search, '', `the signed-in page's address is ${page.url()}`);
      assert.equal(new URL(page.url()).pathname, '/');
      assert.ok(ui.freshPage && ui.origin !== undefined);
      const old = await ui.freshPage(`${ui.origin}/?token=${ui.mcp.token}`);
      try {
        await old.page.getByTestId('connection-banner').waitFor({ timeout: 10_000 });
        assert.equal(new URL(old.page.url()).search, '', 'the query was removed from the address bar');
        assert.ok(!(await old.page.evaluate(() => window.location.href)).includes(ui.mcp.token));
      } finally {
        await old.close();
      }
    });

    it('does not show "Running" while the supervisor is gone: the brake state is unknown and its controls are off', { skip: browserOnly }, async () => {
      assert.ok(ui.restart);
      await ui.restart(async () => {
        const brake = page.getByTestId('brake-state');
        await brake.and(page.locator('[data-state="unknown"]')).waitFor({ timeout: 5000 });
        assert.doesNotMatch((await brake.textContent()) ?? '', /Running/);
        assert.match((await brake.textContent()) ?? '', /Unknown — not connected/);
        for (const control of ['brake-pause', 'brake-stop', 'brake-emergency'])
          assert.equal(await page.getByTestId(control).isDisabled(), true, `${control} is disabled`);
        assert.equal(await page.getByTestId('helper-state').getAttribute('data-state'), 'unknown');
        await page.getByTestId('agents-stale').getByText('Not connected: this list may be out of date.').waitFor();
        assert.equal(await page.getByTestId('tree-status').getAttribute('data-state'), 'out_of_date');
        await shot(page, 'supervisor-gone');
      });
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor({ timeout: 20_000 });
    });
  });
}
