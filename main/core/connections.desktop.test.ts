import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AgentInfo, ConnectionsView, ListConnectionsAnswer, PendingApproval, Receipt, RemoteExecResult } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { FixtureDriver } from '../testing/fixtureDriver.js';
import { UiClient, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../testing/serveHarness.js';
import { exportJournal } from './journal/index.js';
import { REPO_ROOT } from './runtime/paths.js';
import { cardIs } from '../testing/cards.js';
import { until } from '../testing/until.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
type Answer<T> = T & { error?: { code: string; detail: string; data?: Record<string, unknown> } };

/**
 * One supervisor, two desktops (docs/connections.md#ids-are-bound-to-their-connection): the real `overseer serve` on the first private desktop,
 * and a connection whose helper is the real helper on a second private desktop (standing in for
 * ssh: main/testing/standInTarget.ts). Each fixture is read on its own desktop, through its own
 * D-Bus connection, never through the supervisor.
 */
describe('connections: an agent acts on a second desktop, and nothing of it lands on the local one', () => {
  let local: PrivateDesktop;
  let remote: PrivateDesktop;
  let s: Served;
  let ui: UiClient;
  let agent: Client;
  let localDriver: FixtureDriver;
  let remoteDriver: FixtureDriver;
  let localWin = '';
  let remoteWin = '';
  let remoteTarget = '';
  let remoteObservation = '';
  let remoteShot = '';

  const card = <C extends PendingApproval>(test: (p: PendingApproval) => p is C, since: number): Promise<C> =>
    ui.waitFor<PendingApproval[]>('pending', (list) => list.some(test), 20_000, since).then((list) => list.find(test) as C);
  const fixtureWindow = async (): Promise<string> =>
    (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
  const journal = async (): Promise<Record<string, unknown>[]> => {
    const lines: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    return lines;
  };
  /** The local fixture is as it started: nothing aimed at the other desktop landed here. */
  const localUntouched = async (why: string): Promise<void> => assert.equal(await localDriver.text('name_entry'), 'Alice', `local untouched: ${why}`);

  before(async () => {
    local = await startPrivateDesktop();
    remote = await startPrivateDesktop();
    await local.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' });
    await remote.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' });
    s = await serve({ ...local.env, OVERSEER_TEST_REMOTE_ENV: JSON.stringify(remote.env) }, { targets: 'stand-in' });
    ui = await UiClient.connect(s);
    agent = await httpClient(s, 'two-desktop-agent', { tiers: ['accessibility', 'screen', 'connections'] });
    localDriver = await FixtureDriver.connect(local.a11yBusAddress);
    remoteDriver = await FixtureDriver.connect(remote.a11yBusAddress);
  });
  after(async () => {
    localDriver?.close();
    remoteDriver?.close();
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await remote?.stop();
    await local?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('add_connection is a card showing exactly the entry; approved by the person, it is listed, enabled', async () => {
    const since = ui.mark();
    const answer = toolJson<{ added: { name: string; enabled: boolean } }>(
      agent,
      'add_connection',
      { name: 'second', kind: 'ssh', host: 'second-desktop', user: 'ann' },
      { timeout: 60_000 },
    );
    const c = await card(cardIs('add_connection'), since);
    assert.deepEqual(c.add_connection, { name: 'second', kind: 'ssh', enabled: true, host: 'second-desktop', user: 'ann' });
    await assert.rejects(ui.command('approve', { approval_id: c.approval_id, allow: { scope: 'app' } }), /no session rule covers add_connection/);
    await ui.command('approve', { approval_id: c.approval_id });
    const added = await answer;
    assert.equal(added.added.name, 'second');
    assert.equal(added.added.enabled, true);
    const list = await toolJson<ListConnectionsAnswer>(agent, 'list_connections');
    assert.deepEqual(
      list.connections.map((x) => [x.name, x.kind, x.where]),
      [
        ['local', 'local', 'this desktop'],
        ['second', 'ssh', 'ann@second-desktop'],
      ],
    );
    assert.equal(list.active, 'local');
    const view = await ui.waitFor<ConnectionsView>('connections', (v) => v.list.some((x) => x.name === 'second'));
    assert.equal(view.viewed, 'local');
  });

  it('after activate_connection the agent reads the second desktop, and element_act approved in the UI lands there only', async () => {
    localWin = await fixtureWindow();
    assert.ok(localWin !== '');
    const activated = await toolJson<{ active: { name: string }; previous: string }>(agent, 'activate_connection', { name: 'second' });
    assert.equal(activated.active.name, 'second');
    assert.equal(activated.previous, 'local');
    await ui.waitFor<AgentInfo[]>('agents', (list) => list.some((a) => a.client === 'two-desktop-agent' && a.connection === 'second'));
    remoteWin = await fixtureWindow();
    assert.ok(remoteWin !== '' && remoteWin !== localWin, `two desktops, two fixture windows (${localWin}, ${remoteWin})`);
    const read = await toolJson<{ observation: string; elements: { target?: string; automation_id?: string; children?: unknown[] }[] }>(agent, 'window_read', {
      window: remoteWin,
      format: 'flat',
      targets: true,
    });
    remoteObservation = read.observation;
    remoteTarget = read.elements.find((e) => e.automation_id === 'name_entry')?.target ?? '';
    assert.ok(remoteTarget !== '');
    const since = ui.mark();
    const act = toolJson<Receipt>(agent, 'element_act', { target: remoteTarget, action: 'set_value', text: 'Remote Rita' }, { timeout: 60_000 });
    const c = await card(
      cardIs('element', (p) => p.action === 'set_value'),
      since,
    );
    assert.deepEqual(c.connection, { name: 'second', kind: 'ssh', where: 'ann@second-desktop' }, 'the card says where it lands');
    await ui.command('approve', { approval_id: c.approval_id });
    const receipt = await act;
    assert.equal(receipt.outcome, 'completed', JSON.stringify(receipt));
    assert.equal(await remoteDriver.text('name_entry'), 'Remote Rita', 'it landed on the second desktop');
    await localUntouched('the act went to the second desktop');
    const record = (await journal()).find((l) => l['kind'] === 'tool_call' && l['tool'] === 'element_act');
    assert.deepEqual(record?.['connection'], { name: 'second', kind: 'ssh', where: 'ann@second-desktop' }, 'its journal record names the connection');
    const shot = await tool(agent, 'screenshot', { max_width: 640 });
    assert.equal(shot.isError, false, shot.text);
    remoteShot = (shot.structured as { screenshot: string }).screenshot;
    const caps = await toolJson<{ active_connection?: { name: string } }>(agent, 'capabilities');
    assert.equal(caps.active_connection?.name, 'second');
  });

  it('ids from one connection answer wrong_connection on the other, before any helper call', async () => {
    const onRemote = await toolJson<Answer<object>>(agent, 'window_read', { window: localWin });
    assert.equal(onRemote.error?.code, 'wrong_connection');
    assert.deepEqual(onRemote.error?.data, { connection: 'local', active: 'second' });
    await toolJson(agent, 'use_local');
    const checks: [string, Record<string, unknown>][] = [
      ['window_read', { window: remoteWin }],
      ['window_read', { snapshot: remoteObservation }],
      ['element_act', { target: remoteTarget, action: 'set_value', text: 'should never land' }],
      ['click', { screenshot: remoteShot, x: 10, y: 10 }],
      ['click', { x: 10, y: 10 }],
    ];
    for (const [name, args] of checks) {
      const a = await toolJson<Answer<Receipt>>(agent, name, args);
      const error = a.error ?? a.refusal;
      assert.equal(error?.code, 'wrong_connection', `${name} ${JSON.stringify(args)}: ${JSON.stringify(a)}`);
      assert.deepEqual(error?.data, { connection: 'second', active: 'local' });
    }
    assert.equal(ui.pending.length, 0, 'no card was made');
    await localUntouched('ids of the second desktop never reach the local one');
  });

  it('remote_exec is refused on local, shows the exact command to the person, and runs only once approved', async () => {
    const onLocal = await toolJson<Answer<object>>(agent, 'remote_exec', { command: 'touch /tmp/never' });
    assert.equal(onLocal.error?.code, 'invalid_argument');
    assert.equal(onLocal.error?.data?.['reason'], 'local');
    await toolJson(agent, 'activate_connection', { name: 'second' });
    let since = ui.mark();
    const denied = toolJson<Answer<RemoteExecResult>>(agent, 'remote_exec', { command: 'echo should-not-run' }, { timeout: 60_000 });
    let c = await card(cardIs('remote_exec'), since);
    assert.deepEqual(c.remote_exec, { command: 'echo should-not-run', timeout_ms: 30_000 });
    assert.deepEqual(c.connection, { name: 'second', kind: 'ssh', where: 'ann@second-desktop' });
    await ui.command('deny', { approval_id: c.approval_id });
    assert.equal((await denied).error?.code, 'denied');
    since = ui.mark();
    const ran = toolJson<RemoteExecResult>(agent, 'remote_exec', { command: 'echo "$DISPLAY"; echo oops >&2; exit 3' }, { timeout: 60_000 });
    c = await card(cardIs('remote_exec'), since);
    await ui.command('approve', { approval_id: c.approval_id });
    const r = await ran;
    assert.equal(r.exit_code, 3);
    assert.equal(r.ok, false, 'ok only on exit 0');
    assert.equal(r.stdout.trim(), remote.display, 'it ran where the second desktop is');
    assert.equal(r.stderr.trim(), 'oops');
    assert.equal(r.stdout_truncated, false);
  });

  it('the emergency stop ends the second connection too (its helper and its target); re-arm brings it back', async () => {
    assert.equal((await toolJson<ListConnectionsAnswer>(agent, 'list_connections')).active, 'second');
    const before = (s.stderr().match(/\[stand-in\] second closed/g) ?? []).length;
    await ui.command('brake', { action: 'emergency_stop' });
    // The command is answered once the target is closed; the stand-in's line reaches us on another pipe than the answer.
    const closed = await until(() => {
      const n = (s.stderr().match(/\[stand-in\] second closed/g) ?? []).length;
      return n > before ? n : undefined;
    }, "the second connection's target to close");
    assert.equal(closed, before + 1, 'its target was closed once');
    const view = await ui.waitFor<ConnectionsView>('connections', (v) => v.list.some((x) => x.name === 'second'));
    assert.ok(view.list.length === 2);
    const braked = await toolJson<Answer<object>>(agent, 'window_list');
    assert.equal(braked.error?.code, 'braked');
    await ui.command('brake', { action: 'rearm' });
    const listed = await tool(agent, 'window_list');
    assert.equal(listed.isError, false, listed.text);
    assert.equal(await fixtureWindow(), remoteWin, 're-armed: the second desktop answers again');
    assert.equal(await remoteDriver.text('name_entry'), 'Remote Rita');
    await localUntouched('the brakes never moved anything');
  });

  it('a disabled, then removed, connection answers connection_unavailable, and nothing falls back to local', async () => {
    const since = ui.mark();
    const late = toolJson<Receipt>(
      agent,
      'element_act',
      { window: remoteWin, selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'approved after disable' },
      { timeout: 60_000 },
    );
    const c = await card(
      cardIs('element', (p) => p.action === 'set_value'),
      since,
    );
    await ui.command('connection_set_enabled', { name: 'second', enabled: false });
    await ui.command('approve', { approval_id: c.approval_id });
    const refused = await late;
    assert.equal(refused.outcome, 'refused', 'disabled while its card waited: refused, nothing sent');
    assert.equal(refused.refusal?.code, 'connection_unavailable');
    for (const [name, args] of [
      ['window_list', {}],
      ['element_act', { target: remoteTarget, action: 'set_value', text: 'disabled, never lands' }],
      ['element_act', { selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'disabled, never lands' }],
    ] as [string, Record<string, unknown>][]) {
      const a = await toolJson<Answer<Receipt>>(agent, name, args);
      assert.equal(a.error?.code, 'connection_unavailable', `${name}: ${JSON.stringify(a)}`);
      assert.equal(a.error?.data?.['reason'], 'disabled');
      assert.equal(a.error?.data?.['connection'], 'second');
    }
    await ui.command('connection_remove', { name: 'second' });
    const gone = await toolJson<Answer<object>>(agent, 'window_list');
    assert.equal(gone.error?.code, 'connection_unavailable');
    assert.equal(gone.error?.data?.['reason'], 'removed');
    assert.equal(await remoteDriver.text('name_entry'), 'Remote Rita');
    await localUntouched('a disabled or removed connection never falls back to local');
    assert.equal((await toolJson<ListConnectionsAnswer>(agent, 'list_connections')).active, 'second', 'the agent stays where it was, answered unavailable');
    await toolJson(agent, 'use_local');
    assert.equal(await fixtureWindow(), localWin, 'use_local: the local desktop again');
  });
});
