import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { startTestDesktop, type TestDesktop } from '../desktop/testDesktop.js';
import { REPO_ROOT } from '../../helper/rpc/helperProcess.js';
import { httpClient } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { UI_LANES, type UiLane, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}e2e/fixtures/fixtureApp.py`;

/**
 * The UI tells the truth about what it knows: a page that is not signed in shows nothing, and with
 * the supervisor gone nothing claims a state it cannot know.
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
    let desktop: TestDesktop;
    let ui: UiSession;
    let agent: Client;
    let page: Page;
    const browserOnly = lane.name === 'browser' ? false : 'the desktop app has no sign-in and no separate supervisor process';
    const shot = (p: Page, name: string): Promise<string> => screenshot(p, lane.name === 'browser' ? name : `${lane.name}-${name}`);

    before(async () => {
      desktop = await startTestDesktop();
      await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
      ui = await lane.start(desktop.env);
      page = ui.page;
      agent = await httpClient(ui.mcp, 'live-state-agent');
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
    });
    after(async () => {
      await agent?.close().catch(() => {});
      await ui?.stop();
      await desktop?.stop();
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

    it('does not show "Running" while the supervisor is gone: the brake state is unknown and its controls are off', { skip: browserOnly }, async () => {
      assert.ok(ui.restart);
      await ui.restart(async () => {
        const brake = page.getByTestId('brake-state');
        await brake.and(page.locator('[data-state="unknown"]')).waitFor({ timeout: 5000 });
        assert.doesNotMatch((await brake.textContent()) ?? '', /Running/);
        assert.match((await brake.textContent()) ?? '', /Unknown — not connected/);
        for (const control of ['brake-pause', 'brake-stop', 'brake-emergency']) assert.equal(await page.getByTestId(control).isDisabled(), true, `${control} is disabled`);
        assert.equal(await page.getByTestId('helper-state').getAttribute('data-state'), 'unknown');
        await page.getByTestId('agents-stale').getByText('Not connected: this list may be out of date.').waitFor();
        await shot(page, 'supervisor-gone');
      });
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor({ timeout: 20_000 });
    });
  });
}
