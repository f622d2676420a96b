import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, OverseerError } from '../protocol/index.js';
import { RpcPeer } from './rpcPeer.js';
import { LineSplitter, createLinkedPair } from './transport.js';

function pair(handler: (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>): { client: RpcPeer; server: RpcPeer } {
  const [a, b] = createLinkedPair();
  const server = new RpcPeer(b, handler);
  const client = new RpcPeer(a);
  server.start();
  client.start();
  return { client, server };
}

describe('RpcPeer', () => {
  it('correlates answers with requests', async () => {
    const { client } = pair(async (m, p) => ({ m, p }));
    const [x, y] = await Promise.all([client.request('a', 1), client.request('b', 2)]);
    assert.deepEqual(x, { m: 'a', p: 1 });
    assert.deepEqual(y, { m: 'b', p: 2 });
  });

  it('rebuilds typed errors on the other side', async () => {
    const { client } = pair(() => Promise.reject(fail('stale_element', 'gone', { key: 'k' })));
    await assert.rejects(client.request('x', {}), (e: unknown) => e instanceof OverseerError && e.code === 'stale_element' && e.info.data?.['key'] === 'k');
  });

  it('answers bugs as internal without leaking the stack', async () => {
    const logged: string[] = [];
    const [a, b] = createLinkedPair();
    new RpcPeer(
      b,
      () => Promise.reject(new Error('boom secret')),
      (l) => logged.push(l),
    ).start();
    const client = new RpcPeer(a);
    client.start();
    await assert.rejects(client.request('x', {}), (e: unknown) => e instanceof OverseerError && e.code === 'internal' && !e.message.includes('secret'));
    assert.match(logged.join('\n'), /boom secret/);
  });

  it('cancels an inbound request when the caller aborts', async () => {
    let sawAbort = false;
    const { client } = pair(
      (_m, _p, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve('late');
          });
        }),
    );
    const controller = new AbortController();
    const call = client.request('slow', {}, { signal: controller.signal });
    controller.abort();
    await assert.rejects(call, (e: unknown) => e instanceof OverseerError && e.code === 'timeout');
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(sawAbort, true);
  });

  it('times out a request that gets no answer', async () => {
    const { client } = pair(() => new Promise(() => {}));
    await assert.rejects(client.request('never', {}, { timeoutMs: 20 }), (e: unknown) => e instanceof OverseerError && e.code === 'timeout');
  });

  it('answers calls in flight with helper_unavailable when the connection closes', async () => {
    const { client } = pair(() => new Promise(() => {}));
    const call = client.request('never', {});
    client.close();
    await assert.rejects(call, (e: unknown) => e instanceof OverseerError && e.code === 'helper_unavailable');
  });

  it('answers malformed frames with typed errors and keeps serving', async () => {
    const [a, b] = createLinkedPair();
    new RpcPeer(b, async () => 'ok').start();
    const lines: string[] = [];
    a.onmessage = (l) => lines.push(l);
    a.start();
    a.send('{not json');
    a.send('{"jsonrpc":"1.0","id":5,"method":"x"}');
    a.send('{"jsonrpc":"2.0","id":6,"method":"x"}');
    await new Promise((r) => setTimeout(r, 10));
    const frames = lines.map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; data: { code: string } }; result?: unknown });
    assert.equal(frames[0]?.error?.code, -32700);
    assert.equal(frames[0]?.error?.data.code, 'invalid_argument');
    assert.equal(frames[1]?.id, 5);
    assert.equal(frames[1]?.error?.code, -32600);
    assert.equal(frames[2]?.result, 'ok');
  });
});

describe('LineSplitter', () => {
  it('splits lines across chunks and drops oversized ones', () => {
    const lines: string[] = [];
    const big: number[] = [];
    const s = new LineSplitter(
      10,
      (l) => lines.push(l),
      (n) => big.push(n),
    );
    s.push(Buffer.from('ab'));
    s.push(Buffer.from('c\n0123456789ABC\nok\r\n'));
    assert.deepEqual(lines, ['abc', 'ok']);
    assert.deepEqual(big, [13]);
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const lines: string[] = [];
    const s = new LineSplitter(
      100,
      (l) => lines.push(l),
      () => {},
    );
    const bytes = Buffer.from('Сохранить\n');
    s.push(bytes.subarray(0, 3));
    s.push(bytes.subarray(3));
    assert.deepEqual(lines, ['Сохранить']);
  });
});
