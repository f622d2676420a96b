import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  SCREEN_TOOL_NAMES,
  QUESTION_HANDOFF_TOOL_NAMES,
  ACCESSIBILITY_TOOL_NAMES,
  type AgentInfo,
  type CardKind,
  type PendingApproval,
  type Receipt,
  type UiSnapshot,
} from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from './runtime/paths.js';
import { FixtureDriver } from '../testing/fixtureDriver.js';
import { mcpMessage, rawHttp, rawMcpSession, rawWs } from '../testing/rawClients.js';
import { UiClient, activateTiers, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../testing/serveHarness.js';
import { exportJournal } from './journal/index.js';
import { cardIs, type CardOf } from '../testing/cards.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Writes requests one after another on one TCP connection and returns what came back until two answers' heads arrived (or 10 s passed). */
function pipelined(s: Served, requests: [Record<string, string>, Buffer][]): Promise<string> {
  const { hostname, port, host } = new URL(s.origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, 10_000);
    socket.on('data', (b: Buffer) => {
      got += b.toString('latin1');
      if ((got.match(/HTTP\/1\.1 \d+ [^\r]*\r\n[\s\S]*?\r\n\r\n/g) ?? []).length >= requests.length) done();
    });
    socket.on('error', done);
    socket.on('close', done);
    for (const [headers, body] of requests) {
      const head = Object.entries({ host, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`POST /mcp HTTP/1.1\r\n${head.join('')}\r\n`);
      socket.write(body);
    }
  });
}

/**
 * Overseer tried as a hostile agent would (docs/security.md#approvals), through the real server,
 * helper and fixture on the test desktop: every attempt is refused or survived, and the person
 * keeps the decision.
 */
describe('as a hostile agent: nothing but the person decides', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let driver: FixtureDriver;
  let win: string;
  let since = 0;

  const pendingCard = <K extends CardKind>(kind: K, test?: (p: CardOf<K>) => boolean): Promise<CardOf<K>> => {
    const is = cardIs(kind, test);
    return ui.waitFor<PendingApproval[]>('pending', (list) => list.some(is), 15_000, since).then((list) => list.find(is) as CardOf<K>);
  };
  const act = (client: Client, args: Record<string, unknown>): Promise<Receipt & { error?: { code: string } }> => {
    since = ui.mark();
    return toolJson<Receipt>(client, 'element_act', { window: win, ...args }, { timeout: 120_000 });
  };
  const value = async (id: string): Promise<string | undefined> =>
    (await toolJson<{ matches: { value?: string }[] }>(agent, 'element_find', { window: win, selector: { automation_id: id } })).matches[0]?.value;
  const journal = async (): Promise<Record<string, unknown>[]> => {
    const lines: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    return lines;
  };

  /** The first journal record that satisfies `test`, waiting for it to be appended (answers race their own journaling). */
  const journaled = async (test: (l: Record<string, unknown>) => boolean, ms = 5000): Promise<Record<string, unknown> | undefined> => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      const found = (await journal()).find(test);
      if (found !== undefined) return found;
    }
    return undefined;
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
    // A token file someone left world-readable: the live token must never be written into it as it is.
    const dataDir = await mkdtemp(join(tmpdir(), 'overseer-hostile-'));
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'token'), 'an-old-token-0123456789\n', { mode: 0o644 });
    await chmod(join(dataDir, 'token'), 0o644);
    s = await serve(desktop.env, { dataDir });
    agent = await httpClient(s, 'hostile-agent');
    ui = await UiClient.connect(s);
    driver = await FixtureDriver.connect(desktop.a11yBusAddress);
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
  });
  after(async () => {
    driver?.close();
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('1. the agent credential opens no part of the UI channel, so the agent cannot approve its own action', async () => {
    const answer = act(agent, { selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'agent wrote this' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'name_entry');
    const ws = `${s.origin.replace(/^http/, 'ws')}/ui`;
    const approveFrame = JSON.stringify({ type: 'command', id: 1, command: 'approve', params: { approval_id: card.approval_id, allow: { scope: 'app' } } });
    const tryApprove = (w: WebSocket): void => w.send(approveFrame);
    const port = new URL(s.origin).port;
    const attempts = {
      'token in the query, no Origin (as measured)': await rawWs(`${ws}?token=${s.token}`, {}, tryApprove),
      'token in the query, our Origin': await rawWs(`${ws}?token=${s.token}`, { origin: s.origin }, tryApprove),
      'bearer token, our Origin': await rawWs(ws, { origin: s.origin, authorization: `Bearer ${s.token}` }, tryApprove),
      'the token as the UI cookie': await rawWs(ws, { origin: s.origin, cookie: `overseer_ui_${port}=${s.token}` }, tryApprove),
      'a foreign Origin with the real cookie': await rawWs(ws, { origin: 'http://evil.example', cookie: await s.uiCookie() }, tryApprove),
    };
    for (const [how, out] of Object.entries(attempts)) {
      assert.equal(out.frames.length, 0, `${how}: no frame (no snapshot, no result) was sent to it`);
      assert.ok(out.status === 403 || out.closeCode === 4401, `${how}: refused (status ${out.status}, close ${out.closeCode})`);
    }
    assert.equal(attempts['token in the query, our Origin'].closeCode, 4401, 'a page without the cookie is told why');
    assert.match(attempts['token in the query, our Origin'].closeReason ?? '', /not signed in/);
    const pair = await rawHttp(`${s.origin}/pair?code=${s.token}`, { method: 'GET' });
    assert.equal(pair.status, 403, 'the agent token is no sign-in code');
    assert.equal(pair.headers['set-cookie'], undefined);
    // No tool decides: the agent's whole surface is activation and the tiers' tools.
    const { tools } = await agent.listTools();
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      ['computer_use_activate', ...ACCESSIBILITY_TOOL_NAMES, ...SCREEN_TOOL_NAMES, ...QUESTION_HANDOFF_TOOL_NAMES].sort(),
    );
    assert.match((await tool(agent, 'approve', { approval_id: card.approval_id })).text, /^error invalid_argument: unknown tool/);
    // Still waiting for the person, who denies it.
    const snap = await ui.command<UiSnapshot>('snapshot');
    assert.ok(
      snap.pending.some((p) => p.approval_id === card.approval_id),
      'the card still waits for the person',
    );
    assert.deepEqual(
      snap.rules.filter((r) => r.kind === 'allow'),
      [],
      'no rule was created',
    );
    await ui.command('deny', { approval_id: card.approval_id, reason: 'not yours to approve' });
    assert.equal((await answer).refusal?.code, 'denied');
    assert.equal(await value('name_entry'), 'Alice', 'the field was never written');
    assert.ok(
      !(await journal()).some((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === card.approval_id && l['verdict'] === 'approved'),
      'the journal never says approved',
    );
    // The two credentials live in two files; the agent's says nothing of the person's.
    const token = (await readFile(join(s.dataDir, 'token'), 'utf8')).trim();
    const uiSecret = (await readFile(join(s.dataDir, 'ui-secret'), 'utf8')).trim();
    assert.equal(token, s.token);
    assert.notEqual(uiSecret, token);
    assert.equal((await s.uiCookie()).split('=')[1], uiSecret);
    assert.equal((await stat(join(s.dataDir, 'ui-secret'))).mode & 0o777, 0o600);
  });

  it('1. a flooding agent with an endless, misleading name: at most 16 of its cards wait, the rest are refused, and its name is cut', async () => {
    const flooder = new Client({ name: `APPROVED BY ADMIN\u202e\n${'x'.repeat(5000)}`, version: '1' });
    await flooder.connect(new StreamableHTTPClientTransport(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    await activateTiers(flooder);
    try {
      since = ui.mark();
      const burst = Array.from({ length: 24 }, () =>
        toolJson<Receipt>(flooder, 'element_act', { window: win, selector: { automation_id: 'counter' }, action: 'invoke' }, { timeout: 120_000 }),
      );
      const cards = await ui.waitFor<PendingApproval[]>('pending', (list) => list.filter((p) => p.agent.startsWith('APPROVED')).length >= 16, 15_000, since);
      const mine = cards.filter((p) => p.agent.startsWith('APPROVED'));
      assert.equal(mine.length, 16, 'the bound reaches the person, no more');
      assert.ok(
        mine.every((p) => p.agent.length <= 80 && !/[\n\u202e]/u.test(p.agent)),
        `shown as ${JSON.stringify(mine[0]?.agent.slice(0, 100))}`,
      );
      const snap = await ui.command<UiSnapshot>('snapshot');
      assert.ok(snap.agents.every((a) => a.client.length <= 80));
      for (const p of mine) await ui.command('deny', { approval_id: p.approval_id });
      const answers = await Promise.all(burst);
      assert.equal(
        answers.filter((r) => r.refusal?.code === 'denied' && r.refusal.data?.['limit'] === 16).length,
        8,
        'the rest were refused at once, saying why',
      );
      assert.equal(answers.filter((r) => r.outcome !== 'refused').length, 0, 'nothing ran');
    } finally {
      await flooder.close();
    }
  });

  it('2. an approval binds the value the card showed: a person typing meanwhile makes it refuse, and their text stays', async () => {
    const answer = act(agent, { selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'X' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'name_entry' && p.text === 'X');
    assert.equal(card.current_value, 'Alice');
    await driver.setText('name_entry', 'typed by the person');
    await ui.command('approve', { approval_id: card.approval_id });
    const r = await answer;
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'stale_element');
    assert.deepEqual(r.refusal?.data?.['changed'], ['value']);
    assert.equal(r.action_call_made, false);
    assert.equal(await value('name_entry'), 'typed by the person', 'the person’s text was not overwritten');
  });

  it('2. …and the checked state the card showed: a toggle approved after the person toggled refuses', async () => {
    const answer = act(agent, { selector: { automation_id: 'subscribe' }, action: 'toggle' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'subscribe');
    const before = card.target?.state.checked;
    await driver.click('subscribe');
    await ui.command('approve', { approval_id: card.approval_id });
    const r = await answer;
    assert.equal(r.refusal?.code, 'stale_element');
    assert.deepEqual(r.refusal?.data?.['changed'], ['checked']);
    const now = (
      await toolJson<{ matches: { state: { checked?: boolean } }[] }>(agent, 'element_find', { window: win, selector: { automation_id: 'subscribe' } })
    ).matches[0]?.state.checked;
    assert.notEqual(now, before, 'only the person’s toggle happened');
  });

  it('3. an agent that ends its HTTP session has its pending action withdrawn at once; it can never run', async () => {
    const client = new Client({ name: 'departing-agent', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } });
    await client.connect(transport);
    await activateTiers(client);
    const answer = act(client, { selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'from a departed agent' }).catch(() => undefined);
    const card = await pendingCard('element', (p) => p.agent === 'departing-agent');
    const gone = ui.mark();
    await transport.terminateSession();
    await ui.waitFor<PendingApproval[]>('pending', (list) => !list.some((p) => p.approval_id === card.approval_id), 5000, gone);
    await assert.rejects(ui.command('approve', { approval_id: card.approval_id }), /expired|no longer pending/, 'it cannot be approved');
    await client.close().catch(() => {});
    await answer;
    const resolved = await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === card.approval_id);
    assert.equal(resolved?.['verdict'], 'withdrawn');
    assert.ok(await journaled((l) => l['kind'] === 'system' && l['event'] === 'agent_disconnected' && l['reason'] === 'the agent ended its session'));
    assert.notEqual(await value('name_entry'), 'from a departed agent');
  });

  it('3. a bridge that closes withdraws its pending action too', async () => {
    const client = new Client({ name: 'bridge-agent', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['bin/overseer.mjs', 'mcp', '--data-dir', s.dataDir],
        cwd: REPO_ROOT,
        env: { ...process.env } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    await activateTiers(client);
    const answer = act(client, { selector: { automation_id: 'counter' }, action: 'invoke' }).catch(() => undefined);
    const card = await pendingCard('element', (p) => p.agent === 'bridge-agent');
    const gone = ui.mark();
    await client.close();
    await ui.waitFor<PendingApproval[]>('pending', (list) => !list.some((p) => p.approval_id === card.approval_id), 5000, gone);
    await answer;
    assert.equal((await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === card.approval_id))?.['verdict'], 'withdrawn');
  });

  it('3. clients that vanish without DELETE idle out (their actions withdrawn) and the agents list stays bounded', async () => {
    await ui.command('update_settings', { agent_idle_s: 5 });
    try {
      const leaver = await httpClient(s, 'leaves-without-delete');
      const answer = act(leaver, { selector: { automation_id: 'counter' }, action: 'invoke' }).catch(() => undefined);
      const card = await pendingCard('element', (p) => p.agent === 'leaves-without-delete');
      await leaver.close(); // aborts its requests; sends no DELETE
      await answer;
      for (let i = 0; i < 80; i++) {
        const c = await httpClient(s, `burst-${i}`);
        await tool(c, 'window_list');
        await c.close();
      }
      const most = Math.max(...ui.events.filter((e) => e.event === 'agents').map((e) => (e.data as AgentInfo[]).length));
      assert.ok(most <= 64, `at most 64 agents at once (saw ${most})`);
      const mark = ui.mark();
      await ui
        .waitFor<AgentInfo[]>('agents', (a) => a.every((x) => x.client === 'hostile-agent'), 20_000, mark)
        .catch(async () => ui.command<UiSnapshot>('snapshot').then((snap) => assert.fail(`still listed: ${snap.agents.map((a) => a.client).join(', ')}`)));
      const resolved = await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === card.approval_id);
      assert.equal(resolved?.['verdict'], 'withdrawn');
    } finally {
      await ui.command('update_settings', { agent_idle_s: 600 });
    }
  });

  it('4. hostile UI frames (invalid UTF-8, oversized, binary, not JSON) end that socket at most; the supervisor and other UIs live on', async () => {
    const ws = `${s.origin.replace(/^http/, 'ws')}/ui`;
    const headers = { origin: s.origin, cookie: await s.uiCookie() };
    const badUtf8 = await rawWs(ws, headers, (w) => w.send(Buffer.from([0xff, 0xfe, 0xfd, 0xfc]), { binary: false }));
    assert.equal(badUtf8.closeCode, 1007, 'invalid UTF-8 closes that socket (1007)');
    const huge = await rawWs(ws, headers, (w) => w.send('x'.repeat(1024 * 1024 + 10)));
    assert.equal(huge.closeCode, 1009, 'an oversized frame closes that socket (1009)');
    const junk = await rawWs(
      ws,
      headers,
      (w) => {
        w.send('{not json');
        w.send(Buffer.from([1, 2, 3]), { binary: true });
        w.send(JSON.stringify({ type: 'command', id: 7, command: 'no_such_command', params: {} }));
      },
      1500,
    );
    assert.ok(
      junk.frames.some((f) => f.includes('"invalid_argument"')),
      'bad commands are answered typed',
    );
    const unauth = await rawWs(ws, { origin: s.origin }, (w) => w.send(Buffer.from([0xff, 0xff]), { binary: false }));
    assert.equal(unauth.closeCode, 4401);
    const snap = await ui.command<UiSnapshot>('snapshot');
    assert.equal(snap.brake, 'running', 'the person’s UI still answers');
    assert.match((await tool(agent, 'window_list')).text, /Overseer Fixture/, 'agents are still served');
  });

  it('8. malformed HTTP bodies are answered with the right code and the keep-alive connection goes on', async () => {
    const keep = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const headers = { ...MCP_HEADERS, authorization: `Bearer ${s.token}` };
      const bad = await rawHttp(s.mcpUrl, { headers, body: '{"jsonrpc": "2.0", "id": 1, "method": ', agent: keep });
      assert.equal(bad.status, 400);
      assert.equal((JSON.parse(bad.body) as { error: { code: number } }).error.code, -32700);
      const next = await rawHttp(s.mcpUrl, { headers, body: INIT, agent: keep, timeoutMs: 5000 });
      assert.equal(next.status, 200, 'the same connection serves the next request');
      const big = await rawHttp(s.mcpUrl, { headers, body: Buffer.alloc(9 * 1024 * 1024, 0x20) });
      assert.equal(big.status, 413);
      // Answered before its body is read, the server reads the rest and drops it: the answer is never lost to a reset, and the connection goes on.
      const both = await pipelined(s, [
        [{ ...headers, 'content-length': String(9 * 1024 * 1024) }, Buffer.alloc(9 * 1024 * 1024, 0x20)],
        [{ ...headers, 'content-length': String(INIT.length) }, Buffer.from(INIT)],
      ]);
      assert.deepEqual(
        [...both.matchAll(/HTTP\/1\.1 (\d+) /g)].map((m) => m[1]),
        ['413', '200'],
        both.slice(0, 300),
      );
    } finally {
      keep.destroy();
    }
  });

  it('8. wrong-typed arguments answer −32602 with a sentence, nested ones invalid_argument, huge timeouts are clamped', async () => {
    const raw = agent as unknown as { request: Client['request'] };
    const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    for (const args of ['a string', [1, 2], 42]) {
      const err = await raw.request({ method: 'tools/call', params: { name: 'window_list', arguments: args as never } }, CallToolResultSchema).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string },
      );
      assert.equal(err?.code, -32602, `arguments ${JSON.stringify(args)}`);
      assert.match(err?.message ?? '', /invalid_argument: tools\/call arguments must be a JSON object/);
      assert.doesNotMatch(err?.message ?? '', /"code":|invalid_type|expected/, 'no raw validation dump');
    }
    // 5,000 levels as raw JSON text (no client would serialize it): JSON.parse takes it, JSON.stringify would overflow.
    const raw5000 = await rawMcpSession(s.mcpUrl, s.token);
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const nested = mcpMessage(
      await raw5000.post(
        `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"element_find","arguments":{"window":${JSON.stringify(win)},"selector":${deep}}}}`,
      ),
    );
    const result = nested?.['result'] as { isError?: boolean; content?: { text: string }[] } | undefined;
    assert.equal(result?.isError, true, JSON.stringify(nested).slice(0, 300));
    assert.match(result?.content?.[0]?.text ?? '', /^error invalid_argument: .*nested deeper/);
    const started = Date.now();
    const found = await toolJson<{ matches: unknown[]; error?: unknown }>(agent, 'element_find', {
      window: win,
      selector: { automation_id: 'counter' },
      timeout_ms: 2 ** 31,
    });
    assert.equal(found.error, undefined, `answered ${JSON.stringify(found.error)} after ${Date.now() - started} ms`);
    assert.equal(found.matches.length, 1);
    const journaled = (await journal()).filter(
      (l) => l['kind'] === 'tool_call' && l['tool'] === 'window_list' && (l['error'] as { code?: string } | undefined)?.code === 'invalid_argument',
    );
    assert.ok(journaled.length >= 3, 'each malformed call is journaled');
  });

  it("6. a window showing the supervisor's own UI is neither listed, read nor acted on, even by a guessed id", async () => {
    const disguise = '(1) Overseer - Chromium';
    const app = await desktop.launch('/usr/bin/python3', [FIXTURE, '--title', disguise, '--rows', '5'], { waitForWindow: disguise });
    try {
      const listed = await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list');
      assert.ok(!listed.windows.some((w) => w.title === disguise), 'the UI window is not listed');
      // Guess ids as a hostile agent would: the listed fixture's frame path under every bus name.
      const [, suffix = ''] = /^:[0-9.]+([~/].*)$/.exec(win) ?? [];
      const since = ui.mark();
      const answers = [];
      for (let n = 1; n <= 80; n += 1) {
        const guess = `:1.${n}${suffix}`;
        if (guess === win) continue;
        const read = await toolJson<{ window?: { title: string }; error?: { code: string } }>(agent, 'window_read', { window: guess, max_nodes: 5 });
        assert.notEqual(read.window?.title, disguise, `window_read ${guess} read the UI window`);
        if (read.error?.code === 'excluded_target') {
          const acted = await toolJson<Receipt>(agent, 'element_act', { window: guess, selector: { automation_id: 'counter' }, action: 'invoke' });
          answers.push(acted.refusal?.code ?? acted.error?.code);
        }
      }
      assert.deepEqual(answers, ['excluded_target'], 'the guess that hit the UI window is refused, the act too');
      const cards = ui.events
        .slice(since)
        .filter((e) => e.event === 'pending')
        .flatMap((e) => e.data as PendingApproval[]);
      assert.ok(!cards.some(cardIs('element', (p) => p.window.title === disguise)), 'no card was ever made for the UI window');
    } finally {
      await app.stop();
    }
  });

  it('8. the token file that existed with mode 0644 now holds the live token with mode 0600', async () => {
    const st = await stat(join(s.dataDir, 'token'));
    assert.equal(st.mode & 0o777, 0o600);
    assert.equal((await readFile(join(s.dataDir, 'token'), 'utf8')).trim(), s.token);
  });

  it('5. Stop refuses focus and scroll_into_view too; reads go on', async () => {
    await ui.command('brake', { action: 'stop' });
    try {
      for (const action of ['focus', 'scroll_into_view'])
        assert.equal((await act(agent, { selector: { automation_id: 'counter' }, action })).refusal?.code, 'braked', action);
      assert.match((await tool(agent, 'window_list')).text, /Overseer Fixture/);
    } finally {
      await ui.command('brake', { action: 'resume' });
    }
  });

  it('5. an emergency stop answers every call in flight braked, and every call after it until re-armed; sessions stay open', async () => {
    // Both calls would outlast this client's 10 s timeout (approval waits 45 s, the find 15 s): only a braked answer ends them in time.
    since = ui.mark();
    const waiting = toolJson<Receipt>(agent, 'element_act', { window: win, selector: { automation_id: 'counter' }, action: 'invoke' }, { timeout: 10_000 });
    await pendingCard('element', (p) => p.target.automation_id === 'counter');
    const reading = toolJson<{ error?: { code: string } }>(
      agent,
      'element_find',
      { window: win, selector: { automation_id: 'appears-never' }, timeout_ms: 15_000 },
      { timeout: 10_000 },
    );
    await new Promise((r) => setTimeout(r, 300)); // the find is now polling in the helper
    await ui.command('brake', { action: 'emergency_stop' });
    const [act1, read1] = await Promise.all([waiting, reading]);
    assert.equal(act1.refusal?.code, 'braked');
    assert.equal(read1.error?.code, 'braked');
    // A new agent is admitted (no HTTP 503), and its calls, like everyone's, answer braked until re-arm.
    const admitted = await rawHttp(s.mcpUrl, { headers: { ...MCP_HEADERS, authorization: `Bearer ${s.token}` }, body: INIT });
    assert.equal(admitted.status, 200);
    assert.equal((await toolJson(agent, 'window_list')).error?.code, 'braked');
    await ui.command('brake', { action: 'rearm' });
    await ui.waitFor<{ state: string }>('helper', (h) => h.state === 'ready', 20_000, ui.mark() - 1).catch(() => undefined);
    let listed = '';
    for (let i = 0; i < 40 && !/Overseer Fixture/.test(listed); i++) listed = (await tool(agent, 'window_list')).text;
    assert.match(listed, /Overseer Fixture/, 'the same client goes on after the re-arm');
  });
});
