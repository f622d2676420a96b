import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from 'playwright-core';
import type { Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { FixtureDriver } from '../../main/testing/fixtureDriver.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { audit, describeViolations } from './axe.js';
import { SCREENSHOTS, screenshot } from './browser.js';
import { armed, cardFor, settleQueue } from './queue.js';
import { BIDI_CONTROLS, readShown } from './shownText.js';
import { UI_LANES, type UiSession } from './uiLanes.js';

const AGENT = 'connections-test-agent';
const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
/** A command an agent could hope the person misreads: a direction override, a zero-width space, then 60 more lines. */
const HOSTILE = [`echo done # \u202Etxt.exe\u202C && rm -rf ~/no\u200Bthing`, ...Array.from({ length: 60 }, (_, i) => `echo line ${i + 1}`)].join('\n');

/** A port on 127.0.0.1 where nothing listens (taken, then given back): a connection there is down, never someone else's. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * docs/connections.md through the real UI against the real `overseer serve`, in Debian's Chromium,
 * with a real MCP SDK client as the agent: Settings → Connections adds (each problem named by its
 * field, a public OSWorld URL warned about in words), tests (a typed failure with its hint),
 * disables, enables and removes (after a confirmation naming it); a remote_exec card names the
 * connection and its host and shows the exact command, hostile characters marked; an add_connection
 * card shows every field of the entry. Every connection here points at a closed port on 127.0.0.1:
 * nothing leaves this machine and nothing runs.
 */
describe('connections in the supervisor UI (browser lane)', () => {
  let desktop: PrivateDesktop;
  let ui: UiSession;
  let page: Page;
  let agent: Client;
  let port: number;
  const row = (p: Page, name: string): Locator => p.locator(`[data-testid="connection-row"][data-name="${name}"]`);
  const field = (p: Page, name: string): Locator => p.getByTestId(`connection-field-${name}`);
  const call = (name: string, args: Record<string, unknown>) => toolJson(agent, name, args, { timeout: 120_000 });
  const openSettings = async (p: Page) => {
    await p.getByTestId('tab-settings').click();
    await p.getByTestId('settings-connections').waitFor();
  };
  /** Adds a connection through the form, as the person does. */
  const addThroughForm = async (kind: 'ssh' | 'osworld_http', fields: Record<string, string>) => {
    await page.getByTestId(`connection-kind-${kind}`).check();
    for (const [k, v] of Object.entries(fields)) await field(page, k).fill(v);
    await page.getByTestId('connection-add').click();
    await row(page, fields['name'] ?? '').waitFor({ timeout: 15_000 });
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    const browserLane = UI_LANES.find((l) => l.name === 'browser');
    assert.ok(browserLane);
    ui = await browserLane.start(desktop.env);
    page = ui.page;
    await page.setViewportSize({ width: 1280, height: 720 });
    agent = await httpClient(ui.mcp, AGENT, { tiers: ['accessibility'] });
    port = await closedPort();
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
  });
  beforeEach(() => settleQueue(page));
  after(async () => {
    await agent?.close().catch(() => {});
    await ui?.stop();
    await desktop?.stop();
  });

  it('names each refused field and warns in words about a public OSWorld URL, sending nothing', async () => {
    await openSettings(page);
    assert.deepEqual(await page.getByTestId('connection-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name'))), ['local']);
    await page.getByTestId('connection-kind-osworld_http').check();
    await field(page, 'name').fill('Public VM');
    await field(page, 'url').fill('http://203.0.113.9:5000');
    await field(page, 'timeout_ms').fill('2.5');
    const warning = page.getByTestId('connection-url-warning');
    await warning.waitFor();
    assert.match((await warning.textContent()) ?? '', /neither this machine nor a private network.*anyone who can reach this address can drive that desktop/s);
    assert.equal(
      await field(page, 'url')
        .getAttribute('aria-describedby')
        .then((d) => d?.includes('connection-url-warning')),
      true,
      'the warning describes the URL field',
    );
    await page.getByTestId('connection-add').click();
    await field(page, 'name').and(page.locator('[aria-invalid="true"]')).waitFor();
    assert.match((await page.getByTestId('connection-field-name-error').textContent()) ?? '', /a-z, 0-9/);
    assert.equal(await page.getByTestId('connection-field-timeout_ms-error').textContent(), 'a whole number');
    assert.equal(await page.getByTestId('connection-field-url-error').count(), 0, 'a public URL is allowed, with its warning');
    await screenshot(page, 'connections-form-errors-1280x720-light');
    await field(page, 'url').fill('http://192.168.122.10:5000');
    assert.equal(await warning.count(), 0, 'a private address is not warned about');
    assert.equal(await page.getByTestId('connection-row').count(), 1, 'nothing was sent');
    await field(page, 'name').fill('');
    await field(page, 'url').fill('');
    await field(page, 'timeout_ms').fill('');
  });

  it('adds an ssh and an OSWorld connection through the form, each listed enabled and not yet checked', async () => {
    const activated = await agent.callTool({ name: 'computer_use_activate', arguments: { tiers: ['connections'] } });
    assert.notEqual(activated.isError, true, JSON.stringify(activated.content));
    await openSettings(page);
    await addThroughForm('ssh', { name: 'lab', host: '127.0.0.1', port: String(port), display: ':7' });
    await addThroughForm('osworld_http', { name: 'vm1', url: `http://127.0.0.1:${port}`, timeout_ms: '5000' });
    // The row can arrive (the supervisor's connections event) just before the command's own answer.
    await page.getByTestId('connection-added').filter({ hasText: 'Added “vm1”, enabled.' }).waitFor();
    for (const [name, where] of [
      ['lab', `127.0.0.1:${port}`],
      ['vm1', `http://127.0.0.1:${port}`],
    ] as const) {
      const r = row(page, name);
      assert.equal((await r.getByTestId('connection-where').innerText()).trim(), where);
      assert.notEqual(await r.getAttribute('data-status'), 'disabled');
      assert.equal(await r.getByTestId('connection-public-warning').count(), 0);
    }
    const listed = await call('list_connections', {});
    assert.deepEqual(
      (listed['connections'] as { name: string; enabled: boolean }[]).map((c) => `${c.name}:${c.enabled}`),
      ['local:true', 'lab:true', 'vm1:true'],
      'the agent sees what the person added',
    );
    // The windows list offers the desktops; the person's view starts on this one.
    const switcher = page.getByTestId('connection-switcher');
    assert.equal(await switcher.inputValue(), 'local');
    assert.deepEqual(await switcher.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)), ['local', 'lab', 'vm1']);
  });

  it('switches the desktop the windows list and tree show, emptying them first, and back', async () => {
    await page.getByTestId('tab-tree').click();
    const switcher = page.getByTestId('connection-switcher');
    await switcher.selectOption('lab');
    await page.locator('[data-testid="viewed-desktop"][data-connection="lab"]').waitFor({ timeout: 15_000 });
    assert.equal(await switcher.inputValue(), 'lab');
    assert.equal(await page.getByTestId('window-item').count(), 0, 'no window of this desktop is listed as one of lab’s');
    // The Screen view captures lab's screen, not this one: lab cannot be reached, so it says why and shows no picture.
    await page.getByTestId('aside-screen').click();
    const screenView = page.getByTestId('screen-view');
    await screenView.locator('[data-testid="viewed-desktop"][data-connection="lab"]').waitFor();
    await screenView.getByTestId('screen-error').waitFor({ timeout: 30_000 });
    assert.equal(await screenView.getByTestId('screen-view-picture').count(), 0, 'no picture of this desktop stands for lab');
    console.log(`[connections] Screen view on lab: ${await screenView.getByTestId('screen-error').innerText()}`);
    await screenshot(page, 'connections-viewing-lab');
    await switcher.selectOption('local');
    await page.getByTestId('viewed-desktop').first().waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await switcher.inputValue(), 'local');
    await screenView.getByTestId('screen-view-picture').waitFor({ timeout: 30_000 });
    await page.getByTestId('aside-detail').click();
  });

  it('shows a remote_exec card naming the connection and its host, with the exact hostile command, and no session rule', async () => {
    const activated = await call('activate_connection', { name: 'lab' });
    assert.equal(activated.error, undefined, JSON.stringify(activated.error));
    await page.locator('[data-testid="agent-connection"][data-connection="lab"]').waitFor({ timeout: 10_000 });
    const answer = call('remote_exec', { command: HOSTILE, timeout_ms: 5000 });
    const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('remote-exec') });
    await card.waitFor({ timeout: 15_000 });
    assert.equal(await card.getByTestId('card-where-name').textContent(), 'lab');
    assert.equal((await readShown(card.getByTestId('card-where-host'))).raw, `127.0.0.1:${port}`);
    const box = card.getByTestId('card-where');
    const head = card.locator('.card-head');
    const [boxAt, headAt] = [await box.boundingBox(), await head.boundingBox()];
    assert.ok(boxAt !== null && headAt !== null && boxAt.y < headAt.y + headAt.height + 40, 'where it runs is first on the card, under its head');
    const command = card.getByTestId('remote-exec-command');
    const shown = await readShown(command);
    assert.equal(shown.raw, HOSTILE, 'the card stands for exactly the command the agent sent');
    assert.deepEqual(
      shown.chips.filter((c) => !c.label.startsWith('↵')).map((c) => c.label),
      ['U+202E RLO', 'U+202C PDF', 'U+200B ZWSP'],
    );
    assert.equal((shown.text.match(/↵/g) ?? []).length, 60, 'every line break is marked');
    assert.doesNotMatch((await card.textContent()) ?? '', BIDI_CONTROLS, 'no raw bidi control anywhere on the card');
    assert.match(await command.evaluate((el) => getComputedStyle(el).fontFamily), /mono/i);
    assert.equal(await card.getByTestId('remote-exec-timeout').textContent(), '5 s');
    assert.equal(await card.getByTestId('allow-session-button').count(), 0, 'a shell command is never covered by a session rule');
    const boxed = await card.getByTestId('remote-exec-command-box').boundingBox();
    console.log(`[connections] remote_exec card: command box ${Math.round(boxed?.height ?? 0)} px for 61 lines (collapsed)`);
    assert.equal(
      await card.getByTestId('untrusted-toggle').filter({ hasText: 'lines' }).textContent(),
      `show all (61 lines, ${[...HOSTILE].length} characters)`,
    );
    await mkdir(SCREENSHOTS, { recursive: true });
    await card.screenshot({ path: join(SCREENSHOTS, 'connections-remote-exec-card.png') });
    const dark = await ui.darkPage();
    try {
      await dark.page.setViewportSize({ width: 1280, height: 720 });
      const darkCard = dark.page.getByTestId('pending-card').filter({ has: dark.page.getByTestId('remote-exec') });
      await darkCard.waitFor({ timeout: 15_000 });
      await darkCard.screenshot({ path: join(SCREENSHOTS, 'connections-remote-exec-card-dark.png') });
      for (const p of [page, dark.page]) {
        const violations = await audit(p);
        assert.deepEqual(violations, [], describeViolations(violations));
      }
    } finally {
      await dark.close();
    }
    await (await armed(card.getByTestId('deny-button'))).click();
    await page.getByTestId('deny-reason').press('Enter');
    const r = await answer;
    assert.equal(r.error?.code, 'denied', JSON.stringify(r));
    await page.getByTestId('tab-receipts').click();
    const receipt = page.getByTestId('receipt-row').filter({ hasText: 'remote_exec' }).last();
    assert.equal(await receipt.getByTestId('receipt-where').textContent(), 'on lab');
    const back = await call('use_local', {});
    assert.equal(back.error, undefined, JSON.stringify(back.error));
  });

  it('shows an add_connection card with every field of the entry; denied, nothing is added', async () => {
    const entry = {
      name: 'agentlab',
      kind: 'ssh',
      host: 'lab.internal',
      user: 'ann',
      port: 2222,
      display: ':1',
      bus: 'unix:path=/run/user/1000/bus',
      node: '/usr/local/bin/node',
    };
    const answer = call('add_connection', entry);
    const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('add-connection') });
    await card.waitFor({ timeout: 15_000 });
    for (const [k, v] of Object.entries(entry))
      assert.equal((await readShown(card.getByTestId(`add-connection-${k}`))).raw, String(v), `the card shows ${k} exactly`);
    assert.equal(await card.getByTestId('add-connection-enabled').textContent(), 'yes, once approved');
    assert.equal(await card.getByTestId('allow-session-button').count(), 0);
    await card.screenshot({ path: join(SCREENSHOTS, 'connections-add-connection-card.png') });
    const violations = await audit(page);
    assert.deepEqual(violations, [], describeViolations(violations));
    await (await armed(card.getByTestId('deny-button'))).click();
    await page.getByTestId('deny-reason').press('Enter');
    assert.equal((await answer).error?.code, 'denied');
    await openSettings(page);
    assert.equal(await row(page, 'agentlab').count(), 0);
  });

  it('approved, an add_connection card adds exactly its entry, warned about when its URL is public', async () => {
    const answer = call('add_connection', { name: 'farvm', kind: 'osworld_http', url: 'http://203.0.113.9:5000', timeout_ms: 20000 });
    const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('add-connection') });
    await card.waitFor({ timeout: 15_000 });
    await card.getByTestId('add-connection-public-warning').waitFor();
    assert.equal(await card.getByTestId('add-connection-url').innerText(), 'http://203.0.113.9:5000');
    assert.equal(await card.getByTestId('add-connection-timeout_ms').innerText(), '20000');
    await (await armed(card.getByTestId('approve-button'))).click();
    const r = await answer;
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    await openSettings(page);
    await row(page, 'farvm').getByTestId('connection-public-warning').waitFor({ timeout: 10_000 });
  });

  it('tests (a typed failure with its hint), disables, enables and removes, asking again with the name', async () => {
    await openSettings(page);
    const lab = row(page, 'lab');
    const started = Date.now();
    await lab.getByTestId('connection-test').click();
    const result = lab.getByTestId('connection-test-result');
    await result.waitFor({ timeout: 60_000 });
    console.log(`[connections] test of an ssh connection to a closed port answered in ${Date.now() - started} ms`);
    assert.equal(await result.getAttribute('data-ok'), 'false');
    assert.match((await result.getByTestId('failure-code').textContent()) ?? '', /^connection_unavailable/);
    assert.notEqual(await result.getByTestId('failure-hint').count(), 0, 'a failure says what to do');
    await lab.and(page.locator('[data-status="down"]')).waitFor({ timeout: 10_000 });
    // ssh's own line is said once, and what to do is advice in words, not that line again.
    const rowText = await lab.innerText();
    const sshLine = /ssh: connect to host \S+ port \d+: Connection refused/.exec(rowText)?.[0];
    assert.ok(sshLine !== undefined, `ssh's line is shown: ${rowText}`);
    assert.equal(rowText.split(sshLine).length - 1, 1, `ssh's line is said once: ${rowText}`);
    assert.match(await result.getByTestId('failure-hint').innerText(), /nothing answers on port \d+ of .*: check that sshd runs there/);
    assert.equal(await lab.getByTestId('connection-last-error').count(), 0, 'the last error is the failed test shown below it');

    await lab.getByTestId('connection-toggle').click();
    await lab.and(page.locator('[data-status="disabled"]')).waitFor();
    assert.equal(await lab.getByTestId('connection-toggle').textContent(), 'Enable');
    const refused = await call('activate_connection', { name: 'lab' });
    assert.equal(refused.error?.code, 'connection_unavailable', 'a disabled connection is refused to agents');
    await screenshot(page, 'connections-settings-disabled');
    await lab.getByTestId('connection-toggle').click();
    await lab.and(page.locator(':not([data-status="disabled"])')).waitFor();

    const vm = row(page, 'vm1');
    await vm.getByTestId('connection-remove').click();
    assert.match((await vm.getByTestId('connection-remove-question').textContent()) ?? '', new RegExp(`Remove “vm1” \\(http://127\\.0\\.0\\.1:${port}\\)\\?`));
    await vm.getByTestId('connection-remove-cancel').click();
    assert.equal(await vm.count(), 1, 'cancel keeps it');
    await vm.getByTestId('connection-remove').click();
    await vm.getByTestId('connection-remove-confirm').click();
    await vm.waitFor({ state: 'detached', timeout: 10_000 });
    const gone = await call('activate_connection', { name: 'vm1' });
    assert.notEqual(gone.error, undefined, 'a removed connection cannot be activated');
  });

  it('is readable and passes axe at 1280×720 and 1024×700, light and dark', async () => {
    const dark = await ui.darkPage();
    try {
      for (const [theme, p] of [
        ['light', page],
        ['dark', dark.page],
      ] as const) {
        for (const [width, height] of [
          [1280, 720],
          [1024, 700],
        ] as const) {
          await p.setViewportSize({ width, height });
          await openSettings(p);
          await row(p, 'lab').waitFor();
          await p.getByTestId('settings-connections').scrollIntoViewIfNeeded();
          await p.getByTestId('connection-kind-osworld_http').check();
          await field(p, 'url').fill('http://203.0.113.9:5000');
          await p.getByTestId('connection-url-warning').waitFor();
          const overflow = await p.getByTestId('settings-connections').evaluate((el) => el.scrollWidth - el.clientWidth);
          assert.ok(overflow <= 1, `nothing is cut off sideways at ${width}×${height} ${theme} (${overflow} px)`);
          const violations = await audit(p);
          assert.deepEqual(violations, [], describeViolations(violations));
          await screenshot(p, `connections-settings-${width}x${height}-${theme}`);
          await field(p, 'url').fill('');
        }
      }
    } finally {
      await dark.close();
    }
  });
});

/**
 * The same UI with a second private desktop standing in for a remote one (main/testing/standInTarget.ts:
 * the real helper there, its shell a local `sh`): a test that succeeds shows what it found, the
 * switcher shows that desktop's own windows, and an element_act card aimed there names it and its
 * host; approved, it lands there and this desktop's fixture is untouched.
 */
describe('a second desktop in the supervisor UI (browser lane, stand-in for ssh)', () => {
  let local: PrivateDesktop;
  let remote: PrivateDesktop;
  let ui: UiSession;
  let page: Page;
  let agent: Client;
  let localDriver: FixtureDriver;
  let remoteDriver: FixtureDriver;
  const row = (name: string): Locator => page.locator(`[data-testid="connection-row"][data-name="${name}"]`);
  const call = (name: string, args: Record<string, unknown>) => toolJson(agent, name, args, { timeout: 120_000 });

  before(async () => {
    local = await startPrivateDesktop();
    remote = await startPrivateDesktop();
    await local.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' });
    await remote.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' });
    const browserLane = UI_LANES.find((l) => l.name === 'browser');
    assert.ok(browserLane);
    ui = await browserLane.start({ ...local.env, OVERSEER_TEST_REMOTE_ENV: JSON.stringify(remote.env) }, { targets: 'stand-in' });
    page = ui.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    agent = await httpClient(ui.mcp, `${AGENT}-2`, { tiers: ['accessibility'] });
    const activated = await agent.callTool({ name: 'computer_use_activate', arguments: { tiers: ['connections'] } });
    assert.notEqual(activated.isError, true, JSON.stringify(activated.content));
    localDriver = await FixtureDriver.connect(local.a11yBusAddress);
    remoteDriver = await FixtureDriver.connect(remote.a11yBusAddress);
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
  });
  after(async () => {
    localDriver?.close();
    remoteDriver?.close();
    await agent?.close().catch(() => {});
    await ui?.stop();
    await remote?.stop();
    await local?.stop();
  });

  it('adds the connection and shows what a successful test found', async () => {
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('connection-kind-ssh').check();
    await page.getByTestId('connection-field-name').fill('second');
    await page.getByTestId('connection-field-host').fill('second-desktop');
    await page.getByTestId('connection-field-user').fill('ann');
    await page.getByTestId('connection-add').click();
    await row('second').waitFor({ timeout: 15_000 });
    await row('second').getByTestId('connection-test').click();
    const result = row('second').getByTestId('connection-test-result');
    await result.waitFor({ timeout: 30_000 });
    assert.equal(await result.getAttribute('data-ok'), 'true');
    assert.equal(await result.getByTestId('connection-test-reachable').innerText(), 'yes');
    assert.equal(await result.getByTestId('connection-test-authenticated').innerText(), 'yes');
    assert.equal(await result.getByTestId('connection-test-platform').innerText(), 'linux');
    assert.equal(await result.getByTestId('connection-test-session-type').innerText(), 'x11');
    await row('second').and(page.locator('[data-status="up"]')).waitFor({ timeout: 10_000 });
    await row('second').screenshot({ path: join(SCREENSHOTS, 'connections-test-ok.png') });
  });

  it('the switcher shows the second desktop’s own windows and tree, and this one’s again', async () => {
    await page.getByTestId('tab-tree').click();
    const switcher = page.getByTestId('connection-switcher');
    await switcher.selectOption('second');
    await page.locator('[data-testid="viewed-desktop"][data-connection="second"]').waitFor({ timeout: 15_000 });
    const fixture = page.getByTestId('window-item').filter({ hasText: 'Overseer Fixture' });
    await fixture.waitFor({ timeout: 30_000 });
    await remoteDriver.setText('name_entry', 'Seen there');
    await fixture.click();
    await page.locator('.tree-row', { hasText: 'Seen there' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'connections-viewing-second');
    await switcher.selectOption('local');
    await page.getByTestId('viewed-desktop').first().waitFor({ state: 'detached', timeout: 15_000 });
    await fixture.waitFor({ timeout: 30_000 });
    await fixture.click();
    await page.locator('.tree-row', { hasText: 'Alice' }).first().waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('.tree-row', { hasText: 'Seen there' }).count(), 0, 'nothing of the second desktop stays in this one’s tree');
  });

  it('an element_act card aimed at the second desktop names it and its host; approved, it lands there only', async () => {
    const activated = await call('activate_connection', { name: 'second' });
    assert.equal(activated.error, undefined, JSON.stringify(activated.error));
    const win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
    assert.notEqual(win, '');
    const act = toolJson<Receipt>(
      agent,
      'element_act',
      { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Remote Rita' },
      { timeout: 120_000 },
    );
    const card = cardFor(page, 'name_entry');
    await card.waitFor({ timeout: 20_000 });
    assert.equal(await card.getByTestId('card-where-name').innerText(), 'second');
    assert.equal(await card.getByTestId('card-where-host').innerText(), 'ann@second-desktop');
    assert.match((await card.getAttribute('aria-label')) ?? '', / on second \(ann@second-desktop\)$/);
    await card.screenshot({ path: join(SCREENSHOTS, 'connections-element-act-card.png') });
    await (await armed(card.getByTestId('approve-button'))).click();
    const r = await act;
    assert.equal(r.outcome, 'completed', JSON.stringify(r));
    assert.equal(await remoteDriver.text('name_entry'), 'Remote Rita', 'it landed on the second desktop');
    assert.equal(await localDriver.text('name_entry'), 'Alice', 'this desktop is untouched');
    await page.getByTestId('tab-receipts').click();
    const receipt = page.getByTestId('receipt-row').filter({ hasText: 'element_act' }).last();
    assert.equal(await receipt.getByTestId('receipt-where').textContent(), 'on second');
    await receipt.click();
    assert.equal(await page.locator('[data-field="Connection"] dd').innerText(), 'second (SSH, ann@second-desktop)');
  });
});
