import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Journal, verifyJournal } from './index.js';
import { CUT_FIELD, MAX_RECORD_BYTES, fitRecord } from './recordBound.js';

const size = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');

describe('journal records are bounded', () => {
  it('returns a record that fits as it is', () => {
    const record = { kind: 'tool_call', args: { selector: { name: 'Save' } } };
    assert.equal(fitRecord(record), record);
  });

  it('summarises the one large value deep inside, keeping everything around it', () => {
    const record = {
      kind: 'tool_call',
      tool: 'element_act',
      error: { code: 'invalid_argument', detail: 'x', data: { issues: [{ path: 'a', message: 'm'.repeat(600_000) }] } },
    };
    const fitted = fitRecord(record);
    assert.ok(size(fitted) <= MAX_RECORD_BYTES, `${size(fitted)} bytes`);
    assert.deepEqual(fitted[CUT_FIELD], ['error.data.issues.0.message']);
    const error = fitted['error'] as { code: string; data: { issues: { path: string; message: string }[] } };
    assert.equal(error.code, 'invalid_argument');
    assert.equal(error.data.issues[0]?.path, 'a');
    assert.match(error.data.issues[0]?.message ?? '', /^m{120}…\(600000 chars, 600002 bytes, sha256 [0-9a-f]{16}…: cut to fit the journal\)$/);
    assert.equal((record.error.data.issues[0]?.message ?? '').length, 600_000, 'the caller’s object is not changed');
  });

  it('leaves out a list of many small values as a whole, saying how many there were', () => {
    const issues = Array.from({ length: 50_000 }, (_, i) => ({ path: `k${i}`, message: 'unknown field' }));
    const fitted = fitRecord({ kind: 'tool_call', error: { code: 'invalid_argument', data: { issues } } });
    assert.ok(size(fitted) <= MAX_RECORD_BYTES);
    assert.deepEqual(fitted[CUT_FIELD], ['error.data.issues']);
    assert.match(JSON.stringify(fitted), /\[array of 50000, \d+ bytes, sha256 [0-9a-f]{16}…: left out to fit the journal\]/);
  });

  it('cuts several large fields, largest first, until the record fits', () => {
    const fitted = fitRecord({ kind: 'system', a: 'a'.repeat(160_000), b: 'b'.repeat(150_000), c: 'c'.repeat(140_000), d: 'd' });
    assert.ok(size(fitted) <= MAX_RECORD_BYTES);
    assert.deepEqual(fitted[CUT_FIELD], ['a', 'b']);
    assert.equal(fitted['c'], 'c'.repeat(140_000));
    assert.equal(fitted['d'], 'd');
  });

  it('writes a bounded line for a huge record, and the chain still verifies', async () => {
    const root = await mkdtemp(join(tmpdir(), 'overseer-bound-'));
    try {
      const dir = join(root, 'journal');
      const journal = await Journal.open(dir);
      const record = await journal.append({ kind: 'tool_call', tool: 'element_act', args: { huge: 'x'.repeat(5_000_000) } });
      await journal.close();
      assert.deepEqual(record[CUT_FIELD], ['args.huge']);
      const segment = (await readdir(dir)).find((n) => n.endsWith('.jsonl')) ?? '';
      const line = (await readFile(join(dir, segment), 'utf8')).split('\n')[0] ?? '';
      assert.ok(Buffer.byteLength(line) <= MAX_RECORD_BYTES, `${Buffer.byteLength(line)} bytes`);
      assert.equal((await verifyJournal(dir)).ok, true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
