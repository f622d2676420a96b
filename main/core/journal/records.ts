import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** What the caller journals: a kind plus its own fields (session, agent, tool, args, decision, outcome, receipt…). */
export interface JournalRecordInput {
  kind: 'tool_call' | 'approval_pending' | 'approval_resolved' | 'system';
  [field: string]: unknown;
}

/** One line of the journal: the caller's fields plus the chain fields the journal adds. */
export interface JournalRecord extends JournalRecordInput {
  /** Position in the whole journal, from 1, never reset across segments or restarts. */
  seq: number;
  /** When the record was appended (ISO 8601). */
  at: string;
  /** `hash` of the record before, or "genesis" for the first record ever. */
  prev_hash: string;
  /** sha256 hex of prev_hash + "\n" + canonical JSON of the record without `hash`. */
  hash: string;
}

/** The kinds a record may have. */
export const RECORD_KINDS = ['tool_call', 'approval_pending', 'approval_resolved', 'system'] as const;
/** Fields the journal owns; a caller setting them would forge the chain. */
export const RESERVED_FIELDS = ['seq', 'at', 'prev_hash', 'hash'] as const;
/** prev_hash of the first record ever. */
export const GENESIS = 'genesis';
/** Name of the head file that pins the end of the chain. */
export const HEAD_FILE = 'journal.head';
/** Default rotation size of a segment. */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Most records one group commit writes with one flush and one head update: a crash between the
 * flush and the head's update leaves the head at most this many records behind.
 */
export const MAX_BATCH = 512;

/** The chain fields every stored line must carry; the rest is the caller's. */
export const StoredRecord = z.looseObject({
  kind: z.enum(RECORD_KINDS),
  seq: z.number().int().positive(),
  at: z.string(),
  prev_hash: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});

/** The head file: the last record the journal acknowledged, and the segment that holds it. */
export const HeadState = z.strictObject({
  /** seq of the last acknowledged record (0 before the first). */
  seq: z.number().int().nonnegative(),
  /** Its hash ("genesis" before the first). */
  hash: z.string(),
  /** The segment file that holds it (or will hold the first record). */
  segment: z.string(),
});
export type HeadState = z.infer<typeof HeadState>;

/**
 * JSON with object keys sorted (by UTF-16 code unit) and `undefined` members dropped. The journal keeps
 * its own copy because this is a file format: the hashes of old journals depend on it never changing.
 */
export function canonicalJSON(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v: unknown) => (v === undefined ? 'null' : canonicalJSON(v))).join(',')}]`;
  const parts: string[] = [];
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${canonicalJSON(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** The hash a record must carry: sha256hex(prev_hash + "\n" + canonicalJSON(record without hash)). */
export function recordHash(record: Readonly<Record<string, unknown>>): string {
  const prev = typeof record['prev_hash'] === 'string' ? record['prev_hash'] : '';
  return createHash('sha256')
    .update(`${prev}\n${canonicalJSON({ ...record, hash: undefined })}`)
    .digest('hex');
}

/** File name of segment number `n` (1-based). */
export function segmentName(n: number): string {
  return `journal-${String(n).padStart(6, '0')}.jsonl`;
}

const SEGMENT_RE = /^journal-(\d{6,})\.jsonl$/;

/** One segment file of a journal directory. */
export interface Segment {
  /** Its number, from the file name. */
  no: number;
  /** Its file name. */
  name: string;
}

/** The segment files of a journal, in chain order (by number, not by name, so 1000000 sorts last). */
export async function listSegments(dir: string): Promise<Segment[]> {
  const segments: Segment[] = [];
  for (const name of await readdir(dir)) {
    const m = SEGMENT_RE.exec(name);
    if (m?.[1] !== undefined) segments.push({ no: Number(m[1]), name });
  }
  return segments.sort((a, b) => a.no - b.no);
}

/** A segment split into its complete lines and what follows the last newline (a crash leftover). */
export interface SegmentLines {
  lines: string[];
  /** Bytes after the last newline; empty when the file ends cleanly. */
  partial: string;
}

/** Reads one segment as lines; whole-file reads are fine because rotation bounds a segment's size. */
export async function readSegment(dir: string, name: string): Promise<SegmentLines> {
  const text = await readFile(join(dir, name), 'utf8');
  const lines = text.split('\n');
  const partial = lines.pop() ?? '';
  return { lines, partial };
}

/** Parses one stored line; undefined when it is not JSON or lacks the chain fields. */
export function parseLine(line: string): (JournalRecord & Record<string, unknown>) | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const checked = StoredRecord.safeParse(value);
  // The parsed value, not zod's copy: verification must hash exactly what was stored.
  return checked.success ? (value as JournalRecord) : undefined;
}

/** The message of anything thrown, for a log line or an error detail. */
export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
