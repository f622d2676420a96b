import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { activateTiers, httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { armed } from './queue.js';
import { UI_LANES, type UiLane, type UiSession } from './uiLanes.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

/**
 * The supervisor UI against the real supervisor and helper on the test desktop, with a real MCP
 * SDK client as the agent: in Debian's Chromium against overseer serve (browser lane), and in the
 * desktop app through Playwright's _electron.launch (electron lane) wherever Electron exists.
 */
for (const lane of UI_LANES) {
  const why = lane.unavailable();
  if (why !== undefined) {
    describe(`the supervisor UI (${lane.name} lane)`, () => {
      it(`runs the UI specs in the ${lane.name} lane`, { skip: why }, () => {});
    });
    continue;
  }
  uiSpecs(lane);
}

function uiSpecs(lane: UiLane): void {
  describe(`the supervisor UI (${lane.name} lane)`, () => {
    let desktop: PrivateDesktop;
    let ui: UiSession;
    let agent: Client;
    let page: Page;
    let win: string;
    /** Screenshot names: the browser lane's as they always were, other lanes' prefixed. */
    const shotName = (name: string): string => (lane.name === 'browser' ? name : `${lane.name}-${name}`);

    const act = (args: Record<string, unknown>): Promise<Receipt & { error?: { code: string } }> =>
      toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 120_000 });

    before(async () => {
      desktop = await startPrivateDesktop();
      await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '40'], { waitForWindow: 'Overseer Fixture' });
      ui = await lane.start(desktop.env);
      page = ui.page;
      agent = await httpClient(ui.mcp, 'ui-test-agent');
      win =
        (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
        '';
      await page.getByTestId('brake-state').waitFor();
    });
    after(async () => {
      await agent?.close().catch(() => {});
      await ui?.stop();
      await desktop?.stop();
    });

    it('shows a set_value card with the value diff; Approve runs it and the receipt says verified', async () => {
      const answer = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'From the UI' });
      const card = page.getByTestId('pending-card').first();
      await card.waitFor();
      await assert.doesNotReject(card.getByText('Alice').first().waitFor({ timeout: 5000 }), 'the current value is shown');
      await assert.doesNotReject(card.getByText('From the UI').first().waitFor({ timeout: 5000 }), 'the new value is shown');
      assert.match(await page.title(), /^\(1\)/, 'the title counts pending approvals');
      const approve = await armed(card.getByTestId('approve-button'));
      await screenshot(page, shotName('approval-queue'));
      await approve.click();
      const r = await answer;
      assert.equal(r.outcome, 'completed');
      assert.equal(r.verification, 'verified');
      const found = await toolJson<{ matches: { value?: string }[] }>(agent, 'element_find', { window: win, selector: { automation_id: 'name_entry' } });
      assert.equal(found.matches[0]?.value, 'From the UI', 'the application really shows the new value');
      await page.getByTestId('tab-receipts').click();
      await page.getByTestId('receipt-row').filter({ hasText: 'completed' }).first().waitFor();
      await screenshot(page, shotName('receipts'));
      await page.getByTestId('tab-settings').click();
      await page.getByTestId('settings-snippet-stdio').waitFor();
      await screenshot(page, shotName('settings'));
      await page.getByTestId('tab-tree').click();
    });

    it('connects an MCP client launched from another folder with each snippet the UI shows', async () => {
      await page.getByTestId('tab-settings').click();
      const snippet = async (id: string) =>
        JSON.parse(await page.getByTestId(`settings-snippet-${id}`).innerText()) as {
          mcpServers: { overseer: { command: string; args: string[]; env?: Record<string, string>; url: string; headers: Record<string, string> } };
        };
      const stdio = (await snippet('stdio')).mcpServers.overseer;
      const signIn = (await snippet('http')).mcpServers.overseer;
      assert.equal(signIn.headers, undefined, 'the sign-in snippet carries no credential: the client asks for its own');
      const http = (await snippet('http-token')).mcpServers.overseer;
      await page.getByTestId('tab-tree').click();
      assert.ok(isAbsolute(stdio.command), `the command is an absolute path, never npx: ${stdio.command}`);
      const elsewhere = await mkdtemp(join(tmpdir(), 'overseer-elsewhere-'));
      // A client's environment: no npm, no node_modules/.bin on PATH, another folder, another HOME.
      const env = { PATH: '/usr/bin:/bin', HOME: elsewhere, ...stdio.env };
      const viaStdio = new Client({ name: 'snippet-stdio', version: '1.0.0' });
      const viaHttp = new Client({ name: 'snippet-http', version: '1.0.0' });
      try {
        await viaStdio.connect(new StdioClientTransport({ command: stdio.command, args: stdio.args, cwd: elsewhere, env, stderr: 'pipe' }));
        await activateTiers(viaStdio);
        assert.ok(
          (await toolJson<{ windows: { title: string }[] }>(viaStdio, 'window_list')).windows.some((w) => w.title === 'Overseer Fixture'),
          'the stdio snippet lists windows',
        );
        assert.doesNotMatch(http.headers['Authorization'] ?? '', /</, 'the HTTP snippet carries the real agent token, no placeholder');
        await viaHttp.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: http.headers } }));
        await activateTiers(viaHttp);
        assert.ok(
          (await toolJson<{ windows: { title: string }[] }>(viaHttp, 'window_list')).windows.some((w) => w.title === 'Overseer Fixture'),
          'the HTTP snippet lists windows',
        );
      } finally {
        await viaStdio.close().catch(() => {});
        await viaHttp.close().catch(() => {});
        await rm(elsewhere, { recursive: true, force: true });
      }
    });

    it('passes a deny reason typed in the UI to the agent', async () => {
      const answer = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      const card = page.getByTestId('pending-card').first();
      await card.waitFor();
      await (await armed(card.getByTestId('deny-button'))).click();
      await page.getByTestId('deny-reason').fill('wrong window');
      await page.getByTestId('deny-reason').press('Enter');
      const r = await answer;
      assert.equal(r.refusal?.code, 'denied');
      assert.equal(r.decision?.note, 'wrong window');
    });

    it('expires an unanswered card after the expiry set in Settings', async () => {
      await page.getByTestId('tab-settings').click();
      await page.getByLabel('Approval expiry (seconds)').fill('5');
      await page.getByTestId('settings-save').click();
      await new Promise((r) => setTimeout(r, 300));
      try {
        const answer = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
        await page.getByTestId('pending-card').first().waitFor();
        const r = await answer;
        assert.equal(r.refusal?.code, 'expired');
        await page.getByTestId('pending-card').first().waitFor({ state: 'detached', timeout: 5000 });
      } finally {
        await page.getByTestId('tab-settings').click();
        await page.getByLabel('Approval expiry (seconds)').fill('120');
        await page.getByTestId('settings-save').click();
        await page.getByTestId('tab-tree').click();
      }
    });

    it('is accessible: landmarks, and every control on every view has an accessible name', async () => {
      const unnamed: string[] = [];
      for (const view of ['tab-tree', 'tab-receipts', 'tab-settings']) {
        await page.getByTestId(view).click();
        const missing = await page.evaluate(() =>
          [...document.querySelectorAll('button, input, select, textarea, [role="button"], [role="tab"]')]
            .filter((el) => {
              const e = el as HTMLElement;
              const labelled =
                (e.getAttribute('aria-label') ?? '').trim() !== '' ||
                (e.getAttribute('aria-labelledby') ?? '') !== '' ||
                (e.textContent ?? '').trim() !== '' ||
                ((el as HTMLInputElement).labels?.length ?? 0) > 0 ||
                (e.getAttribute('title') ?? '') !== '' ||
                (e.getAttribute('placeholder') ?? '') !== '';
              return !labelled && e.offsetParent !== null;
            })
            .map((e) => e.outerHTML.slice(0, 120)),
        );
        unnamed.push(...missing);
      }
      await page.getByTestId('tab-tree').click();
      assert.deepEqual(unnamed, [], 'controls without an accessible name');
      for (const landmark of ['banner', 'main'] as const) assert.ok((await page.getByRole(landmark).count()) >= 1, `a ${landmark} landmark`);
    });

    it('follows a dark system theme', async () => {
      const { page: dark, close } = await ui.darkPage();
      await dark.getByTestId('brake-state').waitFor();
      const bg = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = (bg.match(/\d+/g) ?? []).map(Number) as [number, number, number];
      assert.ok(r + g + b < 200, `a dark background, got ${bg}`);
      await screenshot(dark, shotName('dark-theme'));
      await close();
    });

    it('approves with the keyboard only once the card is armed, and Enter on a focused card never approves', async () => {
      const answer = act({ selector: { automation_id: 'subscribe' }, action: 'toggle' });
      const card = page.getByTestId('pending-card').first();
      await card.waitFor();
      await card.focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('Space');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await page.getByTestId('pending-card').count(), 1, 'still pending after Enter and Space');
      // A key decides only a card that is armed and has been selected for the arming time.
      await card.and(page.locator('[data-keys-armed="true"]')).waitFor({ timeout: 5000 });
      await page.keyboard.press('a');
      const r = await answer;
      assert.equal(r.outcome, 'completed');
      assert.equal(r.decision?.verdict, 'approved');
    });

    it('Stop answers pending cards braked; emergency stop needs a confirmation and a re-arm', async () => {
      const answer = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      await page.getByTestId('pending-card').first().waitFor();
      await page.getByTestId('brake-stop').click();
      assert.equal((await answer).refusal?.code, 'braked');
      await assert.doesNotReject(page.getByTestId('brake-state').getByText(/stop/i).waitFor({ timeout: 5000 }));
      await page.getByTestId('brake-resume').click();
      await page.getByTestId('brake-emergency').click();
      await page.getByTestId('brake-emergency-confirm').click();
      await assert.doesNotReject(
        page
          .getByTestId('brake-state')
          .getByText(/emergency/i)
          .waitFor({ timeout: 5000 }),
      );
      // The banner says what the Agents panel shows: the agents are still connected, their calls refused.
      const listed = await page.getByTestId('agent-item').count();
      assert.ok(listed >= 1, 'the agent is still listed during the emergency stop');
      const words = await page.getByTestId('brake-state').innerText();
      assert.doesNotMatch(words, /disconnected/i);
      assert.match(words, new RegExp(`${listed} agents? stays? connected`));
      await screenshot(page, shotName('emergency-stop'));
      await page.getByTestId('brake-rearm').click();
      await assert.doesNotReject(
        page
          .getByTestId('brake-state')
          .getByText(/running/i)
          .waitFor({ timeout: 10_000 }),
      );
      // …and the same agent goes on after the re-arm, as the banner said.
      assert.ok((await toolJson<{ windows: unknown[] }>(agent, 'window_list')).windows.length > 0, 'the same session reads after the re-arm');
    });

    it('pauses on Ctrl+Alt+Shift+P and stops everything on Ctrl+Alt+Shift+Esc wherever focus is, and shows both keys', async () => {
      assert.match(await page.getByTestId('brake-pause').innerText(), /Ctrl\+Alt\+Shift\+P/);
      assert.match(await page.getByTestId('brake-emergency').innerText(), /Ctrl\+Alt\+Shift\+Esc/);
      await page.getByTestId('tree-search').focus();
      await page.keyboard.press('Control+Alt+Shift+P');
      await page.getByTestId('brake-state').and(page.locator('[data-state="paused"]')).waitFor({ timeout: 5000 });
      assert.equal(await page.getByTestId('tree-search').inputValue(), '', 'the chord typed nothing into the field');
      await page.getByTestId('brake-resume').click();
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor({ timeout: 5000 });
      await page.keyboard.press('Control+Alt+Shift+Escape');
      await page.getByTestId('brake-state').and(page.locator('[data-state="emergency"]')).waitFor({ timeout: 15_000 });
      await page.getByTestId('brake-rearm').click();
      await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor({ timeout: 30_000 });
    });

    it("shows the fixture's tree, finds a node by search, and highlights a card's target", async () => {
      await page.getByTestId('window-item').filter({ hasText: 'Overseer Fixture' }).first().click();
      await page.getByTestId('tree-row').first().waitFor({ timeout: 15_000 });
      await page.getByTestId('tree-search').fill('Сохранить');
      await assert.doesNotReject(page.getByTestId('tree-row').filter({ hasText: 'Сохранить' }).first().waitFor({ timeout: 5000 }));
      await screenshot(page, shotName('tree'));
      const answer = act({ selector: { automation_id: 'hello_ru' }, action: 'invoke' });
      const card = page.getByTestId('pending-card').first();
      await card.waitFor();
      // Selected by a click on its words (a click on its picture opens the picture).
      await card.click({ position: { x: 8, y: 8 } });
      const selected = page.locator('[data-testid="tree-row"][aria-selected="true"]');
      await assert.doesNotReject(selected.filter({ hasText: 'ПРИВЕТ' }).first().waitFor({ timeout: 5000 }), 'the target is highlighted');
      await (await armed(card.getByTestId('approve-button'))).click();
      assert.equal((await answer).outcome, 'completed');
    });

    it('keeps a 5,000-element window responsive: virtualized rows, search and scrolling', async () => {
      await desktop.launch('/usr/bin/python3', [FIXTURE, '--big', '5000'], { waitForWindow: 'Overseer Big' });
      await page.getByTestId('refresh-windows').click();
      await page.getByTestId('window-item').filter({ hasText: 'Overseer Big' }).first().click();
      await page
        .getByTestId('tree-row')
        .filter({ hasText: /\bCell \d+\b/ })
        .first()
        .waitFor({ timeout: 30_000 });
      const rendered = await page.getByTestId('tree-row').count();
      assert.ok(rendered < 300, `${rendered} rows in the DOM: only what is visible is rendered`);
      const t0 = Date.now();
      assert.doesNotMatch((await page.locator('.tree-head').textContent()) ?? '', /max_tokens/, "the person's view is not cut by the agents' token budget");
      await page.getByTestId('tree-search').fill('Cell 2990');
      await page.getByTestId('tree-search-count').getByText('1 of 1').waitFor({ timeout: 5000 });
      await screenshot(page, shotName('tree-5000-search'));
      await page.getByTestId('element-detail').getByText('Cell 2990').first().waitFor({ timeout: 5000 });
      await page.locator('[data-testid="tree-row"][aria-selected="true"]').filter({ hasText: 'Cell 2990' }).waitFor({ state: 'attached', timeout: 5000 });
      assert.ok(Date.now() - t0 < 2000, `search and jump took ${Date.now() - t0} ms`);
      const renderMs = await page.evaluate(() => performance.getEntriesByName('overseer:tree-render').at(-1)?.duration ?? -1);
      assert.ok(renderMs >= 0 && renderMs < 1000, `first render ${renderMs} ms`);
      await screenshot(page, shotName('tree-5000'));
    });

    const restart =
      lane.name === 'browser' ? false : 'in the desktop app the UI and the supervisor are one process: there is no separate supervisor to restart';
    it('says it is disconnected while the supervisor restarts, and reconnects by itself', { skip: restart }, async () => {
      assert.ok(ui.restart);
      await ui.restart();
      await page.getByTestId('connection-banner').waitFor({ state: 'detached', timeout: 20_000 });
      await page.getByTestId('brake-state').waitFor();
    });
  });
}
