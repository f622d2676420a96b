import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { PendingApproval, PolicyRule, Receipt, ReceiptEntry, RemoteExecResult } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { FixtureDriver } from '../../testing/fixtureDriver.js';
import { startPrivateSshd, type PrivateSshd } from '../../testing/privateSshd.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../../testing/serveHarness.js';
import { REPO_ROOT } from '../runtime/paths.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
type Answer<T> = T & { error?: { code: string; detail: string; data?: Record<string, unknown> } };

/**
 * docs/security.md#connections, through the real supervisor, a real OpenSSH server on loopback and the
 * real helper on two private desktops that run the same fixture (so element keys and app names look
 * alike on both, as they do on real desktops): rules, cards, held acts and remote commands stay
 * bound to the desktop they were given for; an agent cannot make ssh run anything here; and the
 * brakes end a command running on the remote.
 */
describe('as a hostile agent with two desktops: approvals, rules and commands stay where the person gave them', () => {
  let local: PrivateDesktop;
  let remote: PrivateDesktop;
  let sshd: PrivateSshd;
  let s: Served;
  let ui: UiClient;
  let agent: Client;
  let localDriver: FixtureDriver;
  let remoteDriver: FixtureDriver;
  let scratch: string;

  const call = <T = Record<string, unknown>>(tool: string, args: Record<string, unknown> = {}): Promise<Answer<T>> =>
    toolJson<Answer<T>>(agent, tool, args, { timeout: 90_000 });
  const card = (test: (p: PendingApproval) => boolean, since: number): Promise<PendingApproval> =>
    ui.waitFor<PendingApproval[]>('pending', (list) => list.some(test), 30_000, since).then((list) => list.find(test) as PendingApproval);
  const labEntry = (display: string, bus: string | undefined) => ({
    name: 'lab',
    kind: 'ssh',
    enabled: true,
    host: sshd.alias,
    ssh_config: sshd.clientConfig,
    display,
    ...(bus !== undefined ? { bus } : {}),
  });
  const addLab = (): Promise<unknown> => ui.command('connection_add', { config: labEntry(remote.display, remote.env['DBUS_SESSION_BUS_ADDRESS']) });
  const fixtureWindow = async (): Promise<string> =>
    (await call<{ windows: { window: string; title: string }[] }>('window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
  /** set_value on the fixture's name entry of the active desktop; answers the card (undefined: it ran without one) and the receipt. */
  const setName = async (text: string): Promise<{ card: PendingApproval | undefined; receipt: Promise<Receipt> }> => {
    const window = await fixtureWindow();
    assert.ok(window !== '', 'the fixture is listed');
    const since = ui.mark();
    const receipt = toolJson<Receipt>(
      agent,
      'element_act',
      { window, selector: { automation_id: 'name_entry' }, action: 'set_value', text },
      { timeout: 90_000 },
    );
    const first = await Promise.race([receipt.then(() => undefined), card((p) => p.action === 'set_value', since)]);
    return { card: first, receipt };
  };

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'overseer-trust-'));
    [local, remote] = await Promise.all([startPrivateDesktop(), startPrivateDesktop()]);
    await Promise.all([
      local.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' }),
      remote.launch('/usr/bin/python3', [FIXTURE], { waitForWindow: 'Overseer Fixture' }),
    ]);
    sshd = await startPrivateSshd();
    s = await serve(local.env);
    ui = await UiClient.connect(s);
    await addLab();
    agent = await httpClient(s, 'trust-agent', { tiers: ['accessibility', 'connections'] });
    localDriver = await FixtureDriver.connect(local.a11yBusAddress);
    remoteDriver = await FixtureDriver.connect(remote.a11yBusAddress);
  });
  after(async () => {
    localDriver?.close();
    remoteDriver?.close();
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await sshd?.stop();
    await Promise.all([remote?.stop(), local?.stop()]);
    if (s !== undefined) await removeDataDir(s.dataDir);
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('a rule given on one desktop never decides an act on the other, whatever the keys and app names look like', async () => {
    // On local: the person allows set_value on the whole fixture app for the session.
    const first = await setName('Local Lee');
    assert.ok(first.card !== undefined, 'the first act asks');
    const answer = await ui.command<{ rule: PolicyRule }>('approve', { approval_id: first.card.approval_id, allow: { scope: 'app' } });
    assert.equal(answer.rule.kind === 'allow' && answer.rule.connection, 'local', 'the rule names the desktop it was given on');
    assert.equal((await first.receipt).outcome, 'completed');
    const again = await setName('Local Lou');
    assert.equal(again.card, undefined, 'on local the rule decides');
    assert.equal((await again.receipt).decision?.verdict, 'auto');

    // The same app, the same element key, on the ssh desktop: a card, never the local rule.
    assert.equal((await call('activate_connection', { name: 'lab' })).error, undefined);
    const there = await setName('Remote Rex');
    assert.ok(there.card !== undefined, 'the local rule does not cover the ssh desktop');
    assert.equal(there.card.connection?.name, 'lab');
    const labRule = await ui.command<{ rule: PolicyRule }>('approve', { approval_id: there.card.approval_id, allow: { scope: 'app' } });
    assert.equal(labRule.rule.kind === 'allow' && labRule.rule.connection, 'lab');
    assert.equal((await there.receipt).outcome, 'completed');
    assert.equal(await remoteDriver.text('name_entry'), 'Remote Rex');

    // And the other way round: the rule made on lab does not reach local once the local rule is gone.
    await ui.command('remove_rule', { id: answer.rule.id });
    assert.equal((await call('use_local')).error, undefined);
    const back = await setName('Local Liz');
    assert.ok(back.card !== undefined, 'the rule given on lab does not cover local');
    await ui.command('deny', { approval_id: back.card.approval_id });
    assert.equal((await back.receipt).refusal?.code, 'denied');
    assert.equal(await localDriver.text('name_entry'), 'Local Lou');
    const rules = await ui.waitFor<PolicyRule[]>('rules', (list) => list.some((r) => r.kind === 'allow'));
    assert.deepEqual(
      rules.flatMap((r) => (r.kind === 'allow' ? [r.connection] : [])),
      ['lab'],
    );

    // A later "lab" (removed and added again) is another desktop: the rule of the earlier one is not its.
    assert.equal((await call('activate_connection', { name: 'lab' })).error, undefined);
    await ui.command('connection_remove', { name: 'lab' });
    await addLab();
    assert.equal((await call('activate_connection', { name: 'lab' })).error, undefined);
    const later = await setName('Remote Ray');
    assert.ok(later.card !== undefined, 'a rule of the earlier "lab" does not cover the new one');
    await ui.command('deny', { approval_id: later.card.approval_id });
    assert.equal((await later.receipt).refusal?.code, 'denied');
  });

  it('an approved remote_exec never runs on a connection removed and added again while its card waited, or while the pause held it', async () => {
    assert.equal((await call('activate_connection', { name: 'lab' })).error, undefined);
    for (const held of [false, true]) {
      const marker = join(scratch, held ? 'held-ran' : 'pending-ran');
      const since = ui.mark();
      const answer = call<RemoteExecResult>('remote_exec', { command: `touch ${marker}` });
      const c = await card((p) => p.action === 'remote_exec', since);
      assert.equal(c.connection?.name, 'lab');
      if (held) {
        await ui.command('brake', { action: 'pause' });
        await ui.command('approve', { approval_id: c.approval_id });
      }
      await ui.command('connection_remove', { name: 'lab' });
      await addLab();
      if (held) await ui.command('brake', { action: 'resume' });
      else await ui.command('approve', { approval_id: c.approval_id });
      const got = await answer;
      assert.equal(got.error?.code, 'connection_unavailable', JSON.stringify(got));
      assert.equal(got.error?.data?.['reason'], 'changed');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(existsSync(marker), false, `${held ? 'held' : 'pending'}: the command never ran on the new "lab"`);
    }
    // The new "lab" is usable once asked anew.
    const since = ui.mark();
    const fresh = call<RemoteExecResult>('remote_exec', { command: 'echo fresh' });
    await ui.command('approve', { approval_id: (await card((p) => p.action === 'remote_exec', since)).approval_id });
    assert.equal((await fresh).stdout, 'fresh\n');
  });

  it('an agent cannot name an ssh_config or a key: refused before any card, and nothing runs on this machine', async () => {
    const marker = join(scratch, 'ran-here');
    const config = join(scratch, 'evil_config');
    writeFileSync(config, `Match exec "touch ${marker}"\nHost *\n  ProxyCommand sh -c 'touch ${marker}; exec nc %h %p'\n`);
    const since = ui.mark();
    const evil = await call('add_connection', { name: 'evil', kind: 'ssh', host: sshd.alias, ssh_config: config });
    assert.equal(evil.error?.code, 'invalid_argument');
    assert.equal(evil.error?.data?.['reason'], 'person_only');
    const keyed = await call('add_connection', { name: 'keyed', kind: 'ssh', host: sshd.alias, identity_file: '/root/.ssh/id_ed25519' });
    assert.equal(keyed.error?.data?.['reason'], 'secret_field', 'a key file is refused as a secret, not as an unknown field');
    await new Promise((r) => setTimeout(r, 300));
    const pending = ui.events.slice(since).filter((e) => e.event === 'pending');
    assert.ok(
      pending.every((e) => !(e.data as PendingApproval[]).some((p) => p.action === 'add_connection')),
      'no card was shown',
    );
    assert.equal(existsSync(marker), false);
    assert.equal(
      (await call<{ connections: { name: string }[] }>('list_connections')).connections.some((c) => c.name === 'evil'),
      false,
    );
  });

  for (const brake of ['stop', 'emergency_stop'] as const) {
    it(`${brake === 'stop' ? 'Stop' : 'the emergency stop'} ends a running remote_exec on the remote, and its answer and receipt say braked`, async () => {
      assert.equal((await call('activate_connection', { name: 'lab' })).error, undefined);
      const file = join(scratch, `loop-${brake}`);
      const since = ui.mark();
      const answer = call<RemoteExecResult>('remote_exec', { command: `while :; do echo x >> ${file}; sleep 0.1; done`, timeout_ms: 60_000 });
      const c = await card((p) => p.action === 'remote_exec', since);
      await ui.command('approve', { approval_id: c.approval_id });
      for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(existsSync(file), 'the loop runs');
      const t0 = performance.now();
      await ui.command('brake', { action: brake });
      const got = await answer;
      const answeredMs = performance.now() - t0;
      assert.equal(got.error?.code, 'braked', JSON.stringify(got));
      assert.equal(got.error?.data?.['outcome'], 'stopped', got.error?.detail);
      const size = statSync(file).size;
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(statSync(file).size, size, 'the loop stopped on the remote');
      console.log(`[trust test] ${brake}: remote_exec answered braked ${answeredMs.toFixed(0)} ms after the brake`);
      const entry = await ui.waitFor<ReceiptEntry>('receipt', (r) => r.tool === 'remote_exec' && r.error?.code === 'braked', 15_000, since);
      assert.notEqual(entry.outcome, 'ok', "the person's list never says ok for a command a brake ended");
      assert.match(entry.error?.detail ?? '', /processes there were ended/);
      await ui.command('brake', { action: brake === 'stop' ? 'resume' : 'rearm' });
    });
  }
});
