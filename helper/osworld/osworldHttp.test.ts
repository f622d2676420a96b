import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OverseerError } from '../../protocol/index.js';
import { OsworldHttp } from './osworldHttp.js';

describe('the OSWorld HTTP client', () => {
  let server: http.Server;
  let url = '';
  before(async () => {
    // Reads every request and never answers (a VM whose server hangs).
    server = http.createServer((req) => req.resume());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('names in its timeout hint the timeout the call had, not the connection’s default', async () => {
    const client = new OsworldHttp({ url, timeoutMs: 300, connection: 'vm1' });
    for (const [applied, asked] of [
      [450, { timeoutMs: 450 }],
      [300, {}],
    ] as const) {
      const started = Date.now();
      await assert.rejects(client.request('GET', '/accessibility', asked), (e: unknown) => {
        assert.ok(e instanceof OverseerError, String(e));
        assert.equal(e.info.data?.['reason'], 'timeout');
        assert.match(e.info.detail, new RegExp(`within ${applied} ms`));
        assert.match(String(e.info.data?.['hint']), new RegExp(`^the server did not answer within ${applied} ms; .*timeout_ms \\(now 300 ms\\)$`));
        return true;
      });
      assert.ok(Date.now() - started >= applied - 20, 'the applied timeout is the one that ran');
    }
  });
});
