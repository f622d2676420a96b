import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type WebSocket from 'ws';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UI_COMMANDS, type PendingApproval, type Receipt, type UiSnapshot } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from './runtime/paths.js';
import { socketPath } from '../cliArgs.js';
import { BAD_UTF8, deepText, jsonValue, pick, prng, truncate } from '../testing/fuzzCases.js';
import { rawHttp, rawMcpSession, rawSocket, rawWs } from '../testing/rawClients.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../testing/serveHarness.js';
import { verifyJournal } from './journal/index.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const SEED = Number(process.env['OVERSEER_FUZZ_SEED'] ?? 20261201);

/** Sends raw bytes on a TCP connection to the HTTP port (request lines no HTTP client would send). */
function rawTcp(port: number, bytes: Buffer | string, ms = 1000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, ms);
    socket.on('data', (b: Buffer) => (answer += b.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('connect', () => socket.end(bytes));
  });
}

/**
 * Hostile input from every side an agent (or any local program) can reach — the UI channel,
 * /mcp and the bridge socket — generated from a seed (OVERSEER_FUZZ_SEED replays a run). After
 * it all: the supervisor still runs, nothing it held is lost (the pending card, the person's UI,
 * the legitimate agent, the journal's chain, the helper), and the card can still be approved.
 */
describe('fuzz: hostile frames and bodies on /ui, /mcp and the bridge socket', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let win: string;
  let card: PendingApproval;
  let firstAnswer: Receipt;
  let helperPid: number | undefined;
  const counts = { ui: 0, mcp: 0, bridge: 0 };
  const rand = prng(SEED);

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    agent = await httpClient(s, 'legit-agent');
    ui = await UiClient.connect(s);
    await ui.command('update_settings', { approval_wait_ms: 1000, approval_expiry_s: 3600 });
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
    const since = ui.mark();
    firstAnswer = await toolJson<Receipt>(agent, 'element_act', {
      window: win,
      selector: { automation_id: 'name_entry' },
      action: 'set_value',
      text: 'survived the fuzz',
    });
    assert.equal(firstAnswer.outcome, 'pending');
    card = await ui.waitFor<PendingApproval[]>('pending', (l) => l.length > 0, 10_000, since).then((l) => l[0] as PendingApproval);
    helperPid = (await ui.command<UiSnapshot>('snapshot')).helper.pid;
  });
  after(async () => {
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('survives 200 hostile UI channel cases', async () => {
    const ws = `${s.origin.replace(/^http/, 'ws')}/ui`;
    const headers = { origin: s.origin, cookie: await s.uiCookie() };
    const commands = [...Object.keys(UI_COMMANDS).filter((c) => c !== 'brake'), 'no_such', '', '__proto__', 'constructor', 'toString'];
    // 120 generated command frames on one signed-in socket: each is answered, typed, and nothing else happens.
    const frames = await rawWs(
      ws,
      headers,
      (w) => {
        for (let i = 0; i < 120; i++) {
          const r = rand();
          const frame =
            r < 0.7
              ? { type: 'command', id: Math.floor(rand() * 1e6), command: pick(rand, commands), params: jsonValue(rand) }
              : r < 0.85
                ? jsonValue(rand)
                : { type: pick(rand, ['result', 'event', 'error', 'command']), id: jsonValue(rand), event: jsonValue(rand), data: jsonValue(rand) };
          w.send(JSON.stringify(frame));
          counts.ui++;
        }
      },
      4000,
    );
    assert.equal(frames.opened, true);
    assert.ok(frames.frames.length >= 1, 'the socket kept answering');
    assert.ok(!frames.frames.some((f) => f.includes('"internal"')), 'no frame caused an internal error');
    // 40 raw frames, each on its own socket: bad UTF-8, binary, oversized, not JSON, 5,000 levels deep.
    const raws: ((w: WebSocket) => void)[] = [
      ...BAD_UTF8.map((b) => (w: WebSocket) => w.send(b, { binary: false })),
      (w) => w.send(Buffer.alloc(64, 7), { binary: true }),
      (w) => w.send('y'.repeat(1024 * 1024 + 1)),
      (w) => w.send(deepText(5000, 'array')),
      (w) => w.send(`{"type":"command","id":1,"command":"approve","params":${deepText(5000, 'object')}}`),
      (w) => w.send(truncate(rand, JSON.stringify({ type: 'command', id: 1, command: 'snapshot', params: {} }))),
    ];
    for (let i = 0; i < 40; i++) {
      await rawWs(ws, headers, pick(rand, raws), 250);
      counts.ui++;
    }
    // 40 handshakes without the person's credential, or not as a browser would.
    const port = new URL(s.origin).port;
    const handshakes: Record<string, string>[] = [
      {},
      { origin: 'http://evil.example' },
      { origin: s.origin },
      { origin: s.origin, cookie: `overseer_ui_${port}=${s.token}` },
      { origin: s.origin, cookie: 'x'.repeat(8000) },
      { origin: 'null', cookie: headers.cookie },
      { origin: s.origin, cookie: `${headers.cookie}x` },
    ];
    for (let i = 0; i < 40; i++) {
      const out = await rawWs(
        `${ws}${pick(rand, ['', `?token=${s.token}`, '?x=1', '/../ui'])}`,
        pick(rand, handshakes),
        (w) => w.send(JSON.stringify({ type: 'command', id: 1, command: 'snapshot', params: {} })),
        250,
      );
      assert.equal(out.frames.length, 0, 'nothing is sent to a socket without the credential');
      counts.ui++;
    }
    assert.equal(s.child.exitCode, null, 'the supervisor runs');
  });

  it('survives 200 hostile /mcp cases', async () => {
    const session = await rawMcpSession(s.mcpUrl, s.token);
    const statuses = new Map<number, number>();
    const methods = ['tools/call', 'tools/list', 'initialize', 'ping', 'resources/list', 'notifications/cancelled', 'x', '', 'tools/call '];
    const tools = [
      'window_list',
      'window_read',
      'element_find',
      'action_wait',
      'computer_use_activate',
      'screenshot',
      'capabilities',
      'cursor_position',
      'approve',
      '',
      'x'.repeat(300),
    ];
    for (let i = 0; i < 80; i++) {
      // Mostly well-formed JSON-RPC, so most cases reach the handlers rather than the SDK's framing check.
      const method = rand() < 0.6 ? 'tools/call' : pick(rand, methods);
      const params =
        method === 'tools/call'
          ? {
              name: rand() < 0.8 ? pick(rand, tools) : jsonValue(rand),
              arguments: rand() < 0.7 ? jsonValue(rand) : { window: win, selector: jsonValue(rand), action: pick(rand, ['invoke', 'set_value', 'toggle']) },
            }
          : jsonValue(rand);
      // element_act with random arguments could ask for approval: none is made here (action rarely valid, and never approved).
      const body =
        rand() < 0.1
          ? JSON.stringify([{ jsonrpc: '2.0', id: i, method, params }, jsonValue(rand)])
          : JSON.stringify({
              jsonrpc: rand() < 0.9 ? '2.0' : pick(rand, ['1.0', 2]),
              id: rand() < 0.9 ? pick(rand, [i + 100, `s${i}`]) : pick(rand, [null, {}, -1]),
              method,
              params,
            });
      const r = await session.post(body);
      assert.ok(r.status < 500, `${r.status} for ${body.slice(0, 120)}`);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      counts.mcp++;
    }
    process.stdout.write(`[fuzz] generated /mcp bodies answered: ${[...statuses].map(([k, v]) => `${k}×${v}`).join(' ')}\n`);
    const texts = [
      deepText(5000, 'object'),
      deepText(100_000, 'array'),
      '',
      '{',
      '[',
      'null',
      '"x"',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"window_list","arguments":' + deepText(5000, 'object') + '}}',
    ];
    for (let i = 0; i < 30; i++) {
      const body =
        i % 5 === 4
          ? Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'), pick(rand, BAD_UTF8), Buffer.from('"}')])
          : rand() < 0.3
            ? truncate(rand, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'window_list', arguments: {} } }))
            : pick(rand, texts);
      const r = await session.post(typeof body === 'string' ? body : body.toString('latin1'));
      assert.ok(r.status < 500, `${r.status} for a raw body`);
      counts.mcp++;
    }
    const good = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const headerCases: Record<string, string>[] = [
      good,
      { ...good, authorization: 'Bearer x' },
      { ...good, authorization: `Bearer ${s.token}`, 'mcp-session-id': 'nope' },
      { ...good, authorization: `Bearer ${s.token}`, accept: 'text/html' },
      { ...good, authorization: `Bearer ${s.token}`, 'content-type': 'text/plain' },
      { ...good, authorization: `Bearer ${s.token}`, 'mcp-session-id': session.id, 'mcp-protocol-version': '1999-01-01' },
      { ...good, authorization: `Basic ${s.token}` },
      { ...good, authorization: `Bearer ${s.token}`, origin: 'http://evil.example' },
    ];
    for (let i = 0; i < 40; i++) {
      const r = await rawHttp(s.mcpUrl, {
        method: pick(rand, ['POST', 'GET', 'DELETE', 'PUT', 'OPTIONS']),
        headers: pick(rand, headerCases),
        body: JSON.stringify(jsonValue(rand)),
        timeoutMs: 3000,
      }).catch(() => ({ status: 0 }));
      assert.ok(r.status < 500, `status ${r.status}`);
      counts.mcp++;
    }
    const port = Number(new URL(s.origin).port);
    const lines = [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100000\r\n\r\n{"jsonrpc"`,
      `GET /ui HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      `GET /pair?code=%ZZ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
      `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX: ${'b'.repeat(20_000)}\r\n\r\n`,
    ];
    for (let i = 0; i < 30; i++) {
      await rawTcp(port, pick(rand, lines), 300);
      counts.mcp++;
    }
    for (let i = 0; i < 20; i++) {
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: pick(rand, ['2025-03-26', 'x', '']),
          capabilities: jsonValue(rand),
          clientInfo: rand() < 0.5 ? { name: pick(rand, ['a', '', 'x'.repeat(5000)]), version: '1' } : jsonValue(rand),
        },
      };
      const r = await rawHttp(s.mcpUrl, { headers: { ...good, authorization: `Bearer ${s.token}` }, body: JSON.stringify(init) });
      assert.ok(r.status < 500, `initialize answered ${r.status}`);
      const id = r.headers['mcp-session-id'];
      if (typeof id === 'string')
        await rawHttp(s.mcpUrl, {
          method: 'DELETE',
          headers: { ...good, authorization: `Bearer ${s.token}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' },
        });
      counts.mcp++;
    }
    assert.equal(s.child.exitCode, null, 'the supervisor runs');
  });

  it('survives 120 hostile bridge socket cases', async () => {
    const path = socketPath(s.dataDir);
    const hello = JSON.stringify({ token: s.token, client: 'fuzz-bridge' });
    const badHellos = [
      '\n',
      'not json\n',
      '{}\n',
      `${JSON.stringify({ token: 'wrong' })}\n`,
      `${JSON.stringify({ token: s.token, extra: 1 })}\n`,
      `${deepText(5000, 'object')}\n`,
      `${'z'.repeat(5000)}`,
      `${JSON.stringify({ token: s.token, host_pid: -5 })}\n`,
    ];
    for (let i = 0; i < 40; i++) {
      const out = await rawSocket(path, [i % 8 === 7 ? Buffer.concat([pick(rand, BAD_UTF8), Buffer.from('\n')]) : pick(rand, badHellos)], 400);
      assert.ok(!out.answer.includes('"ok":true'), `a bad hello was let in: ${out.answer.slice(0, 100)}`);
      counts.bridge++;
    }
    for (let i = 0; i < 70; i++) {
      const garbage: (string | Buffer)[] = [`${hello}\n`];
      for (let j = 0; j < 5; j++) {
        const r = rand();
        garbage.push(
          r < 0.4
            ? `${JSON.stringify(jsonValue(rand))}\n`
            : r < 0.6
              ? `${JSON.stringify({ jsonrpc: '2.0', id: j, method: pick(rand, ['tools/call', 'initialize', 'ping', 'x']), params: jsonValue(rand) })}\n`
              : r < 0.75
                ? `${deepText(5000, 'array')}\n`
                : r < 0.9
                  ? Buffer.concat([pick(rand, BAD_UTF8), Buffer.from('\n')])
                  : truncate(rand, hello),
        );
      }
      const out = await rawSocket(path, garbage, 300);
      assert.ok(out.answer.startsWith('{"ok":true'), 'a good hello is let in even when garbage follows');
      counts.bridge++;
    }
    for (let i = 0; i < 10; i++) {
      // An endless line is cut off at the bound (twice a really oversized one; otherwise abrupt closes mid-line).
      const out = await rawSocket(
        path,
        i < 2 ? [`${hello}\n`, Buffer.alloc(9 * 1024 * 1024, 0x61)] : [`${hello}\n`, '{"jsonrpc":"2.0","id":1,"meth'],
        3000,
        i < 2,
      );
      if (i < 2) assert.equal(out.closed, true, 'an oversized line closes that connection');
      counts.bridge++;
    }
    assert.equal(s.child.exitCode, null, 'the supervisor runs');
  });

  it('lost nothing: the card still waits and runs when approved, the person’s UI, the agent, the helper and the journal are intact', async () => {
    const total = counts.ui + counts.mcp + counts.bridge;
    process.stdout.write(`[fuzz] seed ${SEED}: ${counts.ui} UI, ${counts.mcp} /mcp, ${counts.bridge} bridge = ${total} cases\n`);
    assert.ok(total >= 500, `${total} cases`);
    assert.equal(s.child.exitCode, null);
    const snap = await ui.command<UiSnapshot>('snapshot');
    assert.ok(
      snap.pending.some((p) => p.approval_id === card.approval_id),
      'the pending card is still there',
    );
    assert.equal(snap.brake, 'running');
    assert.equal(snap.helper.pid, helperPid, 'the helper was never restarted');
    assert.deepEqual(
      snap.rules.filter((r) => r.kind === 'allow'),
      [],
      'no rule appeared',
    );
    const waiting = toolJson<Receipt>(agent, 'action_wait', { receipt_id: firstAnswer.receipt_id });
    await ui.command('approve', { approval_id: card.approval_id });
    const final = await waiting;
    assert.equal(final.outcome, 'completed');
    assert.equal(final.verification, 'verified');
    const journal = await verifyJournal(join(s.dataDir, 'journal'));
    assert.equal(journal.ok, true, JSON.stringify(journal.problems.slice(0, 3)));
    assert.doesNotMatch(s.stderr(), /uncaught|unhandled rejection|FATAL/i, 'nothing escaped an error path');
  });
});
