// Departed agents, allow-for-session on queued cards, and an emergency stop that keeps sessions
// (docs/supervision.md#when-an-agent-has-gone, #allow-for-the-session, #emergency-stop), through the real `overseer serve`, helper and fixture: real MCP SDK
// clients (one in a child process that is SIGKILLed, one behind a real `overseer mcp` bridge) and
// the person's UI channel. Figures (how long a withdrawal took) are printed, not asserted.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { AgentInfo, PendingApproval, Receipt, ReceiptEntry } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { startDoomedAgent, type DoomedAgent } from '../testing/doomedAgent.js';
import { UiClient, activateTiers, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../testing/serveHarness.js';
import { exportJournal } from './journal/index.js';
import { REPO_ROOT } from './runtime/paths.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

describe('departed agents, allow-for-session on queued cards, and an emergency stop that keeps sessions', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let ui: UiClient;
  let agent: Client;
  let win: string;
  const doomed: DoomedAgent[] = [];

  const journal = async (): Promise<Record<string, unknown>[]> => {
    const lines: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    return lines;
  };
  const journaled = async (test: (l: Record<string, unknown>) => boolean, ms = 5000): Promise<Record<string, unknown> | undefined> => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      const found = (await journal()).find(test);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const card = (test: (p: PendingApproval) => boolean, since: number): Promise<PendingApproval> =>
    ui.waitFor<PendingApproval[]>('pending', (list) => list.some(test), 20_000, since).then((list) => list.find(test) as PendingApproval);
  const setName = (client: Client, text: string, options: { signal?: AbortSignal } = {}): Promise<unknown> =>
    client.callTool(
      { name: 'element_act', arguments: { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text, output: 'json' } },
      undefined,
      { timeout: 120_000, ...(options.signal !== undefined ? { signal: options.signal } : {}) },
    );

  /**
   * Waits until the card left the queue, then checks what a departure must leave: the final receipt
   * the UI got says `withdrawn` with the reason, the journal resolved it `withdrawn`, and (unless the
   * agent is still alive) the agent left the agents list. Prints how long the card stayed.
   */
  const withdrawn = async (item: PendingApproval, since: number, t0: number, reason: string, what: string): Promise<ReceiptEntry> => {
    await ui.waitFor<PendingApproval[]>('pending', (list) => !list.some((p) => p.approval_id === item.approval_id), 10_000, since);
    console.log(`# ${what}: the card left the queue ${Date.now() - t0} ms after the departure (the bound: 2000 ms)`);
    const final = await ui.waitFor<ReceiptEntry>('receipt', (r) => r.receipt_id === item.receipt_id && r.outcome !== 'pending', 10_000, since);
    assert.equal(final.receipt?.refusal?.code, 'withdrawn', JSON.stringify(final).slice(0, 400));
    assert.equal(final.receipt?.refusal?.data?.['reason'], reason);
    assert.equal(final.receipt?.decision?.verdict, 'withdrawn');
    const resolved = await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === item.approval_id);
    assert.equal(resolved?.['verdict'], 'withdrawn', 'the withdrawal is journaled');
    return final;
  };
  const agentGone = (session: string, since: number): Promise<AgentInfo[]> =>
    ui.waitFor<AgentInfo[]>('agents', (list) => !list.some((a) => a.session === session), 10_000, since);

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    ui = await UiClient.connect(s);
    agent = await httpClient(s, 'steady-agent');
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
    assert.notEqual(win, '');
  });
  after(async () => {
    for (const d of doomed) await d.dispose();
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('1. an agent process killed while its card waits: the card is withdrawn "agent disconnected" and the agent leaves the list', async () => {
    const since = ui.mark();
    const agentProcess = await startDoomedAgent(s, win, 'doomed-agent');
    doomed.push(agentProcess);
    const item = await card((p) => p.agent === 'doomed-agent', since).catch((e: unknown) => assert.fail(`${String(e)}\n${agentProcess.stderr()}`));
    const session = item.session;
    assert.ok((await ui.command<{ agents: AgentInfo[] }>('snapshot')).agents.some((a) => a.session === session));
    const gone = ui.mark();
    const t0 = Date.now();
    agentProcess.child.kill('SIGKILL');
    const final = await withdrawn(item, gone, t0, 'agent_disconnected', 'SIGKILL of an SDK client process');
    assert.match(final.receipt?.refusal?.detail ?? '', /agent disconnected/);
    await agentGone(session, gone);
    console.log(`# SIGKILL of an SDK client process: the agent left the agents list ${Date.now() - t0} ms after it`);
    assert.ok(await journaled((l) => l['kind'] === 'system' && l['event'] === 'agent_disconnected' && l['session'] === session));
  });

  it('2. a bridge that dies while its card waits: withdrawn "agent disconnected", and the agent leaves the list', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/overseer.mjs', 'mcp', '--data-dir', s.dataDir],
      cwd: REPO_ROOT,
      env: { ...process.env } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bridged-agent', version: '1' });
    await client.connect(transport);
    await activateTiers(client);
    const since = ui.mark();
    const answer = setName(client, 'from a dead bridge').catch(() => undefined);
    const item = await card((p) => p.agent === 'bridged-agent', since);
    const gone = ui.mark();
    const t0 = Date.now();
    assert.ok(transport.pid !== null);
    process.kill(transport.pid, 'SIGKILL');
    await withdrawn(item, gone, t0, 'agent_disconnected', 'SIGKILL of the bridge');
    await agentGone(item.session, gone);
    await answer;
    await client.close().catch(() => {});
  });

  it('3. a call the agent aborts (AbortController) withdraws its card; the agent stays connected and goes on', async () => {
    const client = await httpClient(s, 'aborting-agent');
    try {
      const since = ui.mark();
      const abort = new AbortController();
      const answer = setName(client, 'never mind', { signal: abort.signal }).then(
        () => 'answered',
        () => 'aborted',
      );
      const item = await card((p) => p.agent === 'aborting-agent', since);
      const gone = ui.mark();
      const t0 = Date.now();
      abort.abort();
      assert.equal(await answer, 'aborted');
      await withdrawn(item, gone, t0, 'call_cancelled', 'an aborted call');
      assert.ok(
        (await ui.command<{ agents: AgentInfo[] }>('snapshot')).agents.some((a) => a.session === item.session),
        'the agent is still listed',
      );
      assert.match((await tool(client, 'window_list')).text, /Overseer Fixture/, 'and its session goes on');
    } finally {
      await client.close();
    }
  });

  it('4. an emergency stop answers braked, then every call braked, and the same client goes on after re-arm; the person can still disconnect it', async () => {
    const since = ui.mark();
    const waiting = setName(agent, 'during the stop') as Promise<{ content: { text: string }[] }>;
    await card((p) => p.agent === 'steady-agent', since);
    await ui.command('brake', { action: 'emergency_stop' });
    const act = JSON.parse((await waiting).content[0]?.text ?? '{}') as Receipt;
    assert.equal(act.refusal?.code, 'braked');
    // During the stop: every call is answered braked — not "unknown session", not HTTP 503.
    const during = await toolJson(agent, 'window_list');
    assert.equal(during.error?.code, 'braked', JSON.stringify(during));
    const snapshot = await ui.command<{ agents: AgentInfo[] }>('snapshot');
    assert.ok(
      snapshot.agents.some((a) => a.client === 'steady-agent'),
      'the session is still listed during the stop',
    );
    const newcomer = await httpClient(s, 'arrives-during-stop');
    assert.equal((await toolJson(newcomer, 'window_list')).error?.code, 'braked', 'a new agent may connect; its calls answer braked');
    const rearmed = ui.mark();
    await ui.command('brake', { action: 'rearm' });
    await ui.waitFor<{ state: string }>('helper', (h) => h.state === 'ready', 30_000, rearmed);
    let listed = '';
    for (let i = 0; i < 40 && !/Overseer Fixture/.test(listed); i++) listed = (await tool(agent, 'window_list')).text;
    assert.match(listed, /Overseer Fixture/, 'the same SDK client instance reads after the re-arm');
    // The person's own way to drop one agent.
    const session = (await ui.command<{ agents: AgentInfo[] }>('snapshot')).agents.find((a) => a.client === 'arrives-during-stop')?.session ?? '';
    const dropped = ui.mark();
    await ui.command('disconnect_agent', { session });
    await agentGone(session, dropped);
    await assert.rejects(tool(newcomer, 'window_list', {}, { timeout: 10_000 }), 'a disconnected agent’s session is closed');
    await newcomer.close().catch(() => {});
    await assert.rejects(ui.command('disconnect_agent', { session }), /not_found/);
  });

  it('5. allow-for-session decides exactly the named queued cards the new rule covers; the rest keep waiting', async () => {
    const since = ui.mark();
    const calls = [setName(agent, 'first'), setName(agent, 'second'), setName(agent, 'third')];
    const other = agent.callTool(
      { name: 'element_act', arguments: { window: win, selector: { automation_id: 'counter' }, action: 'invoke', output: 'json' } },
      undefined,
      { timeout: 120_000 },
    );
    const list = await ui.waitFor<PendingApproval[]>('pending', (l) => l.filter((p) => p.agent === 'steady-agent').length >= 4, 20_000, since);
    const ours = list.filter((p) => p.agent === 'steady-agent');
    const sets = ours.filter((p) => p.action === 'set_value');
    const invoke = ours.find((p) => p.action === 'invoke') as PendingApproval;
    const [main, ...covered] = sets as [PendingApproval, PendingApproval, PendingApproval];
    const preview = await ui.command<{ covered: string[] }>('allow_preview', { approval_id: main.approval_id, scope: 'element' });
    assert.deepEqual([...preview.covered].sort(), covered.map((c) => c.approval_id).sort(), 'the two other set_value cards, not the invoke');
    // A covered card that arrives after the preview is not decided: the person did not see it named.
    const late = ui.mark();
    const lateCall = setName(agent, 'late');
    const lateCard = await card((p) => p.agent === 'steady-agent' && !ours.some((o) => o.approval_id === p.approval_id), late);
    const answer = await ui.command<{ also_approved: string[]; also_refused: { approval_id: string; why: string }[]; rule: { id: string } }>('approve', {
      approval_id: main.approval_id,
      allow: { scope: 'element', also: [...preview.covered, invoke.approval_id] },
    });
    assert.deepEqual([...answer.also_approved].sort(), [...preview.covered].sort());
    assert.deepEqual(
      answer.also_refused.map((r) => r.approval_id),
      [invoke.approval_id],
      'an id the rule does not cover is refused',
    );
    const waitingNow = (await ui.waitFor<PendingApproval[]>('pending', (l) => !l.some((p) => sets.some((x) => x.approval_id === p.approval_id)), 10_000, since))
      .filter((p) => p.agent === 'steady-agent')
      .map((p) => p.approval_id);
    assert.deepEqual(waitingNow.sort(), [invoke.approval_id, lateCard.approval_id].sort(), 'the invoke and the late card still wait');
    await Promise.all(calls);
    for (const c of sets) {
      const resolved = await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === c.approval_id);
      assert.equal(resolved?.['verdict'], 'approved', c.approval_id);
      if (c !== main) assert.match(String(resolved?.['note']), new RegExp(`rule ${answer.rule.id}`), 'approved by name with the rule');
    }
    await ui.command('deny', { approval_id: invoke.approval_id });
    await ui.command('deny', { approval_id: lateCard.approval_id });
    await Promise.all([other, lateCall]);
  });
});
