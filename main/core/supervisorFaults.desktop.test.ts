import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TIMEOUT_GRACE_MS, type HelperHealth, type PendingApproval, type Receipt, type UiSnapshot, type WindowReadAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from './runtime/paths.js';
import { UiClient, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../testing/serveHarness.js';
import { exportJournal } from './journal/index.js';
import { cardIs } from '../testing/cards.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

/** True while a process exists (and is not a zombie). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
const FREEZE_S = 5;

describe('overseer serve: faults', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let win: string;

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '30', '--freeze-seconds', String(FREEZE_S)], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    agent = await httpClient(s);
    ui = await UiClient.connect(s);
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
  });
  after(async () => {
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  const health = (test: (h: HelperHealth) => boolean, since = 0): Promise<HelperHealth> => ui.waitFor<HelperHealth>('helper', test, 20_000, since);
  /** A whole read of the fixture once it answers again: a helper that backs off from it probes it after 1, 2, 4… s. */
  const thawedRead = async (): Promise<WindowReadAnswer> => {
    let last: Awaited<ReturnType<typeof toolJson<WindowReadAnswer>>> | undefined;
    for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
      last = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win });
      if (last.error === undefined && !last.truncated_by.includes('timeout')) return last;
      if (last.error !== undefined) assert.equal(last.error.code, 'application_unresponsive', JSON.stringify(last.error));
    }
    return assert.fail(`the thawed fixture never read whole: ${JSON.stringify(last).slice(0, 300)}`);
  };

  it('answers unknown when the helper dies during an act, and a restarted helper serves the next call', async () => {
    const snap = await ui.command<UiSnapshot>('snapshot');
    const pid = snap.helper.pid;
    assert.ok(pid !== undefined);
    const answer = toolJson<Receipt>(agent, 'element_act', { window: win, selector: { automation_id: 'freeze' }, action: 'invoke' }, { timeout: 120_000 });
    const card = await ui.waitFor<PendingApproval[]>('pending', (p) => p.length > 0).then((p) => p[0] as PendingApproval);
    await ui.command('approve', { approval_id: card.approval_id });
    await new Promise((r) => setTimeout(r, 400)); // the helper is now reading back from the frozen fixture
    const killed = ui.mark();
    process.kill(pid, 'SIGKILL');
    const r = await answer;
    assert.equal(r.outcome, 'unknown', JSON.stringify(r));
    assert.equal(r.action_call_made, 'unknown');
    assert.equal(r.error?.code, 'helper_unavailable');
    const restarted = await health((h) => h.state === 'ready' && h.pid !== pid, killed);
    assert.ok(restarted.restarts >= 1);
    const frozen = Date.now();
    const read = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, timeout_ms: 1000 });
    assert.ok(Date.now() - frozen < 1000 + TIMEOUT_GRACE_MS + 500, `answered in ${Date.now() - frozen} ms`);
    // Partially within its budget, or (once it has not answered for a second) at once, by name.
    if (read.error !== undefined) assert.equal(read.error.code, 'application_unresponsive', JSON.stringify(read.error));
    else assert.ok(read.truncated_by.includes('timeout'), 'the frozen fixture is answered partially within its budget');
    await new Promise((res) => setTimeout(res, FREEZE_S * 1000));
    // Read whole again once the helper's probe heard it (after 1, 2, 4… s of backoff).
    await thawedRead();
  });

  it('kills and restarts a helper that stops answering (watchdog)', async () => {
    const pid = (await ui.command<UiSnapshot>('snapshot')).helper.pid;
    assert.ok(pid !== undefined);
    const stopped = ui.mark();
    process.kill(pid, 'SIGSTOP');
    const restarted = await health((h) => h.state === 'ready' && h.pid !== undefined && h.pid !== pid, stopped);
    assert.ok(restarted.pid !== pid);
    assert.equal(alive(pid), false, 'the wedged helper was killed');
    assert.match((await tool(agent, 'window_list')).text, /Overseer Fixture/);
  });

  it('emergency stop answers an act caught in dispatch unknown and braked, then kills the helper and answers every call braked until re-armed; the agent keeps its session', async () => {
    // The fixture's Freeze button blocks the application after the click: the act stays in its dispatch (read back) phase.
    const since = ui.mark();
    const inDispatch = toolJson<Receipt>(agent, 'element_act', { window: win, selector: { automation_id: 'freeze' }, action: 'invoke' }, { timeout: 10_000 });
    const card = await ui
      .waitFor<PendingApproval[]>('pending', (p) => p.some(cardIs('element', (x) => x.target.automation_id === 'freeze')), 15_000, since)
      .then((p) => p.find(cardIs('element', (x) => x.target.automation_id === 'freeze')) as PendingApproval);
    await ui.command('approve', { approval_id: card.approval_id });
    await new Promise((r) => setTimeout(r, 400)); // the helper is now reading back from the frozen fixture
    const braked = ui.mark();
    await ui.command('brake', { action: 'emergency_stop' });
    const answer = await inDispatch;
    assert.equal(answer.outcome, 'unknown', JSON.stringify(answer).slice(0, 300));
    assert.equal(answer.action_call_made, 'unknown', 'it may have run: never called refused');
    assert.equal(answer.error?.code, 'braked');
    assert.equal(answer.decision?.verdict, 'approved', 'the receipt keeps who decided');
    await health((h) => h.state === 'stopped', braked);
    assert.equal((await toolJson(agent, 'window_list', {}, { timeout: 5000 })).error?.code, 'braked', 'the session stays; its calls answer braked');
    await assert.rejects(ui.command('brake', { action: 'resume' }), /braked/, 'resume does not end an emergency stop');
    const rearmed = ui.mark();
    await ui.command('brake', { action: 'rearm' });
    await health((h) => h.state === 'ready', rearmed);
    // The fixture is still frozen by the click that may have run: the listing names it once it thaws
    // (at once while the helper backs off from it, so the test waits in time, not in listings).
    let listed = '';
    for (const until = Date.now() + 30_000; Date.now() < until && !/Overseer Fixture/.test(listed); await new Promise((r) => setTimeout(r, 250)))
      listed = (await tool(agent, 'window_list')).text;
    assert.match(listed, /Overseer Fixture/);
    await thawedRead();
  });

  it('after a supervisor crash every acknowledged call is journaled, the journal verifies, and pending approvals expire', async () => {
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      await tool(agent, 'window_list');
      acknowledged.push('window_list');
    }
    const pending = toolJson<Receipt>(
      agent,
      'element_act',
      { window: win, selector: { automation_id: 'counter' }, action: 'invoke' },
      { timeout: 120_000 },
    ).catch(() => undefined);
    const card = await ui
      .waitFor<PendingApproval[]>('pending', (p) => p.some(cardIs('element', (x) => x.target.automation_id === 'counter')))
      .then((p) => p.find(cardIs('element', (x) => x.target.automation_id === 'counter')) as PendingApproval);
    const helperPid = (await ui.command<UiSnapshot>('snapshot')).helper.pid;
    ui.close();
    await s.kill('SIGKILL');
    await agent.close().catch(() => {});
    await pending;
    for (let i = 0; i < 50 && helperPid !== undefined && alive(helperPid); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(helperPid !== undefined && alive(helperPid), false, 'the helper exits when its parent dies');
    const verify = spawnSync(process.execPath, ['bin/overseer.mjs', 'journal', 'verify', '--data-dir', s.dataDir], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /journal ok/);
    let lines: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    const listed = lines.filter((l) => l['kind'] === 'tool_call' && l['tool'] === 'window_list').length;
    assert.ok(listed >= acknowledged.length);
    assert.ok(lines.some((l) => l['kind'] === 'approval_pending' && l['approval_id'] === card.approval_id));
    s = await serve(desktop.env, { dataDir: s.dataDir, token: s.token });
    ui = await UiClient.connect(s);
    lines = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    const resolved = lines.find((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === card.approval_id);
    assert.equal(resolved?.['verdict'], 'expired');
    agent = await httpClient(s);
    assert.match((await tool(agent, 'window_list')).text, /Overseer Fixture/);
  });
});
