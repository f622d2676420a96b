import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { PendingApproval, Receipt, UiSnapshot } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { socketPath } from '../../cliArgs.js';
import { HalfOpenFlood } from '../../testing/halfOpenFlood.js';
import { rawHttp, type HttpAnswer } from '../../testing/rawClients.js';
import { UiClient, activateTiers, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../../testing/serveHarness.js';
import { MAX_RECORD_BYTES } from '../journal/recordBound.js';
import { exportJournal } from '../journal/index.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { MAX_PENDING_HELLOS } from '../server/bridgeSocket.js';
import { HEADERS_TIMEOUT_MS, MAX_CONNECTIONS } from '../server/httpServer.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const FLOOD = 10_000;
const DELETE_ROUNDS = 200;
const MiB = 1024 * 1024;

/** The supervisor's resident memory (bytes) and open file handles, from /proc. */
async function usage(pid: number): Promise<{ rss: number; fds: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  return { rss, fds: (await readdir(`/proc/${pid}/fd`)).length };
}

const mib = (bytes: number): string => (bytes / MiB).toFixed(1);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Every JSON-RPC message of an MCP HTTP answer: one plain JSON body, or each `data:` of an event stream. */
function messages(answer: HttpAnswer): Record<string, unknown>[] {
  if (answer.headers['content-type']?.includes('text/event-stream') === true)
    return answer.body
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
  return answer.body === '' ? [] : [JSON.parse(answer.body) as Record<string, unknown>];
}

/**
 * A server no agent can exhaust (docs/security.md#nothing-an-agent-sends-can-take-the-supervisor-down), through the
 * real `overseer serve`: a slowloris without a token, sessions deleted while a call waits, a call
 * with 200,000 unknown keys, an oversized selector, and bridge connections that never say hello.
 */
describe('as a hostile client: the server stays bounded and the person keeps their UI', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let win: string;
  let pid: number;

  const journal = async (): Promise<string[]> => {
    const lines: string[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => lines.push(l));
    return lines;
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '5'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    pid = s.child.pid ?? 0;
    agent = await httpClient(s, 'bounds-agent');
    ui = await UiClient.connect(s);
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
    assert.notEqual(win, '');
  });
  after(async () => {
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it(`an element_act in flight when its session is DELETEd is answered withdrawn; ${DELETE_ROUNDS} rounds leave RSS and handles flat`, async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${s.token}` };
    const seen = new Set<string>();
    const round = async (n: number, keep: Agent): Promise<void> => {
      const name = `deleted-${n}`;
      const init = await rawHttp(s.mcpUrl, {
        headers,
        agent: keep,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name, version: '1' } },
        }),
      });
      const sid = init.headers['mcp-session-id'];
      assert.equal(typeof sid, 'string', init.body);
      const inSession = { ...headers, 'mcp-session-id': sid as string, 'mcp-protocol-version': '2025-03-26' };
      await rawHttp(s.mcpUrl, { headers: inSession, agent: keep, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      await rawHttp(s.mcpUrl, {
        headers: inSession,
        agent: keep,
        body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'computer_use_activate', arguments: {} } }),
      });
      const since = ui.mark();
      // Every other round asks for progress, so its answer is an event stream, not one JSON body.
      const meta = n % 2 === 1 ? { _meta: { progressToken: n } } : {};
      const call = rawHttp(s.mcpUrl, {
        headers: inSession,
        agent: keep,
        timeoutMs: 60_000,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'element_act', arguments: { window: win, selector: { automation_id: 'counter' }, action: 'invoke', output: 'json' }, ...meta },
        }),
      });
      const pending = await ui.waitFor<PendingApproval[]>('pending', (list) => list.some((p) => p.agent === name && !seen.has(p.approval_id)), 15_000, since);
      for (const p of pending) seen.add(p.approval_id);
      const deleted = await rawHttp(s.mcpUrl, { method: 'DELETE', headers: inSession, agent: keep });
      assert.equal(deleted.status, 200, deleted.body);
      const answer = await call;
      const result = messages(answer).find((m) => m['id'] === 7)?.['result'] as { content: { text: string }[] } | undefined;
      assert.ok(result !== undefined, `round ${n}: the call was answered (${answer.status} ${answer.body.slice(0, 200)})`);
      const receipt = JSON.parse(result.content[0]?.text ?? '{}') as Receipt;
      assert.equal(receipt.refusal?.code, 'withdrawn', `round ${n}: ${JSON.stringify(receipt.refusal)}`);
      assert.equal(receipt.decision?.verdict, 'withdrawn');
    };
    const rounds = async (from: number, count: number): Promise<void> => {
      const keep = new Agent({ keepAlive: true, maxSockets: 4 });
      try {
        for (let n = from; n < from + count; n++) await round(n, keep);
      } finally {
        keep.destroy();
      }
    };
    // Warm up (code paths compiled, heaps grown to their working size), then measure. This test runs first, so nothing before it leaves garbage to be collected during it.
    await rounds(0, 20);
    await sleep(500);
    const start = await usage(pid);
    await rounds(20, DELETE_ROUNDS);
    await sleep(500);
    let end = await usage(pid);
    for (const until = Date.now() + 5000; end.fds > start.fds + 2 && Date.now() < until; await sleep(200)) end = await usage(pid);
    process.stdout.write(
      `[bounds] ${DELETE_ROUNDS} DELETE rounds, each call answered withdrawn: RSS ${mib(start.rss)} → ${mib(end.rss)} MiB, fds ${start.fds} → ${end.fds}\n`,
    );
    assert.ok(end.rss - start.rss < 30 * MiB, `RSS grew ${mib(end.rss - start.rss)} MiB`);
    assert.ok(end.fds <= start.fds + 2, `fds ${start.fds} → ${end.fds}`);
    assert.equal((await ui.command<UiSnapshot>('snapshot')).pending.length, 0, 'no card is left behind');
  });

  it(`${FLOOD.toLocaleString('en-US')} half-open connections leave the person’s UI, /health and a new MCP session working, and the server closes them all`, async () => {
    const port = Number(new URL(s.origin).port);
    const start = await usage(pid);
    const flood = await HalfOpenFlood.start('127.0.0.1', port, FLOOD);
    try {
      // The flood goes on (every connection the server closes is opened again) while a real client of each kind comes in.
      const fresh = new Agent({ keepAlive: false });
      const health = await rawHttp(`${s.origin}/health`, { method: 'GET', agent: fresh });
      assert.equal(health.status, 200, health.body);
      const person = await UiClient.connect(s);
      try {
        assert.equal((await person.command<UiSnapshot>('snapshot')).brake, 'running', 'a new UI connection is answered');
      } finally {
        person.close();
      }
      assert.equal((await ui.command<UiSnapshot>('snapshot')).brake, 'running', 'the UI connected before the flood is answered');
      const newcomer = await httpClient(s, 'arrives-during-the-flood');
      try {
        assert.match((await tool(newcomer, 'window_list')).text, /Overseer Fixture/, 'a new MCP session initializes and calls a tool');
      } finally {
        await newcomer.close();
      }
      const during = await usage(pid);
      const status = await flood.status();
      process.stdout.write(
        `[bounds] flood: ${status.opened} connections opened, ${status.closedByServer} closed by the server (cap ${MAX_CONNECTIONS}), failed ${JSON.stringify(status.failed)}; supervisor ${start.fds} → ${during.fds} fds, RSS ${mib(start.rss)} → ${mib(during.rss)} MiB\n`,
      );
      assert.ok(status.opened >= FLOOD, `the flood opened ${status.opened}`);
      assert.ok(during.fds <= start.fds + MAX_CONNECTIONS + 16, `the supervisor holds ${during.fds} fds (cap ${MAX_CONNECTIONS})`);

      // No more new ones: the server closes the ones left when their headers are overdue.
      const held = await flood.hold();
      const waitingAtHold = held.open;
      let now = held;
      for (const end = Date.now() + 3 * HEADERS_TIMEOUT_MS; now.open > 0 && Date.now() < end; await sleep(500)) now = await flood.status();
      const inTime = now.closedAfterMs.filter((ms) => ms <= HEADERS_TIMEOUT_MS + 1500).length;
      process.stdout.write(
        `[bounds] after the flood stopped: ${waitingAtHold} stalled connections were open (as the client saw it); the server closed ${now.closedAfterMs.length} (${inTime} within the ${HEADERS_TIMEOUT_MS / 1000} s header timeout + the 1 s check; ${now.timedOut} told 408 first), ${now.open} still open; longest ${Math.max(0, ...now.closedAfterMs)} ms\n`,
      );
      assert.equal(now.open, 0, 'every stalled connection was closed by the server');
      // The server held as many as its cap allows (less the few real connections); each was told why before the close.
      assert.ok(now.timedOut >= MAX_CONNECTIONS - 16, `${now.timedOut} were told 408 Request Timeout before the close`);
    } finally {
      await flood.stop();
    }
    let end = await usage(pid);
    for (const until = Date.now() + 5000; end.fds > start.fds + 4 && Date.now() < until; await sleep(200)) end = await usage(pid);
    process.stdout.write(`[bounds] after: ${end.fds} fds, RSS ${mib(end.rss)} MiB\n`);
    assert.ok(end.fds <= start.fds + 4, `fds back to ${end.fds} (were ${start.fds})`);
  });

  it('a call with 200,000 unknown keys is refused in a sentence and journaled as a bounded record', async () => {
    const keys = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`key_${i}`, i]));
    const answer = await tool(agent, 'element_act', { window: win, selector: { automation_id: 'counter' }, action: 'invoke', ...keys });
    assert.equal(answer.isError, true);
    assert.match(answer.text, /unknown fields "key_0", .* and 199,990 more/);
    const lines = await journal();
    const record = lines.find((l) => l.includes('"key_0"') && l.includes('"tool_call"')) ?? '';
    const longest = Math.max(...lines.map((l) => Buffer.byteLength(l)));
    process.stdout.write(`[bounds] the 200,000-key call: ${Buffer.byteLength(record)} bytes journaled; longest journal line ${longest} bytes\n`);
    assert.ok(Buffer.byteLength(record) < 8 * 1024, `${Buffer.byteLength(record)} bytes`);
    assert.match(record, /"…":"\(199953 more keys\)"/, 'the arguments say how many keys were left out');
    assert.ok(longest <= MAX_RECORD_BYTES);
  });

  it('a 1,001-character selector is told the limit', async () => {
    const found = await toolJson(agent, 'element_find', { window: win, selector: { name: 'x'.repeat(1001) } });
    assert.equal(found.error?.code, 'invalid_argument');
    assert.match(found.error?.detail ?? '', /selector\.name: must be at most 1000 characters, got 1001/);
    assert.doesNotMatch(found.error?.detail ?? '', /got string/);
  });

  it(`bridge connections that never say hello hold at most ${MAX_PENDING_HELLOS} sockets, and a real bridge still connects`, async () => {
    const start = await usage(pid);
    const silent: Socket[] = [];
    let closed = 0;
    await Promise.all(
      Array.from(
        { length: 300 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(socketPath(s.dataDir));
            socket.on('error', () => {});
            socket.once('close', () => closed++);
            socket.once('connect', () => {
              socket.write('{"token":'); // and nothing more
              resolve();
            });
            socket.once('error', () => resolve());
            silent.push(socket);
          }),
      ),
    );
    await sleep(500);
    const during = await usage(pid);
    const bridged = new Client({ name: 'bridge-during-the-stall', version: '1' });
    try {
      await bridged.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['bin/overseer.mjs', 'mcp', '--data-dir', s.dataDir],
          cwd: REPO_ROOT,
          env: { ...process.env } as Record<string, string>,
          stderr: 'pipe',
        }),
      );
      await activateTiers(bridged);
      assert.match((await tool(bridged, 'window_list')).text, /Overseer Fixture/);
    } finally {
      await bridged.close();
    }
    process.stdout.write(`[bounds] 300 silent bridge connections: ${closed} closed at once, supervisor fds ${start.fds} → ${during.fds}\n`);
    assert.ok(during.fds <= start.fds + MAX_PENDING_HELLOS + 4, `${during.fds - start.fds} more fds`);
    assert.ok(closed >= 300 - MAX_PENDING_HELLOS, `${closed} closed`);
    for (const until = Date.now() + 10_000; closed < 300 && Date.now() < until;) await sleep(200);
    assert.equal(closed, 300, 'the rest are closed at their hello deadline');
    for (const socket of silent) socket.destroy();
  });
});
