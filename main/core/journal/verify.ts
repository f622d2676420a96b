import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fail } from '../../../protocol/index.js';
import {
  canonicalJSON,
  GENESIS,
  HEAD_FILE,
  HeadState,
  MAX_BATCH,
  listSegments,
  parseLine,
  readSegment,
  recordHash,
  segmentName,
  type Segment,
} from './records.js';

/** What kind of damage a problem is. */
export type ProblemKind = 'edited' | 'removed' | 'truncated' | 'reordered' | 'malformed' | 'head_mismatch';

/** One finding of verifyJournal. */
export interface JournalProblem {
  /** The segment file (or journal.head) where it was found. */
  segment: string;
  /** 1-based line in that file; 0 when it concerns a whole file. */
  line: number;
  kind: ProblemKind;
  /** A sentence for the person reading the report. */
  detail: string;
}

/** The result of verifyJournal. */
export interface JournalVerification {
  /** True when no problem was found. */
  ok: boolean;
  /** Records that parsed (whether or not their hash held). */
  records: number;
  /** Segment files found. */
  segments: number;
  problems: JournalProblem[];
}

/** A parsed record's place in the chain. */
interface Entry {
  segment: string;
  line: number;
  seq: number;
  hash: string;
  prev_hash: string;
  /** Lines that could not be read just before this one: they may be the records a gap misses. */
  unreadableBefore: number;
  /** First record after a missing segment, already reported as removed. */
  afterMissingSegment: boolean;
}

/**
 * Checks a journal directory without changing it: every record's hash (edits), the chain of seq and
 * prev_hash (removed or reordered records), the segment numbering (removed segments), partial lines
 * and the head (records cut from the end).
 */
export async function verifyJournal(dir: string): Promise<JournalVerification> {
  // The head is read before the segments: a journal still being written then can only have gone on
  // past the head meanwhile (one group commit is accepted), never seem cut short.
  const headText = await readFile(join(dir, HEAD_FILE), 'utf8').catch(() => undefined);
  const segments = await segmentsOf(dir);
  const problems: JournalProblem[] = [];
  const entries: Entry[] = [];
  let unreadable = 0;
  let missingBefore = false;
  for (const [i, seg] of segments.entries()) {
    const expectedNo = i === 0 ? 1 : (segments[i - 1] as Segment).no + 1;
    if (seg.no !== expectedNo) {
      const names = seg.no - expectedNo === 1 ? segmentName(expectedNo) : `${segmentName(expectedNo)} to ${segmentName(seg.no - 1)}`;
      problems.push({ segment: names, line: 0, kind: 'removed', detail: `segment file(s) ${names} are missing before ${seg.name}` });
      missingBefore = true;
    }
    const { lines, partial } = await readSegment(dir, seg.name);
    for (const [j, line] of lines.entries()) {
      const at = { segment: seg.name, line: j + 1 };
      const record = parseLine(line);
      if (record === undefined) {
        problems.push({
          ...at,
          kind: 'malformed',
          detail: line.length === 0 ? 'empty line' : 'not a JSON journal record with seq, at, kind, prev_hash and hash',
        });
        unreadable++;
        continue;
      }
      if (recordHash(record) !== record.hash)
        problems.push({ ...at, kind: 'edited', detail: `seq ${record.seq} does not match its hash: its content was changed` });
      else if (canonicalJSON(record) !== line)
        problems.push({ ...at, kind: 'edited', detail: `seq ${record.seq} is not stored in canonical form: the line was rewritten` });
      entries.push({
        ...at,
        seq: record.seq,
        hash: record.hash,
        prev_hash: record.prev_hash,
        unreadableBefore: unreadable,
        afterMissingSegment: missingBefore,
      });
      unreadable = 0;
      missingBefore = false;
    }
    if (partial.length > 0) {
      const where = i === segments.length - 1 ? 'the end of the journal' : 'the end of a segment that is not the last';
      problems.push({
        segment: seg.name,
        line: lines.length + 1,
        kind: 'truncated',
        detail: `partial line of ${Buffer.byteLength(partial)} bytes at ${where} (an append cut short, e.g. by a crash)`,
      });
    }
  }
  const tail = checkChain(entries, problems);
  checkHead(headText, tail, entries, problems);
  return { ok: problems.length === 0, records: entries.length, segments: segments.length, problems };
}

/** Writes every readable record, in journal order, one JSON document per call (no trailing newline); returns how many. */
export async function exportJournal(dir: string, write: (line: string) => void): Promise<number> {
  let count = 0;
  for (const seg of await segmentsOf(dir)) {
    for (const line of (await readSegment(dir, seg.name)).lines) {
      // Lines are stored canonical, so they go out as stored; integrity is verifyJournal's job.
      if (parseLine(line) === undefined) continue;
      write(line);
      count++;
    }
  }
  return count;
}

/** The segments of an existing journal directory; a missing directory is the caller's mistake. */
async function segmentsOf(dir: string): Promise<Segment[]> {
  const st = await stat(dir).catch(() => undefined);
  if (st?.isDirectory() !== true) throw fail('invalid_argument', `no journal directory at ${dir}`, { path: dir });
  return listSegments(dir);
}

/**
 * Walks the records in file order against the chain they should form. After a break it continues
 * from the record found, so one removal or swap is one or two findings, not one per later record.
 */
function checkChain(entries: readonly Entry[], problems: JournalProblem[]): { seq: number; hash: string } {
  const firstIndex = new Map<number, number>();
  const lastIndex = new Map<number, number>();
  for (const [i, e] of entries.entries()) {
    if (!firstIndex.has(e.seq)) firstIndex.set(e.seq, i);
    lastIndex.set(e.seq, i);
  }
  let seq = 0;
  let hash = GENESIS;
  for (const [i, e] of entries.entries()) {
    const at = { segment: e.segment, line: e.line };
    const expected = seq + 1;
    if (e.seq === expected) {
      if (e.prev_hash !== hash && e.unreadableBefore === 0) {
        const detail =
          expected === 1 ? 'the first record does not start from genesis' : `prev_hash does not match seq ${seq}: a record before it was rewritten`;
        problems.push({ ...at, kind: 'edited', detail });
      }
    } else if (e.seq > expected) {
      const missing = e.seq - expected;
      const later = (lastIndex.get(expected) ?? -1) > i;
      if (later) problems.push({ ...at, kind: 'reordered', detail: `seq ${e.seq} comes before seq ${expected}` });
      else if (!e.afterMissingSegment && missing > e.unreadableBefore) {
        const range = missing === 1 ? `seq ${expected}` : `seq ${expected} to ${e.seq - 1}`;
        problems.push({ ...at, kind: 'removed', detail: `${missing} record(s) missing before this one (${range})` });
      }
    } else {
      const detail = firstIndex.get(e.seq) !== lastIndex.get(e.seq) ? `seq ${e.seq} appears more than once` : `seq ${e.seq} comes after seq ${seq}`;
      problems.push({ ...at, kind: 'reordered', detail });
      // Keep following the chain from the furthest record: the stray one is reported, not followed.
      continue;
    }
    seq = e.seq;
    hash = e.hash;
  }
  return { seq, hash };
}

/** Compares the head with the chain's end: a head ahead of the files means records were cut from the end. */
function checkHead(text: string | undefined, tail: { seq: number; hash: string }, entries: readonly Entry[], problems: JournalProblem[]): void {
  const at = { segment: HEAD_FILE, line: 0 };
  const lastEntry = entries.at(-1);
  if (text === undefined) {
    if (tail.seq > 0) problems.push({ ...at, kind: 'head_mismatch', detail: `the head file is missing while the segments hold records up to seq ${tail.seq}` });
    return;
  }
  let head: HeadState;
  try {
    head = HeadState.parse(JSON.parse(text));
  } catch {
    problems.push({ ...at, kind: 'head_mismatch', detail: 'the head file is not a valid head ({"seq","hash","segment"})' });
    return;
  }
  if (head.seq > tail.seq) {
    problems.push({
      ...at,
      kind: 'truncated',
      detail: `the head says the journal ends at seq ${head.seq} (in ${head.segment}) but the files end at seq ${tail.seq}: ${head.seq - tail.seq} record(s) missing from the end`,
    });
  } else if (head.seq === tail.seq) {
    if (head.hash !== tail.hash) problems.push({ ...at, kind: 'head_mismatch', detail: `the head's hash for seq ${head.seq} differs from the record's` });
    else if (lastEntry !== undefined && head.segment !== lastEntry.segment)
      problems.push({ ...at, kind: 'head_mismatch', detail: `the head places seq ${head.seq} in ${head.segment}, the files in ${lastEntry.segment}` });
  } else if (!(tail.seq - head.seq <= MAX_BATCH && entries.some((e) => e.seq === head.seq && e.hash === head.hash))) {
    // One group commit ahead of the head is the crash window between its flush and the head's; more is not.
    problems.push({
      ...at,
      kind: 'head_mismatch',
      detail: `the head ends at seq ${head.seq} but the files go on to seq ${tail.seq}: records were added without the journal`,
    });
  }
}
