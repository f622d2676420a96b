import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from 'playwright-core';
import { physicalToImage, type Element, type Receipt, type ScreenshotAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { spawnHelper, type HelperProcess } from '../../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { startOsworldServer, type OsworldServer } from '../../main/testing/osworldServer.js';
import { startPrivateSshd, type PrivateSshd } from '../../main/testing/privateSshd.js';
import { httpClient, toolJson } from '../../main/testing/serveHarness.js';
import { screenshot } from './browser.js';
import { armed, newCard, settleQueue, shownIds } from './queue.js';
import { UI_LANES, type UiSession } from './uiLanes.js';

const run = promisify(execFile);
const flatten = (els: Element[]): Element[] => els.flatMap((e) => [e, ...flatten(e.children ?? [])]);
/** The keys of 7 + 3 =, in order. */
const KEYS = ['7', '+', '3', '='] as const;

/**
 * Every name and value of a desktop's calculator window, read by a helper of that desktop itself
 * (not through Overseer): what the calculator shows there now.
 */
async function shown(helper: HelperProcess): Promise<string[]> {
  const list = await helper.call('window_list', {});
  const calc = list.windows.find((w) => /culator/i.test(w.title));
  assert.ok(calc !== undefined, JSON.stringify(list.windows.map((w) => w.title)));
  const read = await helper.call('window_read', { window: calc.window, max_nodes: 5000, max_tokens: 200_000 });
  return flatten(read.elements).flatMap((e) => [e.name ?? '', e.value ?? '']);
}

/** Reads a desktop's calculator until it shows `value` (it redraws a moment after the last key), or gives up and says what it showed. */
async function showsValue(helper: HelperProcess, value: string): Promise<string[]> {
  let seen: string[] = [];
  for (let i = 0; i < 30 && !seen.some((v) => v.trim() === value); i++) {
    if (i > 0) await sleep(200);
    seen = await shown(helper);
  }
  return seen;
}

/**
 * The connections tier (docs/connections.md), end to end: one supervisor (the real `overseer serve`), its person in the
 * real UI (Debian's Chromium), one MCP agent (the real SDK client). Three private desktops: this one
 * (a calculator that must stay untouched), one reached over ssh (a private sshd on 127.0.0.1 whose
 * sessions see it; gnome-calculator, driven through the tree with element_act), and one behind an
 * OSWorld-compatible server (galculator, driven by screenshot and click, since OSWorld's tree is
 * read-only). The person adds the connections as a person does: the ssh one with `overseer
 * connection add` on the supervisor's data folder, the OSWorld one in Settings → Connections. Each
 * key is a card naming its connection and host, approved in the browser; each result is read on its
 * own desktop by that desktop's own helper.
 */
describe('7 + 3 = on an ssh desktop and on an OSWorld VM, approved in the browser', () => {
  let local: PrivateDesktop;
  let lab: PrivateDesktop;
  let vm: PrivateDesktop;
  let sshd: PrivateSshd;
  let osworld: OsworldServer;
  let ui: UiSession;
  let page: Page;
  let agent: Client;
  let dataDir: string;
  /** Each desktop's own helper: how the test reads what it shows, never through Overseer. */
  let localOwn: HelperProcess;
  let labOwn: HelperProcess;
  let vmOwn: HelperProcess;
  let localBefore: string[];
  let localWindowsBefore: string[];
  let approved = 0;
  const figures: string[] = [];
  const call = <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) => toolJson<T>(agent, name, args, { timeout: 120_000 });
  const row = (name: string): Locator => page.locator(`[data-testid="connection-row"][data-name="${name}"]`);
  const localWindows = async (): Promise<string[]> => (await localOwn.call('window_list', {})).windows.map((w) => `${w.app}: ${w.title}`).sort();

  /**
   * Starts a supervised call, waits for its card in the browser, checks the card names where it acts,
   * approves it as the person does, and answers the call's receipt (waiting on it when it is still pending).
   */
  const approveInBrowser = async (tool: string, args: Record<string, unknown>, where: { name: string; host: string }, shot?: string): Promise<Receipt> => {
    const known = await shownIds(page);
    const answer = call<Receipt>(tool, args);
    const card = await Promise.race([
      newCard(page, known, 30_000),
      answer.then((a) => {
        throw new Error(`${tool} answered before its card: ${JSON.stringify(a)}`);
      }),
    ]);
    assert.equal((await card.getByTestId('card-where-name').innerText()).trim(), where.name, 'the card names its connection');
    assert.equal((await card.getByTestId('card-where-host').innerText()).trim(), where.host, 'the card names the host');
    if (shot !== undefined) await screenshot(page, shot);
    await (await armed(card.getByTestId('approve-button'), 15_000)).click();
    approved++;
    let receipt = await answer;
    assert.equal(receipt.error, undefined, JSON.stringify(receipt));
    if (receipt.outcome === 'pending') receipt = await call<Receipt>('action_wait', { receipt_id: receipt.receipt_id });
    assert.equal(receipt.outcome, 'completed', JSON.stringify(receipt));
    assert.equal(receipt.decision?.verdict, 'approved');
    return receipt;
  };

  before(async () => {
    [local, lab, vm] = await Promise.all([
      startPrivateDesktop({ width: 1024, height: 768 }),
      startPrivateDesktop({ width: 1024, height: 768 }),
      startPrivateDesktop({ width: 1024, height: 768 }),
    ]);
    await Promise.all([
      local.launch('galculator', [], { waitForWindow: 'galculator' }),
      lab.launch('gnome-calculator', [], { waitForWindow: 'Calculator' }),
      vm.launch('galculator', [], { waitForWindow: 'galculator' }),
    ]);
    [sshd, osworld] = await Promise.all([startPrivateSshd(), startOsworldServer(vm)]);
    localOwn = spawnHelper(local.env);
    labOwn = spawnHelper(lab.env);
    vmOwn = spawnHelper(vm.env);
    localBefore = await shown(localOwn);
    localWindowsBefore = await localWindows();
    for (const [what, helper] of [
      ['ssh', labOwn],
      ['OSWorld', vmOwn],
    ] as const)
      assert.ok(!(await shown(helper)).some((v) => v.trim() === '10'), `the ${what} desktop's calculator does not show 10 yet`);

    dataDir = await mkdtemp(join(tmpdir(), 'overseer-demo-data-'));
    const browserLane = UI_LANES.find((l) => l.name === 'browser');
    assert.ok(browserLane);
    ui = await browserLane.start(local.env, { dataDir });
    page = ui.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
    agent = await httpClient(ui.mcp, 'demo-agent', { tiers: ['accessibility', 'screen'] });
  });

  after(async () => {
    for (const f of figures) console.log(`[demo] ${f}`);
    await agent?.close().catch(() => {});
    await ui?.stop();
    await Promise.all([localOwn?.close(), labOwn?.close(), vmOwn?.close()]);
    await Promise.all([sshd?.stop(), osworld?.stop()]);
    await Promise.all([local?.stop(), lab?.stop(), vm?.stop()]);
  });

  it('the person adds the ssh desktop with the CLI and the OSWorld VM in Settings; both test up', async () => {
    // The CLI writes the registry of the running supervisor's data folder; the supervisor notices within seconds.
    const added = await run(
      process.execPath,
      [
        'bin/overseer.mjs',
        'connection',
        'add',
        'lab',
        '--ssh',
        sshd.alias,
        '--ssh-config',
        sshd.clientConfig,
        '--display',
        lab.display,
        '--bus',
        lab.env['DBUS_SESSION_BUS_ADDRESS'] ?? '',
        '--data-dir',
        dataDir,
      ],
      { cwd: REPO_ROOT, env: local.env },
    );
    console.log(`[demo] overseer connection add: ${added.stdout.trim()}`);
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('settings-connections').waitFor();
    await row('lab').waitFor({ timeout: 15_000 });
    await page.getByTestId('connection-kind-osworld_http').check();
    await page.getByTestId('connection-field-name').fill('vm1');
    await page.getByTestId('connection-field-url').fill(osworld.url);
    await page.getByTestId('connection-add').click();
    await row('vm1').waitFor({ timeout: 15_000 });
    for (const name of ['lab', 'vm1']) {
      const t0 = performance.now();
      await row(name).getByTestId('connection-test').click();
      const result = row(name).getByTestId('connection-test-result');
      await result.waitFor({ timeout: 60_000 });
      assert.equal(await result.getAttribute('data-ok'), 'true', await result.innerText());
      figures.push(`test of ${name} from Settings: ${(performance.now() - t0).toFixed(0)} ms`);
    }
    await screenshot(page, 'demo-settings-connections');
  });

  it('the agent activates the connections tier and sees both', async () => {
    const activated = await agent.callTool({ name: 'computer_use_activate', arguments: { tiers: ['connections'] } });
    assert.notEqual(activated.isError, true, JSON.stringify(activated.content));
    const listed = await call<{ connections: { name: string; enabled: boolean }[] }>('list_connections');
    assert.deepEqual(
      listed.connections.map((c) => `${c.name}:${c.enabled}`),
      ['local:true', 'lab:true', 'vm1:true'],
    );
  });

  it('over ssh: 7 + 3 = through the tree, each key a card approved in the browser; the ssh desktop shows 10', async () => {
    await settleQueue(page).catch(() => {});
    assert.equal((await call('activate_connection', { name: 'lab' })).error, undefined);
    const t0 = performance.now();
    const win = (await call<{ windows: { window: string; title: string }[] }>('window_list')).windows.find((w) => w.title === 'Calculator');
    assert.ok(win !== undefined, 'the ssh desktop’s calculator is listed through the connection');
    assert.match(win.window, /^lab\//, 'its id is bound to the connection');
    for (const key of KEYS) {
      // gnome-calculator's buttons read their label twice over AT-SPI ("7 7"): the agent finds the one button, then acts on it.
      const found: { match_count: number; matches: { name?: string }[] } = await call('element_find', {
        window: win.window,
        selector: { role: 'button', name_contains: key },
      });
      assert.equal(found.match_count, 1, `${key}: ${JSON.stringify(found.matches)}`);
      const name = found.matches[0]?.name ?? '';
      await approveInBrowser(
        'element_act',
        { window: win.window, selector: { role: 'button', name }, action: 'invoke' },
        { name: 'lab', host: sshd.alias },
        key === '7' ? 'demo-ssh-card' : undefined,
      );
    }
    const there = await showsValue(labOwn, '10');
    figures.push(`7 + 3 = over ssh (list, 4 × find + approved element_act): ${(performance.now() - t0).toFixed(0)} ms`);
    assert.ok(
      there.some((v) => v.trim() === '10'),
      `read on the ssh desktop by its own helper: ${JSON.stringify(there)}`,
    );
  });

  it('on the OSWorld VM: 7 + 3 = by screenshot and click, each click a card approved in the browser; the VM shows 10', async () => {
    assert.equal((await call('activate_connection', { name: 'vm1' })).error, undefined);
    const t0 = performance.now();
    const win = (await call<{ windows: { window: string; title: string }[] }>('window_list')).windows.find((w) => /galculator/i.test(w.title));
    assert.ok(win !== undefined, 'the VM’s calculator is listed through the connection');
    for (const key of KEYS) {
      // Where the key is, from the VM's (read-only) tree; the click itself is at that point of a screenshot.
      const found = await call<{ match_count: number; matches: { rect?: { cx: number; cy: number } }[] }>('element_find', {
        window: win.window,
        selector: { role: 'toggle_button', name: key },
      });
      const rect = found.matches[0]?.rect;
      assert.ok(found.match_count === 1 && rect !== undefined, `${key}: ${JSON.stringify(found.matches)}`);
      const shot = await agent.callTool({ name: 'screenshot', arguments: {} });
      assert.notEqual(shot.isError, true, JSON.stringify(shot.content));
      const point = physicalToImage(shot.structuredContent as ScreenshotAnswer, rect.cx, rect.cy);
      await approveInBrowser('click', { x: point.x, y: point.y }, { name: 'vm1', host: osworld.url }, key === '7' ? 'demo-osworld-card' : undefined);
    }
    const there = await showsValue(vmOwn, '10');
    figures.push(`7 + 3 = on the OSWorld VM (list, 4 × find + screenshot + approved click): ${(performance.now() - t0).toFixed(0)} ms`);
    assert.ok(
      there.some((v) => v.trim() === '10'),
      `read on the VM's desktop by its own helper: ${JSON.stringify(there)}`,
    );
  });

  it('back on local: this desktop’s calculator and windows read as before, and the receipts name where each act went', async () => {
    assert.equal((await call('use_local')).error, undefined);
    const windows = (await call<{ windows: { window: string; title: string }[] }>('window_list')).windows;
    assert.ok(
      windows.some((w) => /galculator/i.test(w.title) && !w.window.includes('/')),
      'the agent sees this desktop again, by unqualified ids',
    );
    assert.deepEqual(await shown(localOwn), localBefore, 'this desktop’s calculator shows what it showed before');
    assert.deepEqual(await localWindows(), localWindowsBefore, 'this desktop has the same windows as before');
    figures.push(`cards approved in the browser: ${approved}`);
    assert.equal(approved, 2 * KEYS.length);
    await page.getByTestId('tab-receipts').click();
    // Reads are receipts too; the acts are the ones the person approved, each naming where it went.
    const rows = page.getByTestId('receipt-row');
    for (const [action, where] of [
      ['element_act', 'on lab'],
      ['click', 'on vm1'],
    ] as const) {
      const wheres = await rows.filter({ hasText: action }).getByTestId('receipt-where').allInnerTexts();
      assert.deepEqual(
        wheres.map((w) => w.trim()),
        KEYS.map(() => where),
        `every ${action} receipt says ${where}: ${JSON.stringify((await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')))}`,
      );
    }
    await screenshot(page, 'demo-receipts');
  });
});
