import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { UiSnapshot } from '../../../protocol/index.js';
import { UiHub, type UiHandlers } from '../ui/uiHub.js';
import type { UiAuth } from './uiAuth.js';
import { uiSocket } from './uiSocket.js';

/** A hub whose snapshot answers only when the test says so. */
function slowHub(): { hub: UiHub; answer: () => void; asked: Promise<void> } {
  let answer: () => void = () => {};
  let wasAsked: () => void = () => {};
  const asked = new Promise<void>((resolve) => (wasAsked = resolve));
  const snapshot = (): Promise<UiSnapshot> =>
    new Promise<UiSnapshot>((resolve) => {
      answer = () => resolve({} as UiSnapshot);
      wasAsked();
    });
  const handlers = new Proxy({} as UiHandlers, { get: (_t, name) => (name === 'snapshot' ? snapshot : () => Promise.resolve({ ok: true })) });
  return { hub: new UiHub(handlers, () => {}), answer: () => answer(), asked };
}

describe('UI socket: a WebSocket that closes before attach resolves', () => {
  const servers: Server[] = [];
  after(() => {
    for (const s of servers) s.close();
  });

  it('leaves the hub as soon as it closes', async () => {
    const { hub, answer, asked } = slowHub();
    const auth = { signedIn: () => true } as unknown as UiAuth;
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const ui = uiSocket({ ui: hub }, auth, () => {});
    server.on('upgrade', (req, socket, head) => ui.upgrade(req, socket, head, port));
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ui`, { origin: `http://127.0.0.1:${port}` });
    await Promise.all([asked, new Promise((resolve) => ws.once('open', resolve))]);
    assert.equal(hub.size, 1);
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    ws.close();
    await closed;
    for (let i = 0; i < 50 && hub.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(hub.size, 0, 'removed while its snapshot was still being read');
    answer();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(hub.size, 0);
    ui.closeAll();
  });
});
