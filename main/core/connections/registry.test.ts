import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_CONNECTIONS, OverseerError } from '../../../protocol/index.js';
import { CONNECTIONS_FILE, ConnectionRegistry } from './registry.js';

const ssh = (name: string): Record<string, unknown> => ({ name, kind: 'ssh', enabled: true, host: 'lab-box', user: 'ann', port: 2222 });

/** The typed error a call threw, or undefined when it did not throw. */
async function errorOf(p: Promise<unknown>): Promise<OverseerError['info'] | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    assert.ok(e instanceof OverseerError, String(e));
    return e.info;
  }
}

describe('the connection registry (connections.json)', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'overseer-registry-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  it('writes the file 0600, atomically (no temp file left), and reads back what it wrote', async () => {
    const r = new ConnectionRegistry(dir);
    await r.load();
    assert.deepEqual(r.list(), []);
    await r.add(ssh('lab'));
    await r.add({ name: 'vm1', kind: 'osworld_http', enabled: true, url: 'http://127.0.0.1:5000' });
    const mode = (await stat(join(dir, CONNECTIONS_FILE))).mode & 0o777;
    assert.equal(mode, 0o600);
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.includes('tmp')),
      [],
    );
    const again = new ConnectionRegistry(dir);
    await again.load();
    assert.deepEqual(
      again.list().map((e) => e.name),
      ['lab', 'vm1'],
    );
    assert.equal((JSON.parse(await readFile(join(dir, CONNECTIONS_FILE), 'utf8')) as { version: unknown }).version, 1);
    await again.setEnabled('lab', false);
    await r.refresh();
    assert.equal(r.get('lab')?.enabled, false, "another writer's change is noticed");
    await again.remove('lab');
    await again.remove('vm1');
  });

  it('refuses secret fields and key material with reason secret_field, before the unknown-key error', async () => {
    const r = new ConnectionRegistry(dir);
    await r.load();
    for (const field of ['password', 'identity_file', 'private_key', 'token', 'passphrase', 'api_key'])
      assert.deepEqual((await errorOf(r.add({ ...ssh('x'), [field]: 'hunter2' })))?.data, { reason: 'secret_field', field });
    const pem = await errorOf(r.add({ ...ssh('x'), host: '-----BEGIN OPENSSH PRIVATE KEY-----' }));
    assert.equal(pem?.data?.['reason'], 'secret_field');
    const bad = await errorOf(r.add({ ...ssh('x'), colour: 'blue' }));
    assert.equal(bad?.code, 'invalid_argument');
    assert.notEqual(bad?.data?.['reason'], 'secret_field', "an unknown, harmless field is the schema's refusal");
    assert.deepEqual(r.list(), [], 'nothing was added');
  });

  it('keeps names unique and never "local", and holds at most MAX_CONNECTIONS', async () => {
    const sub = await mkdtemp(join(dir, 'bounds-'));
    const r = new ConnectionRegistry(sub);
    await r.load();
    assert.equal((await errorOf(r.add(ssh('local'))))?.data?.['reason'], 'reserved_name');
    assert.equal((await errorOf(r.add(ssh('Bad Name'))))?.code, 'invalid_argument');
    assert.equal((await errorOf(r.add({ ...ssh('opt'), host: '-oProxyCommand=sh' })))?.code, 'invalid_argument', 'a host is never an ssh option');
    for (let i = 0; i < MAX_CONNECTIONS; i++) await r.add(ssh(`c${i}`));
    assert.equal((await errorOf(r.add(ssh('c0'))))?.data?.['reason'], 'name_taken');
    assert.equal((await errorOf(r.add(ssh('one-more'))))?.data?.['reason'], 'too_many');
    assert.equal(r.list().length, MAX_CONNECTIONS);
  });

  it('keeps a corrupt file aside, says so, and starts empty', async () => {
    const sub = await mkdtemp(join(dir, 'corrupt-'));
    for (const [i, text] of [
      '{"version":1,"connections":[{"name":"a","kind":"ssh"',
      JSON.stringify({ version: 1, connections: [{ ...ssh('a'), password: 'x' }] }),
      JSON.stringify({ version: 1, connections: [ssh('a'), ssh('a')] }),
    ].entries()) {
      await writeFile(join(sub, CONNECTIONS_FILE), text, { mode: 0o600 });
      const lines: string[] = [];
      const r = new ConnectionRegistry(sub, (l) => lines.push(l));
      await r.load();
      assert.deepEqual(r.list(), [], `case ${i}`);
      assert.ok(r.corrupt !== undefined, `case ${i}: reported`);
      assert.equal(await readFile(r.corrupt.aside, 'utf8'), text, `case ${i}: kept whole`);
      assert.match(lines.join('\n'), /not a valid registry/);
    }
  });
});
