import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuthorizationCodes, CODE_TTL_MS, s256 } from './authCodes.js';
import { ClientMetadataDocuments, isMetadataDocumentId, redirectAllowed } from './clientMetadata.js';
import { ACCESS_TOKEN_TTL_S, GrantStore } from './grantStore.js';

const VERIFIER = 'v'.repeat(43);

describe('grants', () => {
  it('spends an authorization code once, for its client, redirect URI and PKCE verifier only', () => {
    let now = 0;
    const codes = new AuthorizationCodes(() => now);
    const issue = () => codes.issue('G1', 'C1', 'http://127.0.0.1:9/cb', s256(VERIFIER));
    assert.deepEqual(codes.redeem(issue(), 'C1', 'http://127.0.0.1:9/cb', VERIFIER), { grant: 'G1' });
    const code = issue();
    assert.ok('error' in codes.redeem(code, 'C2', 'http://127.0.0.1:9/cb', VERIFIER), 'another client');
    assert.ok('error' in codes.redeem(code, 'C1', 'http://127.0.0.1:9/cb', VERIFIER), 'spent by the failed try');
    assert.ok('error' in codes.redeem(issue(), 'C1', 'http://127.0.0.1:9/other', VERIFIER), 'another redirect URI');
    assert.ok('error' in codes.redeem(issue(), 'C1', 'http://127.0.0.1:9/cb', 'w'.repeat(43)), 'another verifier');
    const late = issue();
    now += CODE_TTL_MS + 1;
    assert.ok('error' in codes.redeem(late, 'C1', 'http://127.0.0.1:9/cb', VERIFIER), 'expired');
  });

  it('verifies a grant’s access token until it expires or the grant is revoked, and rotates refresh tokens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'overseer-grants-'));
    try {
      let now = 1_000_000;
      const store = new GrantStore(
        dir,
        () => {},
        () => now,
      );
      const revoked: string[] = [];
      store.onRevoked((id) => revoked.push(id));
      const a = store.create({ name: 'Claude Code', kind: 'oauth', client_id: 'C1', redirect_host: 'http://127.0.0.1:9' });
      const b = store.create({ name: 'Claude Code', kind: 'oauth', client_id: 'C2', redirect_host: 'http://127.0.0.1:9' });
      assert.equal(b.name, 'Claude Code (2)', 'two agents never look alike');
      const tokens = store.issueTokens(a.id);
      assert.ok(tokens !== undefined);
      assert.deepEqual(store.verify(tokens.access_token), a);
      assert.equal(store.refresh(tokens.refresh_token, 'C2'), undefined, 'another client’s refresh token opens nothing');
      const tokens2 = store.issueTokens(a.id);
      assert.ok(tokens2 !== undefined);
      const rotated = store.refresh(tokens2.refresh_token, 'C1');
      assert.ok(rotated !== undefined);
      assert.equal(store.refresh(tokens2.refresh_token, 'C1'), undefined, 'a refresh token is spent by its use');
      now += ACCESS_TOKEN_TTL_S * 1000 + 1;
      assert.equal(store.verify(rotated.access_token), undefined, 'expired');
      const fresh = store.refresh(rotated.refresh_token, 'C1');
      assert.ok(fresh !== undefined);
      assert.ok(store.revoke(a.id));
      assert.deepEqual(revoked, [a.id]);
      assert.equal(store.verify(fresh.access_token), undefined, 'revoked at once');
      assert.equal(store.refresh(fresh.refresh_token, 'C1'), undefined);
      await store.flush();
      assert.equal((await stat(join(dir, 'grants.json'))).mode & 0o777, 0o600);
      const saved = await readFile(join(dir, 'grants.json'), 'utf8');
      assert.ok(!saved.includes(fresh.refresh_token), 'only hashes are written');
      const again = new GrantStore(dir, () => {});
      await again.load();
      assert.deepEqual(
        again.list(() => 0).map((g) => g.name),
        ['Claude Code (2)'],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('allows redirect URIs a native client listens on, never one that runs something itself', () => {
    for (const ok of [
      'http://127.0.0.1:33418/cb',
      'http://localhost:5000/callback',
      'https://vscode.dev/redirect',
      'cursor://anysphere.cursor-retrieval/oauth/callback',
    ])
      assert.ok(redirectAllowed(ok), ok);
    for (const bad of ['http://example.com/cb', 'javascript:alert(1)', 'data:text/html,x', 'https://a.example/cb#frag', 'not a url'])
      assert.ok(!redirectAllowed(bad), bad);
    assert.ok(isMetadataDocumentId('https://client.example/oauth/metadata.json'));
    assert.ok(!isMetadataDocumentId('https://client.example/'));
    assert.ok(!isMetadataDocumentId('http://client.example/meta'));
  });

  it('takes a client ID metadata document only when it names its own URL and carries no secret', async () => {
    const id = 'https://client.example/meta.json';
    const answer =
      (doc: unknown): typeof fetch =>
      () =>
        Promise.resolve(new Response(JSON.stringify(doc), { headers: { 'content-type': 'application/json' } }));
    const good = await new ClientMetadataDocuments(answer({ client_id: id, client_name: 'Cursor', redirect_uris: ['cursor://x/cb'] })).resolve(id);
    assert.deepEqual(good, { ok: true, client: { client_id: id, client_name: 'Cursor', redirect_uris: ['cursor://x/cb'] } });
    const other = await new ClientMetadataDocuments(answer({ client_id: 'https://else.example/m', redirect_uris: ['cursor://x/cb'] })).resolve(id);
    assert.equal(other.ok, false);
    const secret = await new ClientMetadataDocuments(answer({ client_id: id, client_secret: 's', redirect_uris: ['cursor://x/cb'] })).resolve(id);
    assert.equal(secret.ok, false);
    const huge = await new ClientMetadataDocuments(answer({ client_id: id, redirect_uris: ['cursor://x/cb'], pad: 'x'.repeat(10_000) })).resolve(id);
    assert.equal(huge.ok, false);
  });
});
