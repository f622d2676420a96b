import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { RULE_SCOPE_HINT, SELECTION_HINT, type PendingApproval, type Receipt, type ScreenView } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { FixtureDriver } from '../../testing/fixtureDriver.js';
import { warp } from '../../testing/pointer.js';
import { UiClient, activateTiers, httpClient, removeDataDir, serve, toolJson, type Served } from '../../testing/serveHarness.js';
import { exportJournal } from '../journal/index.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

type Windows = { windows: { window: string; title: string; pid: number; rect?: { cx: number; cy: number } }[] };

/**
 * An agent host with a window of its own that launches `overseer mcp` as its child, as an MCP
 * client does: the bridge's parent is a process with a window, which that agent alone must not see.
 */
const HOST = `
import subprocess, sys, gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gtk, GLib
w = Gtk.Window(title='Agent Host')
w.add(Gtk.Label(label='the agent host'))
w.set_default_size(300, 120)
w.show_all()
child = subprocess.Popen(sys.argv[1:])
def watch():
    if child.poll() is not None:
        Gtk.main_quit()
        return False
    return True
GLib.timeout_add(100, watch)
Gtk.main()
`;
import { expectCard } from '../../testing/cards.js';

/**
 * docs/supervision.md#rules-and-keys, #view-only-actions and docs/security.md#agent-hosts, through the real server, helper and fixture on the test desktop:
 * a session rule covers no key that leaves its element, a focus that would select asks the person,
 * and a bridge's host_pid hides nothing from anyone else.
 */
describe('as a hostile agent: rules stay in scope, views stay views, hosts stay private', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let driver: FixtureDriver;
  let fixture: Windows['windows'][number];

  const find = async (id: string): Promise<{ value?: string; state: { checked?: boolean; focused?: boolean; selected?: boolean } } | undefined> =>
    (
      await toolJson<{ matches: { value?: string; state: { checked?: boolean } }[] }>(agent, 'element_find', {
        window: fixture.window,
        selector: { automation_id: id },
      })
    ).matches[0];
  const statusName = async (): Promise<string> =>
    (await toolJson<{ matches: { name?: string }[] }>(agent, 'element_find', { window: fixture.window, selector: { automation_id: 'status' } })).matches[0]
      ?.name ?? '';
  const cardFor = (test: (p: PendingApproval) => boolean, since: number): Promise<PendingApproval> =>
    ui.waitFor<PendingApproval[]>('pending', (l) => l.some(test), 15_000, since).then((l) => l.find(test) as PendingApproval);

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    agent = await httpClient(s, 'hostile-agent');
    ui = await UiClient.connect(s);
    driver = await FixtureDriver.connect(desktop.a11yBusAddress);
    const found = (await toolJson<Windows>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture');
    assert.ok(found?.rect !== undefined);
    fixture = found;
  });
  after(async () => {
    driver?.close();
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('1. an element rule for keys covers no key or text that leaves the element: Tab Tab space asks the person, the check box stays', async () => {
    const focus = await toolJson<Receipt>(agent, 'element_act', { window: fixture.window, selector: { automation_id: 'name_entry' }, action: 'focus' });
    assert.equal(focus.decision?.verdict, 'auto', 'focusing an entry is a view, run at once');
    warp(desktop.display, fixture.rect?.cx ?? 0, fixture.rect?.cy ?? 0);
    // The person allows `key`, and `type_text`, for this element only.
    let since = 0;
    for (const [tool, args] of [
      ['key', { keys: 'End' }],
      ['type_text', { text: 'x' }],
    ] as const) {
      since = ui.mark();
      const answer = toolJson<Receipt>(agent, tool, args, { timeout: 60_000 });
      const first = await cardFor((p) => p.action === tool, since);
      assert.equal(expectCard(first, 'screen').screen.detail.element?.role, 'edit');
      const allowed = await ui.command<{ rule?: { scope: string } }>('approve', { approval_id: first.approval_id, allow: { scope: 'element' } });
      assert.equal(allowed.rule?.scope, 'element');
      assert.equal((await answer).outcome, 'completed');
    }
    const subscribed = (await find('subscribe'))?.state.checked;

    // The measured escape: keys that move the focus, then toggle what they reach.
    for (const attempt of [
      { tool: 'key', args: { keys: 'Tab Tab space' } },
      { tool: 'type_text', args: { text: '\t\t ' } },
      { tool: 'key', args: { keys: 'ctrl+a' } },
    ]) {
      since = ui.mark();
      const answer = toolJson<Receipt>(agent, attempt.tool, attempt.args, { timeout: 60_000 });
      const card = await cardFor((p) => p.action === attempt.tool, since);
      assert.ok(card.risk_hints.includes(RULE_SCOPE_HINT), `${attempt.tool} ${JSON.stringify(attempt.args)}: the card says the rule does not cover it`);
      await ui.command('deny', { approval_id: card.approval_id, reason: 'leaves the field' });
      const r = await answer;
      assert.equal(r.decision?.verdict, 'denied', JSON.stringify(attempt.args));
      assert.equal(r.action_call_made, false);
    }
    assert.equal((await find('subscribe'))?.state.checked, subscribed, 'the check box was never toggled');

    // What the rule does cover runs at once, one key at a time.
    const covered = await toolJson<Receipt>(agent, 'key', { keys: 'Home End' });
    assert.equal(covered.decision?.verdict, 'auto');
    assert.match(covered.decision?.note ?? '', /^rule R/);
    assert.equal(covered.outcome, 'completed', JSON.stringify(covered));

    // The focus leaves the element part way through covered keys (the person clicks elsewhere): the rest is refused, saying how far it got.
    const keys = Array.from({ length: 40 }, () => 'Left').join(' ');
    const long = toolJson<Receipt>(agent, 'key', { keys }, { timeout: 60_000 });
    await new Promise((r) => setTimeout(r, 400));
    await driver.focus('subscribe');
    const stopped = await long;
    assert.equal(stopped.decision?.verdict, 'auto');
    assert.equal(stopped.error?.code ?? stopped.refusal?.code, 'stale_screen', JSON.stringify(stopped));
    assert.equal((stopped.error ?? stopped.refusal)?.data?.['reason'], 'left_rule_scope');
    const sent = stopped.screen?.sent;
    assert.ok(sent !== undefined && sent.of === 40 && sent.count < 40, `stopped part way: ${JSON.stringify(sent)}`);
    assert.equal(stopped.outcome, sent.count > 0 ? 'failed' : 'refused');
    assert.equal((await find('subscribe'))?.state.checked, subscribed, 'nothing reached the check box');
    const journal: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => journal.push(JSON.parse(l) as Record<string, unknown>));
    assert.ok(
      journal.some((l) => l['tool'] === 'key' && (l['receipt'] as Receipt | undefined)?.screen?.sent?.count === sent.count),
      'the journal says how far it got',
    );
    assert.ok(journal.some((l) => l['kind'] === 'approval_pending' && typeof l['beyond_rule'] === 'string'));
  });

  it('2. focus is a view only where it cannot select: a list row and a tree cell ask the person, and nothing is selected meanwhile', async () => {
    for (const name of ['Row 3', 'Fruits']) {
      const before = await statusName();
      const since = ui.mark();
      const answer = toolJson<Receipt>(agent, 'element_act', { window: fixture.window, selector: { name }, action: 'focus' }, { timeout: 60_000 });
      const card = await cardFor((p) => p.action === 'focus' && p.target?.name === name, since);
      assert.ok(card.risk_hints.includes(SELECTION_HINT), `${name}: the card says why a focus asks`);
      assert.equal(await statusName(), before, `${name}: nothing ran before the decision`);
      await ui.command('deny', { approval_id: card.approval_id });
      const r = await answer;
      assert.equal(r.refusal?.code, 'denied');
      assert.ok(!/selected/.test(await statusName()), `${name}: still not selected`);
    }
  });

  it('5. a bridge names its host: hidden from that agent alone when the kernel confirms it, ignored when it names another process', async () => {
    const host = new Client({ name: 'hosted-agent', version: '1' });
    await host.connect(
      new StdioClientTransport({
        command: '/usr/bin/python3',
        args: ['-c', HOST, process.execPath, join(REPO_ROOT, 'bin/overseer.mjs'), 'mcp', '--data-dir', s.dataDir],
        cwd: REPO_ROOT,
        env: { ...desktop.env, PATH: process.env['PATH'] ?? '' },
        stderr: 'pipe',
      }),
    );
    await activateTiers(host);
    try {
      let hostWindow: Windows['windows'][number] | undefined;
      for (let i = 0; i < 50 && hostWindow === undefined; i++) {
        hostWindow = (await toolJson<Windows>(agent, 'window_list')).windows.find((w) => w.title === 'Agent Host');
        if (hostWindow === undefined) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(hostWindow !== undefined, 'another agent sees the host’s window');
      const own = await toolJson<Windows>(host, 'window_list');
      assert.ok(!own.windows.some((w) => w.title === 'Agent Host'), 'the agent does not see its own host');
      assert.ok(own.windows.some((w) => w.title === 'Overseer Fixture'));
      const read = await toolJson<{ error?: { code: string } }>(host, 'window_read', { window: hostWindow.window });
      assert.equal(read.error?.code, 'excluded_target');
      const view = await ui.command<ScreenView>('screen_view', { window: hostWindow.window });
      assert.deepEqual(view.masked, [], 'the person sees the host’s window unmasked');

      // A raw bridge connection naming the fixture as its host: the kernel says otherwise, so nothing is hidden from anyone.
      const seen = (await ui.command<ScreenView>('screen_view', { window: fixture.window })).masked;
      const claimed = await rawBridge(join(s.dataDir, 'overseer.sock'), s.token, fixture.pid);
      try {
        assert.match(claimed.hello, /"ok":true/);
        await claimed.call('tools/call', { name: 'computer_use_activate', arguments: {} });
        const listed = await claimed.call('tools/call', { name: 'window_list', arguments: { output: 'json' } });
        assert.match(listed, /Overseer Fixture/, 'the claim hid nothing from the claimer either');
        assert.ok((await toolJson<Windows>(agent, 'window_list')).windows.some((w) => w.title === 'Overseer Fixture'));
        const fixtureView = await ui.command<ScreenView>('screen_view', { window: fixture.window });
        assert.deepEqual(fixtureView.masked, seen, 'nor from the person: the Screen view masks what it masked before (windows over it), no more');
        assert.match(s.stderr(), new RegExp(`host_pid ${fixture.pid} ignored`));
      } finally {
        claimed.close();
      }
    } finally {
      await host.close();
    }
    // Once the bridge has gone, nothing of it remains.
    assert.ok((await toolJson<Windows>(agent, 'window_list')).windows.some((w) => w.title === 'Overseer Fixture'));
  });
});

/** A bridge client speaking the socket's own protocol: a hello line, then MCP, one JSON message a line. */
async function rawBridge(
  path: string,
  token: string,
  hostPid: number,
): Promise<{ hello: string; call(method: string, params: unknown): Promise<string>; close(): void }> {
  const socket = createConnection(path);
  let buffer = '';
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  socket.on('data', (b: Buffer) => {
    buffer += b.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  const next = async (test: (line: string) => boolean): Promise<string> => {
    for (;;) {
      const i = lines.findIndex(test);
      if (i >= 0) return lines.splice(i, 1)[0] as string;
      await new Promise<void>((resolve, reject) => {
        waiters.push(resolve);
        setTimeout(() => reject(new Error('the bridge did not answer')), 15_000);
      });
    }
  };
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(`${JSON.stringify({ token, host_pid: hostPid, client: 'claims a host' })}\n`);
  const hello = await next(() => true);
  let id = 0;
  const call = async (method: string, params: unknown): Promise<string> => {
    const mine = ++id;
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
    return next((l) => l.includes(`"id":${mine}`));
  };
  await call('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'claims a host', version: '1' } });
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return { hello, call, close: () => socket.destroy() };
}
