import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { rawHttp, rawMcpSession } from '../../testing/rawClients.js';
import { httpClient, removeDataDir, serve, toolJson, type Served } from '../../testing/serveHarness.js';
import { REQUEST_BYTES_BUDGET } from '../server/byteBudget.js';

const MIB = 1024 * 1024;

async function rssMiB(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/**
 * What an agent's requests can make the supervisor hold (docs/security.md#nothing-an-agent-sends-can-take-the-supervisor-down): 40
 * bodies of 8 MiB, each sent but for its last byte and held open. Without a budget the supervisor
 * would hold 320 MiB of them; with it, past 64 MiB the rest are answered busy at once, its memory
 * stays bounded, and once they go everything works again.
 */
describe('as a hostile agent: request bodies cannot fill the supervisor’s memory', () => {
  let desktop: PrivateDesktop;
  let s: Served;

  before(async () => {
    desktop = await startPrivateDesktop();
    s = await serve(desktop.env);
  });
  after(async () => {
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('40 bodies of 8 MiB held open: at most the budget is kept, the rest answered busy, memory bounded, /health and calls go on', async () => {
    const session = await rawMcpSession(s.mcpUrl, s.token);
    const url = new URL(s.mcpUrl);
    const pid = s.child.pid as number;
    const rssBefore = await rssMiB(pid);
    const body = Buffer.alloc(8 * MIB - 64, 0x20);
    const sockets: Socket[] = [];
    const answers: Promise<string>[] = [];
    for (let i = 0; i < 40; i++) {
      const socket = connect(Number(url.port), url.hostname);
      sockets.push(socket);
      socket.on('error', () => {});
      let got = '';
      answers.push(
        new Promise((resolve) => {
          socket.on('data', (b: Buffer) => (got += b.toString('latin1')));
          socket.on('close', () => resolve(got));
          setTimeout(() => resolve(got), 15_000);
        }),
      );
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `Authorization: Bearer ${s.token}\r\nMcp-Session-Id: ${session.id}\r\nMcp-Protocol-Version: 2025-03-26\r\nContent-Length: ${body.length + 1}\r\n\r\n`,
      );
      // Everything but the last byte: the server must hold what it read, or refuse it.
      socket.write(body);
    }
    // Let the server read what it will.
    let busy = 0;
    for (let i = 0; i < 100 && busy < 30; i++) {
      await new Promise((r) => setTimeout(r, 100));
      busy = (await Promise.all(answers.map((a) => Promise.race([a, Promise.resolve('')])))).filter((a) => a.startsWith('HTTP/1.1 503')).length;
    }
    const rssHolding = await rssMiB(pid);
    const health = await rawHttp(`${url.origin}/health`, { method: 'GET' });
    console.log(
      `[bytes] 40 bodies of 8 MiB held open: ${busy} answered 503 busy; supervisor RSS ${rssBefore.toFixed(0)} → ${rssHolding.toFixed(0)} MiB (budget ${REQUEST_BYTES_BUDGET / MIB} MiB)`,
    );
    assert.ok(busy >= 40 - Math.ceil(REQUEST_BYTES_BUDGET / body.length) - 1, `${busy} of the 40 were answered busy`);
    assert.ok(
      rssHolding - rssBefore < 200,
      `the supervisor holds no more than its budget and its reading buffers (RSS +${(rssHolding - rssBefore).toFixed(0)} MiB)`,
    );
    assert.equal(health.status, 200);
    for (const socket of sockets) socket.destroy();
    // Once they are gone the budget is free again: a real agent's call goes through.
    await new Promise((r) => setTimeout(r, 300));
    const agent = await httpClient(s, 'after-the-flood');
    const listed = await toolJson<{ windows: unknown[] }>(agent, 'window_list');
    assert.ok(Array.isArray(listed.windows));
    await agent.close();
  });
});
