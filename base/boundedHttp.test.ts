import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { boundedRequest, HttpFailure, type HttpFailureKind } from './boundedHttp.js';

/** A test server on 127.0.0.1 whose paths answer, stall, overflow or cut the answer. */
let server: Server;
let base: string;
before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ got: body === '' ? null : (JSON.parse(body) as unknown) }));
      });
    } else if (req.url === '/big') {
      res.writeHead(200);
      res.end(Buffer.alloc(10_000));
    } else if (req.url === '/cut') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial', () => res.destroy());
    }
    // '/stall': never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const failure = async (promise: Promise<unknown>): Promise<{ kind: HttpFailureKind; sent: boolean }> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof HttpFailure, String(error));
    return { kind: error.kind, sent: error.sent };
  }
  assert.fail('the request succeeded');
};

describe('boundedRequest', () => {
  it('answers any status with its body, and sends JSON', async () => {
    const answer = await boundedRequest(new URL(`${base}/ok`), { method: 'POST', json: { a: 'ü' }, timeoutMs: 5000, maxBytes: 1000 });
    assert.equal(answer.status, 201);
    assert.equal(answer.contentType, 'application/json');
    assert.deepEqual(JSON.parse(answer.body.toString('utf8')), { got: { a: 'ü' } });
  });

  it('names each failure by what happened, and whether the request may have reached the server', async () => {
    const opts = { method: 'GET', timeoutMs: 5000, maxBytes: 1000 } as const;
    assert.deepEqual(await failure(boundedRequest(new URL(`${base}/big`), opts)), { kind: 'too_big', sent: true });
    assert.deepEqual(await failure(boundedRequest(new URL(`${base}/cut`), opts)), { kind: 'connection_lost', sent: true });
    assert.deepEqual(await failure(boundedRequest(new URL(`${base}/stall`), { ...opts, timeoutMs: 100 })), { kind: 'timeout', sent: true });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.deepEqual(await failure(boundedRequest(new URL(`http://127.0.0.1:${port}/ok`), opts)), { kind: 'down', sent: false });
  });

  it('stops waiting when cancelled, before or during the request', async () => {
    const opts = { method: 'GET', timeoutMs: 5000, maxBytes: 1000 } as const;
    const early = new AbortController();
    early.abort();
    assert.deepEqual(
      await failure(boundedRequest(new URL(`${base}/stall`), { ...opts, signal: early.signal })),
      { kind: 'cancelled', sent: false },
      'nothing was sent',
    );
    const late = new AbortController();
    setTimeout(() => late.abort(), 50);
    const t = performance.now();
    assert.equal((await failure(boundedRequest(new URL(`${base}/stall`), { ...opts, signal: late.signal }))).kind, 'cancelled');
    assert.ok(performance.now() - t < 4000, 'well before the timeout');
  });
});
