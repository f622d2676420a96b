import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDir, openFailure } from './files.js';
import { GENESIS, HEAD_FILE, HeadState, MAX_BATCH, listSegments, parseLine, reason, recordHash, segmentName, type Segment } from './records.js';

/** Where a reopened journal continues: the chain's end, the head to write, the segment to append to. */
export interface Recovered {
  /** seq and hash of the last record (0 and "genesis" for an empty journal). */
  last: { seq: number; hash: string };
  /** The head as it must be written now (repaired when it lagged behind the last group commit). */
  head: HeadState;
  /** True when journal.head already existed. */
  headExists: boolean;
  /** The last segment file and its size, if any segment exists. */
  current: { no: number; size: number } | undefined;
}

const ADVICE = 'run `overseer journal verify` on it, and move the directory aside to start a new journal';

/** The end of the chain as the segments hold it. */
interface LastRecord {
  seq: number;
  hash: string;
  prev_hash: string;
  segment: string;
}

/**
 * Brings a journal directory to a state where appending can continue: creates it, cuts a partial last
 * line left by a crash, and checks the chain's end against the head. Anything that a crash cannot
 * explain (a missing or mismatched head, an edited last record) refuses to open, because appending
 * would bury the evidence.
 */
export async function recoverJournal(dir: string, log: (line: string) => void): Promise<Recovered> {
  await ensureDir(dir, log);
  let segments: Segment[];
  try {
    segments = await listSegments(dir);
  } catch (error) {
    throw openFailure(dir, 'cannot list the directory', error);
  }
  const headPath = join(dir, HEAD_FILE);
  const head = await readHead(headPath);
  const lastSeg = segments.at(-1);
  if (lastSeg !== undefined) await cutPartialLine(join(dir, lastSeg.name), log);
  const last = await lastRecord(dir, segments);
  const current = lastSeg === undefined ? undefined : { no: lastSeg.no, size: await sizeOf(join(dir, lastSeg.name)) };
  const fresh = { seq: 0, hash: GENESIS, segment: lastSeg?.name ?? segmentName(1) };
  return {
    last: last === undefined ? { seq: 0, hash: GENESIS } : { seq: last.seq, hash: last.hash },
    head: reconcile(headPath, head, last, last === undefined || head === undefined ? [] : await tail(dir, segments, last.seq - head.seq), log) ?? fresh,
    headExists: head !== undefined,
    current,
  };
}

/** Reads journal.head; undefined when it does not exist. A head that cannot be read or parsed refuses to open. */
async function readHead(path: string): Promise<HeadState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw openFailure(path, 'cannot read the head file', error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw openFailure(path, `the head file is corrupt (not JSON); ${ADVICE}`, error);
  }
  const checked = HeadState.safeParse(value);
  if (!checked.success) throw openFailure(path, `the head file is corrupt (${checked.error.issues[0]?.message ?? 'bad shape'}); ${ADVICE}`);
  return checked.data;
}

/**
 * Cuts bytes after the last newline: an append that a crash interrupted. It was never acknowledged
 * (append resolves only after the whole line is flushed), so no receipt is lost; the log says what was cut.
 */
async function cutPartialLine(path: string, log: (line: string) => void): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'r+');
  } catch (error) {
    throw openFailure(path, 'cannot open the last segment for writing', error);
  }
  try {
    const buf = await fh.readFile();
    if (buf.length === 0 || buf[buf.length - 1] === 0x0a) return;
    const keep = buf.lastIndexOf(0x0a) + 1;
    // Only the seq goes to the log: the line's content may be private, the log is less protected.
    const seq = /"seq":(\d+)/.exec(buf.subarray(keep).toString('utf8'))?.[1];
    await fh.truncate(keep);
    await fh.sync();
    log(
      `[journal] ${path}: cut a partial last line of ${buf.length - keep} bytes${seq === undefined ? '' : ` (seq ${seq})`} left by a crash mid-append; it was never acknowledged`,
    );
  } catch (error) {
    throw openFailure(path, 'cannot cut the partial last line left by a crash', error);
  } finally {
    await fh.close();
  }
}

/** The last record of the last non-empty segment, checked against its own hash. */
async function lastRecord(dir: string, segments: readonly Segment[]): Promise<LastRecord | undefined> {
  for (let i = segments.length - 1; i >= 0; i--) {
    const name = (segments[i] as Segment).name;
    const path = join(dir, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw openFailure(path, 'cannot read the segment', error);
    }
    // An empty last segment is a crash right after rotation; the chain ends in the one before.
    if (text.length === 0) continue;
    if (!text.endsWith('\n')) throw openFailure(path, `an earlier segment ends with a partial line, which no crash of this journal leaves; ${ADVICE}`);
    const line = text.slice(text.lastIndexOf('\n', text.length - 2) + 1, -1);
    const record = parseLine(line);
    if (record === undefined) throw openFailure(path, `its last line is not a journal record; ${ADVICE}`);
    if (recordHash(record) !== record.hash) throw openFailure(path, `its last record (seq ${record.seq}) does not match its hash; ${ADVICE}`);
    return { seq: record.seq, hash: record.hash, prev_hash: record.prev_hash, segment: name };
  }
  return undefined;
}

/**
 * The last `count` + 1 records, oldest first, each checked against its own hash (at most MAX_BATCH + 1:
 * a longer lag is no crash of this journal, and is not read).
 */
async function tail(dir: string, segments: readonly Segment[], count: number): Promise<LastRecord[]> {
  if (count < 1 || count > MAX_BATCH) return [];
  const out: LastRecord[] = [];
  for (let i = segments.length - 1; i >= 0 && out.length <= count; i--) {
    const name = (segments[i] as Segment).name;
    let text: string;
    try {
      text = await readFile(join(dir, name), 'utf8');
    } catch (error) {
      throw openFailure(join(dir, name), 'cannot read the segment', error);
    }
    const lines = text.split('\n').filter((l) => l !== '');
    for (let j = lines.length - 1; j >= 0 && out.length <= count; j--) {
      const record = parseLine(lines[j] as string);
      if (record === undefined || recordHash(record) !== record.hash) return [];
      out.unshift({ seq: record.seq, hash: record.hash, prev_hash: record.prev_hash, segment: name });
    }
  }
  return out;
}

/**
 * The head to write when the head and the segments agree, or when the head lags behind records that
 * chain onto it: a group commit flushes its records, then the head, and a crash between the two
 * leaves at most one batch (MAX_BATCH records) after the head.
 */
function reconcile(
  headPath: string,
  head: HeadState | undefined,
  last: LastRecord | undefined,
  after: readonly LastRecord[],
  log: (line: string) => void,
): HeadState | undefined {
  if (head === undefined) {
    if (last === undefined) return undefined;
    throw openFailure(headPath, `the head file is missing while the segments hold records up to seq ${last.seq}; records may have been removed; ${ADVICE}`);
  }
  if (last === undefined) {
    if (head.seq === 0) return head;
    throw openFailure(headPath, `the head says the journal ends at seq ${head.seq} but the segments hold no records; ${ADVICE}`);
  }
  const atLast = { seq: last.seq, hash: last.hash, segment: last.segment };
  if (head.seq === last.seq && head.hash === last.hash) {
    if (head.segment !== last.segment) log(`[journal] ${headPath} named ${head.segment} for seq ${head.seq}, which is in ${last.segment}; corrected`);
    return atLast;
  }
  if (head.seq < last.seq && chainsOnto(head, after, last)) {
    // The records were flushed but the crash came before the head was: the one gap a crash leaves.
    const behind = last.seq - head.seq;
    log(
      `[journal] ${headPath} was ${behind === 1 ? 'one record' : `${behind} records`} behind (crash between a group commit and its head update); moved to seq ${last.seq}`,
    );
    return atLast;
  }
  if (head.seq > last.seq)
    throw openFailure(
      headPath,
      `the head says the journal ends at seq ${head.seq} but the segments end at seq ${last.seq}: records were removed from the end; ${ADVICE}`,
    );
  throw openFailure(headPath, `the head (seq ${head.seq}) does not match the last record (seq ${last.seq} in ${last.segment}); ${ADVICE}`);
}

/** True when `after` runs from the head's record to the last one, each record's prev_hash naming the one before. */
function chainsOnto(head: HeadState, after: readonly LastRecord[], last: LastRecord): boolean {
  const first = after[0];
  if (first === undefined || first.seq !== head.seq || first.hash !== head.hash) return false;
  for (let i = 1; i < after.length; i++) {
    const r = after[i] as LastRecord;
    const before = after[i - 1] as LastRecord;
    if (r.seq !== before.seq + 1 || r.prev_hash !== before.hash) return false;
  }
  const end = after.at(-1) as LastRecord;
  return end.seq === last.seq && end.hash === last.hash;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    throw openFailure(path, `cannot stat the segment (${reason(error)})`);
  }
}
