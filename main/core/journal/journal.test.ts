import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { exportJournal, Journal, redactForJournal, verifyJournal, type JournalRecord } from './index.js';

/** A fresh journal directory path (not yet created) inside a temp dir removed after the test. */
async function journalDir(t: TestContext): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'overseer-journal-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  return join(root, 'journal');
}

/** Opens a journal that collects its log lines. */
async function openJournal(dir: string, maxBytes?: number): Promise<{ journal: Journal; logs: string[] }> {
  const logs: string[] = [];
  const journal = await Journal.open(dir, { log: (line) => logs.push(line), ...(maxBytes === undefined ? {} : { maxBytes }) });
  return { journal, logs };
}

/** Appends n tool_call records numbered from `from`. */
async function fill(journal: Journal, n: number, from = 1): Promise<JournalRecord[]> {
  const out: JournalRecord[] = [];
  for (let i = from; i < from + n; i++) out.push(await journal.append({ kind: 'tool_call', tool: 'window_read', note: `call-${i}`, args: { limit: i } }));
  return out;
}

const segmentFiles = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort();
const linesOf = async (file: string): Promise<string[]> => (await readFile(file, 'utf8')).split('\n').slice(0, -1);
const writeLines = (file: string, lines: string[]): Promise<void> => writeFile(file, lines.map((l) => `${l}\n`).join(''));
const kinds = (v: { problems: { kind: string }[] }): string[] => v.problems.map((p) => p.kind);

describe('Journal: hash chain', () => {
  it('hashes each record as sha256(prev_hash + "\\n" + sorted-key JSON without hash), starting from genesis', async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir);
    const a = await journal.append({ kind: 'system', zeta: 1, alpha: { y: [2, { b: 1, a: 0 }], x: 'é' } });
    const b = await journal.append({ kind: 'system', event: 'second' });
    await journal.close();
    assert.equal(a.prev_hash, 'genesis');
    assert.equal(a.seq, 1);
    const canonical = `{"alpha":{"x":"é","y":[2,{"a":0,"b":1}]},"at":${JSON.stringify(a.at)},"kind":"system","prev_hash":"genesis","seq":1,"zeta":1}`;
    assert.equal(a.hash, createHash('sha256').update(`genesis\n${canonical}`).digest('hex'));
    assert.equal(b.prev_hash, a.hash);
    assert.equal(b.seq, 2);
  });

  it('continues one chain across rotated segments and verifies clean', async (t) => {
    const dir = await journalDir(t);
    const { journal, logs } = await openJournal(dir, 500);
    const records = await fill(journal, 30);
    await journal.close();
    const segments = await segmentFiles(dir);
    assert.ok(segments.length >= 5, `expected several segments, got ${segments.length}`);
    assert.equal(segments[0], 'journal-000001.jsonl');
    for (const file of segments) assert.ok((await stat(join(dir, file))).size <= 500);
    records.forEach((r, i) => {
      assert.equal(r.seq, i + 1);
      assert.equal(r.prev_hash, i === 0 ? 'genesis' : records[i - 1]?.hash);
    });
    assert.ok(logs.some((l) => l.startsWith('[journal] ') && l.includes('continuing in journal-000002.jsonl')));
    assert.deepEqual(await verifyJournal(dir), { ok: true, records: 30, segments: segments.length, problems: [] });
  });

  it('never resets seq: a reopened journal continues the chain where it ended', async (t) => {
    const dir = await journalDir(t);
    const first = await openJournal(dir, 400);
    const before = await fill(first.journal, 5);
    await first.journal.close();
    const second = await openJournal(dir, 400);
    const [next] = await fill(second.journal, 1, 6);
    await second.journal.close();
    assert.equal(next?.seq, 6);
    assert.equal(next?.prev_hash, before.at(-1)?.hash);
    assert.equal((await verifyJournal(dir)).ok, true);
  });

  it('writes a burst as group commits, and an urgent record goes ahead of appends still waiting', async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir);
    const burst = Array.from({ length: 1500 }, (_, i) => journal.append({ kind: 'tool_call', n: i }));
    // Once the first batch is on disk, the rest of the burst is still waiting.
    const firstBatch = (await burst[0])?.seq ?? 0;
    const brake = journal.append({ kind: 'system', event: 'brake', state: 'stopped' }, { urgent: true });
    const [records, urgent] = await Promise.all([Promise.all(burst), brake]);
    await journal.close();
    const written = records.filter((r) => r.seq < urgent.seq).length;
    assert.equal(firstBatch, 1);
    assert.ok(written <= 2 * 512, `the brake went ahead of the burst: ${written} of its records were written before it`);
    assert.ok(records.filter((r) => r.seq > urgent.seq).length >= 1500 - 2 * 512, 'the records still waiting came after it');
    const normal = records.map((r) => r.seq);
    assert.deepEqual(
      normal,
      [...normal].sort((a, b) => a - b),
      'the others keep their call order',
    );
    const v = await verifyJournal(dir);
    assert.equal(v.ok, true, JSON.stringify(v.problems.slice(0, 3)));
    assert.equal(v.records, 1501);
  });

  it('keeps 200 concurrent appends in call order with strictly increasing seq', async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir, 4096);
    const records = await Promise.all(Array.from({ length: 200 }, (_, i) => journal.append({ kind: 'tool_call', n: i })));
    await journal.close();
    records.forEach((r, i) => {
      assert.equal(r.seq, i + 1);
      assert.equal(r['n'], i);
    });
    const v = await verifyJournal(dir);
    assert.equal(v.ok, true, JSON.stringify(v.problems));
    assert.equal(v.records, 200);
  });

  it('refuses reserved fields and unknown kinds without breaking the journal', async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir);
    await assert.rejects(
      journal.append({ kind: 'tool_call', seq: 99 }),
      (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument' && e.message.includes('seq'),
    );
    await assert.rejects(journal.append({ kind: 'chat' as 'system' }), (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument');
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const ok = await journal.append({ kind: 'system', circular });
    await journal.close();
    assert.equal(ok.seq, 1);
    assert.deepEqual(ok['circular'], { self: '[circular]' });
    await assert.rejects(journal.append({ kind: 'system' }), /closed/);
  });
});

describe('verifyJournal: tampering and truncation', () => {
  /** A closed journal of `n` records in segments of `maxBytes`. */
  async function written(t: TestContext, n: number, maxBytes = 1 << 20): Promise<string> {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir, maxBytes);
    await fill(journal, n);
    await journal.close();
    return dir;
  }

  it('reports a changed byte inside a middle record as edited, at its line', async (t) => {
    const dir = await written(t, 9);
    const file = join(dir, 'journal-000001.jsonl');
    const lines = await linesOf(file);
    lines[4] = (lines[4] as string).replace('call-5', 'call-X');
    await writeLines(file, lines);
    const v = await verifyJournal(dir);
    assert.equal(v.ok, false);
    assert.deepEqual(
      v.problems.map((p) => [p.kind, p.segment, p.line]),
      [['edited', 'journal-000001.jsonl', 5]],
    );
  });

  it('reports a record whose hash was recomputed after editing by the broken link to the next record', async (t) => {
    const dir = await written(t, 5);
    const file = join(dir, 'journal-000001.jsonl');
    const lines = await linesOf(file);
    const rec = JSON.parse(lines[1] as string) as Record<string, unknown>;
    rec['note'] = 'forged';
    const rest = { ...rec };
    delete rest['hash'];
    const canonical = JSON.stringify(Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1))));
    rec['hash'] = createHash('sha256')
      .update(`${rest['prev_hash'] as string}\n${canonical}`)
      .digest('hex');
    lines[1] = JSON.stringify(Object.fromEntries(Object.entries(rec).sort(([a], [b]) => (a < b ? -1 : 1))));
    await writeLines(file, lines);
    const v = await verifyJournal(dir);
    assert.deepEqual(
      v.problems.map((p) => [p.kind, p.line]),
      [['edited', 3]],
    );
  });

  it('reports a deleted middle line as removed', async (t) => {
    const dir = await written(t, 9);
    const file = join(dir, 'journal-000001.jsonl');
    const lines = await linesOf(file);
    lines.splice(4, 1);
    await writeLines(file, lines);
    const v = await verifyJournal(dir);
    assert.deepEqual(kinds(v), ['removed']);
    assert.match(v.problems[0]?.detail ?? '', /seq 5/);
  });

  it('reports the last two lines cut (head left in place) as truncated', async (t) => {
    const dir = await written(t, 9);
    const file = join(dir, 'journal-000001.jsonl');
    await writeLines(file, (await linesOf(file)).slice(0, -2));
    const v = await verifyJournal(dir);
    assert.equal(v.ok, false);
    assert.deepEqual(kinds(v), ['truncated']);
    assert.match(v.problems[0]?.detail ?? '', /2 record\(s\) missing from the end/);
    // Reopening must not paper over it by rewriting the head.
    await assert.rejects(
      Journal.open(dir),
      (e: unknown) => e instanceof OverseerError && e.message.includes('journal.head') && /removed from the end/.test(e.message),
    );
  });

  it('reports a deleted whole middle segment as removed', async (t) => {
    const dir = await written(t, 30, 500);
    const segments = await segmentFiles(dir);
    assert.ok(segments.length >= 4);
    await unlink(join(dir, segments[2] as string));
    const v = await verifyJournal(dir);
    assert.deepEqual(kinds(v), ['removed']);
    assert.equal(v.problems[0]?.segment, segments[2]);
  });

  it('reports a deleted last segment as truncated through the head', async (t) => {
    const dir = await written(t, 30, 500);
    const segments = await segmentFiles(dir);
    await unlink(join(dir, segments.at(-1) as string));
    const v = await verifyJournal(dir);
    assert.deepEqual(kinds(v), ['truncated']);
  });

  it('reports two swapped records as reordered', async (t) => {
    const dir = await written(t, 6);
    const file = join(dir, 'journal-000001.jsonl');
    const lines = await linesOf(file);
    [lines[2], lines[3]] = [lines[3] as string, lines[2] as string];
    await writeLines(file, lines);
    const v = await verifyJournal(dir);
    assert.ok(v.problems.length > 0);
    assert.ok(
      v.problems.every((p) => p.kind === 'reordered'),
      JSON.stringify(v.problems),
    );
  });

  it('reports a line that is not a record as malformed, and a missing head as head_mismatch', async (t) => {
    const dir = await written(t, 4);
    const file = join(dir, 'journal-000001.jsonl');
    const lines = await linesOf(file);
    lines[1] = '{"seq": 2, oops';
    await writeLines(file, lines);
    await unlink(join(dir, 'journal.head'));
    const v = await verifyJournal(dir);
    assert.deepEqual(kinds(v), ['malformed', 'head_mismatch']);
  });

  it('refuses to verify a directory that does not exist', async (t) => {
    const dir = await journalDir(t);
    await assert.rejects(verifyJournal(dir), (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument');
  });
});

describe('Journal: crash recovery and startup failures', () => {
  it('cuts a partial last line left by a crash, logs it, and continues a chain that verifies clean', async (t) => {
    const dir = await journalDir(t);
    const first = await openJournal(dir);
    const before = await fill(first.journal, 3);
    await first.journal.close();
    const file = join(dir, 'journal-000001.jsonl');
    await writeFile(file, '{"at":"2025-01-01T00:00:00.000Z","kind":"tool_call","note":"half', { flag: 'a' });
    const crashed = await verifyJournal(dir);
    assert.deepEqual(kinds(crashed), ['truncated']);
    const second = await openJournal(dir);
    assert.ok(
      second.logs.some((l) => l.startsWith('[journal] ') && l.includes('partial last line')),
      second.logs.join('\n'),
    );
    const [next] = await fill(second.journal, 1, 4);
    await second.journal.close();
    assert.equal(next?.seq, 4);
    assert.equal(next?.prev_hash, before.at(-1)?.hash);
    assert.deepEqual(await verifyJournal(dir), { ok: true, records: 4, segments: 1, problems: [] });
  });

  it('brings forward a head left one record behind by a crash between the record and the head', async (t) => {
    const dir = await journalDir(t);
    const first = await openJournal(dir);
    const records = await fill(first.journal, 3);
    await first.journal.close();
    const prev = records[1] as JournalRecord;
    await writeFile(join(dir, 'journal.head'), JSON.stringify({ seq: prev.seq, hash: prev.hash, segment: 'journal-000001.jsonl' }));
    assert.equal((await verifyJournal(dir)).ok, true, 'one record past the head is the crash window, not tampering');
    const second = await openJournal(dir);
    assert.ok(second.logs.some((l) => l.includes('one record behind')));
    const [next] = await fill(second.journal, 1, 4);
    await second.journal.close();
    assert.equal(next?.seq, 4);
    assert.equal((await verifyJournal(dir)).ok, true);
  });

  it('brings forward a head left a whole group commit behind, but not one that lags further or names another chain', async (t) => {
    const dir = await journalDir(t);
    const first = await openJournal(dir);
    const records = await fill(first.journal, 40);
    await first.journal.close();
    const at = (n: number): JournalRecord => records[n - 1] as JournalRecord;
    await writeFile(join(dir, 'journal.head'), JSON.stringify({ seq: 10, hash: at(10).hash, segment: 'journal-000001.jsonl' }));
    assert.equal((await verifyJournal(dir)).ok, true, 'records one batch past the head are the crash window');
    const second = await openJournal(dir);
    assert.ok(second.logs.some((l) => l.includes('30 records behind')));
    const [next] = await fill(second.journal, 1, 41);
    await second.journal.close();
    assert.equal(next?.seq, 41);
    // A head naming a record with another hash is not a crash.
    await writeFile(join(dir, 'journal.head'), JSON.stringify({ seq: 20, hash: at(21).hash, segment: 'journal-000001.jsonl' }));
    assert.deepEqual(kinds(await verifyJournal(dir)), ['head_mismatch']);
    await assert.rejects(Journal.open(dir), (e: unknown) => e instanceof OverseerError && e.message.includes('does not match the last record'));
  });

  it('refuses to open a journal whose head is corrupt, naming the head file', async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir);
    await fill(journal, 2);
    await journal.close();
    await writeFile(join(dir, 'journal.head'), 'not json');
    await assert.rejects(
      Journal.open(dir),
      (e: unknown) => e instanceof OverseerError && e.code === 'internal' && e.message.includes(join(dir, 'journal.head')) && e.message.includes('corrupt'),
    );
  });

  it('refuses to open a path that is a file, naming the path', async (t) => {
    const dir = await journalDir(t);
    await writeFile(dir, 'x');
    await assert.rejects(Journal.open(dir), (e: unknown) => e instanceof OverseerError && e.message.includes(dir));
  });
});

describe('Journal: approvals, files, export', () => {
  it('lists approvals still pending across segments and a reopen', async (t) => {
    const dir = await journalDir(t);
    const first = await openJournal(dir, 400);
    await first.journal.append({ kind: 'approval_pending', approval_id: 'a1', action: 'invoke' });
    await first.journal.append({ kind: 'approval_pending', approval_id: 'a2', action: 'set_value' });
    await fill(first.journal, 5);
    await first.journal.append({ kind: 'approval_resolved', approval_id: 'a1', decision: 'approved' });
    await first.journal.append({ kind: 'approval_pending', approval_id: 'a3', action: 'invoke' });
    await first.journal.close();
    const second = await openJournal(dir, 400);
    const pending = await second.journal.pendingApprovals();
    await second.journal.close();
    assert.ok((await segmentFiles(dir)).length > 1);
    assert.deepEqual(
      pending.map((r) => r['approval_id']),
      ['a2', 'a3'],
    );
    assert.ok(pending.every((r) => r.kind === 'approval_pending' && typeof r.hash === 'string'));
  });

  it('creates the directory with mode 0700 and segments and head with mode 0600', { skip: process.platform === 'win32' }, async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir, 300);
    await fill(journal, 5);
    await journal.close();
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    const files = await readdir(dir);
    assert.ok(files.includes('journal.head') && files.length > 2);
    for (const f of files) assert.equal((await stat(join(dir, f))).mode & 0o777, 0o600, f);
  });

  it('exports every record in order as JSON lines', async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir, 500);
    const records = await fill(journal, 25);
    await journal.close();
    const out: string[] = [];
    assert.equal(await exportJournal(dir, (line) => out.push(line)), 25);
    assert.deepEqual(
      out.map((l) => JSON.parse(l) as JournalRecord),
      records,
    );
  });
});

describe('redactForJournal', () => {
  const SECRET = 'hunter2-secret';

  it('never lets the text of a password field through, however deep', () => {
    const value = {
      kind: 'tool_call',
      args: { action: 'set_value', text: SECRET, password: true },
      approval: { text: SECRET, current_value: SECRET, password: true, target: { state: { password: true } } },
      receipt: { action: 'set_value', text: SECRET, target: { key: 'k', state: { password: true, editable: true } } },
      list: [[{ element: { redacted: true }, text: SECRET }], { redacted: true, value: SECRET }],
      login: { user: 'me', password: SECRET },
    };
    const out = redactForJournal(value);
    assert.ok(!JSON.stringify(out).includes(SECRET), JSON.stringify(out));
    assert.equal((out as { login: { user: string } }).login.user, 'me');
    assert.equal((out as { args: { password: boolean } }).args.password, true);
  });

  it('keeps ordinary text and does not change its input', () => {
    const value = { text: 'hello', nested: { text: 'world', password: false } };
    assert.deepEqual(redactForJournal(value), value);
    assert.equal(value.nested.text, 'world');
  });

  it('is applied by append, so a password text never reaches the disk', async (t) => {
    const dir = await journalDir(t);
    const { journal } = await openJournal(dir);
    const rec = await journal.append({ kind: 'tool_call', args: { text: SECRET, password: true } });
    await journal.close();
    assert.equal((rec['args'] as { text: string }).text, '[redacted]');
    assert.ok(!(await readFile(join(dir, 'journal-000001.jsonl'), 'utf8')).includes(SECRET));
  });
});
