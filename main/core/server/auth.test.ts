import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { exactOrigin, sameOrigin } from './auth.js';

const PORT = 7777;
const request = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('sameOrigin (docs/security.md#listeners-and-files)', () => {
  it('accepts this loopback server with no Origin or with its own', () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      assert.deepEqual(sameOrigin(request({ host: `${host}:${PORT}` }), PORT), { ok: true });
      assert.deepEqual(sameOrigin(request({ host: `${host}:${PORT}`, origin: `http://${host}:${PORT}` }), PORT), { ok: true });
    }
  });

  it('refuses a foreign Host whatever the Origin says: a rebound name is never a loopback page', () => {
    for (const headers of [
      { host: 'evil.example.com' },
      { host: `evil.example.com:${PORT}`, origin: `http://localhost:${PORT}` },
      { host: `localhost:${PORT + 1}`, origin: 'http://localhost:6274' },
      { host: `127.0.0.2:${PORT}` },
      {},
    ]) {
      const verdict = sameOrigin(request(headers), PORT);
      assert.equal(verdict.ok, false, JSON.stringify(headers));
      assert.equal(!verdict.ok && verdict.loopbackPage, false, JSON.stringify(headers));
    }
  });

  it('refuses a foreign or opaque Origin on our Host, and does not call it a loopback page', () => {
    for (const origin of [
      'http://evil.example.com',
      'null',
      'https://localhost:6274',
      'http://localhost.evil.example',
      'http://127.0.0.1.nip.io:6274',
      'file://',
    ]) {
      const verdict = sameOrigin(request({ host: `localhost:${PORT}`, origin }), PORT);
      assert.equal(verdict.ok, false, origin);
      assert.equal(!verdict.ok && verdict.loopbackPage, false, origin);
    }
  });

  it('refuses a page on another loopback port, naming it a loopback page', () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:6274', 'http://[::1]:6274', 'http://localhost']) {
      const verdict = sameOrigin(request({ host: `127.0.0.1:${PORT}`, origin }), PORT);
      assert.deepEqual(verdict, { ok: false, why: `origin ${JSON.stringify(origin)} is not allowed`, loopbackPage: true });
    }
  });

  it('leaves the UI channel exact: a page on another loopback port, or none, never opens it', () => {
    assert.equal(exactOrigin(request({ host: `localhost:${PORT}`, origin: `http://localhost:${PORT}` }), PORT), true);
    assert.equal(exactOrigin(request({ host: `localhost:${PORT}`, origin: 'http://localhost:6274' }), PORT), false);
    assert.equal(exactOrigin(request({ host: `localhost:${PORT}` }), PORT), false);
  });
});
