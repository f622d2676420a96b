import assert from 'node:assert/strict';
import { createServer, get, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConnectionGuard } from './connectionGuard.js';

const MAX = 4;

/** A socket that sent half a request and waits; `closed` settles when the server closes it. */
function stalled(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => {});
    socket.once('connect', () => {
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
      resolve({ socket, closed });
    });
  });
}

/** A GET on a new connection: its status, or the error that ended it. */
function fetchStatus(port: number, path: string, headers: Record<string, string> = {}): Promise<number | string> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

const isClosed = (p: Promise<void>): Promise<boolean> => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);

describe('ConnectionGuard: a cap with a lane no one unauthenticated can fill', () => {
  let server: Server;
  let guard: ConnectionGuard;
  let port: number;
  const held: ServerResponse[] = [];
  const logs: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      guard.request(req, res, req.headers['x-credential'] === 'yes');
      if (req.url === '/hold') return void held.push(res);
      res.end('ok');
    });
    guard = new ConnectionGuard(server, MAX, (l) => logs.push(l));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const release = (): void => {
    for (const res of held.splice(0)) res.end('released');
  };
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 50 && guard.counts().total > 0; i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('closes the oldest connection still waiting for its headers, and serves the new one', async () => {
    const stalls = [];
    for (let i = 0; i < MAX; i++) stalls.push(await stalled(port));
    assert.equal(await fetchStatus(port, '/'), 200);
    assert.equal(await isClosed(stalls[0]!.closed), true, 'the oldest stalled one made room');
    assert.equal(await isClosed(stalls[MAX - 1]!.closed), false, 'the newest stalled one is still open');
    assert.ok(guard.counts().evicted >= 1);
    assert.match(logs[0] ?? '', /^\[http\] over 4 connections/);
    for (const s of stalls) s.socket.destroy();
    await settle();
  });

  it('never closes a request with a credential; when every connection is one, the newcomer is refused', async () => {
    const calls = Array.from({ length: MAX }, () => fetchStatus(port, '/hold', { 'x-credential': 'yes' }));
    for (let i = 0; i < 50 && held.length < MAX; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(guard.counts().protected, MAX);
    assert.equal(typeof (await fetchStatus(port, '/')), 'string', 'refused: the connection was closed without an answer');
    assert.equal(guard.counts().refused, 1);
    release();
    assert.deepEqual(await Promise.all(calls), Array(MAX).fill(200), 'every call with a credential was answered');
    await settle();
  });

  it('takes an unauthenticated request in flight only after every waiting and idle connection', async () => {
    const unauthenticated = fetchStatus(port, '/hold');
    for (let i = 0; i < 50 && held.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
    const stalls = [];
    for (let i = 0; i < MAX - 1; i++) stalls.push(await stalled(port));
    // Each new connection takes the oldest stalled one's place, never the request in flight.
    for (let i = 0; i < MAX - 1; i++) stalls.push(await stalled(port));
    assert.equal(guard.counts().serving, 1);
    for (const s of stalls.slice(0, MAX - 1)) assert.equal(await isClosed(s.closed), true);
    // Now only newer stalled ones and the request: a fresh request still gets in, and the request in flight goes last.
    assert.equal(await fetchStatus(port, '/'), 200);
    release();
    assert.equal(typeof (await unauthenticated), 'number');
    for (const s of stalls) s.socket.destroy();
    await settle();
  });
});
