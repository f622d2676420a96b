import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, OverseerError } from '../../../protocol/index.js';
import { appendAll, ensureFileMode, HEAD_BYTES, openFailure, syncDir, writeHead } from './files.js';
import {
  canonicalJSON,
  DEFAULT_MAX_BYTES,
  HEAD_FILE,
  listSegments,
  parseLine,
  readSegment,
  reason,
  RECORD_KINDS,
  recordHash,
  RESERVED_FIELDS,
  segmentName,
  type JournalRecord,
  type JournalRecordInput,
} from './records.js';
import { recoverJournal } from './recover.js';
import { fitRecord } from './recordBound.js';
import { redactForJournal } from './redact.js';

/** Options of Journal.open. */
export interface JournalOptions {
  /** A segment is closed and the next one started when a record would take it past this size (default 16 MiB). */
  maxBytes?: number;
  /** Receives `[journal]` lines: crash recoveries, repairs, rotations, write failures. */
  log?: (line: string) => void;
}

/** The segment being appended to. */
interface Current {
  no: number;
  fh: FileHandle | undefined;
  size: number;
}

/**
 * The receipts journal (docs/supervision.md#receipts-journal): one JSON line per tool call or approval event, hash-chained,
 * written and flushed before append resolves, so an acknowledged receipt survives a crash.
 * One process owns a journal directory at a time.
 */
export class Journal {
  /** Appends run one after another: the chain needs each record's predecessor. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Set after a failed write or flush: the file's state is unknown, so nothing more is appended. */
  private broken: OverseerError | undefined;
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly log: (line: string) => void,
    private readonly head: FileHandle,
    private last: { seq: number; hash: string },
    private current: Current,
  ) {}

  /** Opens (creating with mode 0700) a journal directory and continues its chain; startup failures name the path and reason. */
  static async open(dir: string, options: JournalOptions = {}): Promise<Journal> {
    const log = options.log ?? ((): void => {});
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw fail('invalid_argument', `journal maxBytes must be a positive integer, got ${maxBytes}`);
    const recovered = await recoverJournal(dir, log);
    const headPath = join(dir, HEAD_FILE);
    let head: FileHandle | undefined;
    let segment: FileHandle | undefined;
    try {
      // r+, never append mode: the head is rewritten in place at offset 0.
      head = await open(headPath, recovered.headExists ? 'r+' : 'wx+', 0o600);
      await ensureFileMode(head, headPath, log, !recovered.headExists);
      await writeHead(head, recovered.head);
      if ((await head.stat()).size !== HEAD_BYTES) {
        await head.truncate(HEAD_BYTES);
        await head.datasync();
      }
      if (!recovered.headExists) await syncDir(dir);
      if (recovered.current !== undefined) {
        const path = join(dir, segmentName(recovered.current.no));
        segment = await open(path, 'a');
        await ensureFileMode(segment, path, log);
      }
    } catch (error) {
      await head?.close().catch(() => undefined);
      await segment?.close().catch(() => undefined);
      throw error instanceof OverseerError ? error : openFailure(headPath, 'cannot open the head or the last segment', error);
    }
    const current = { no: recovered.current?.no ?? 0, fh: segment, size: recovered.current?.size ?? 0 };
    log(`[journal] opened ${dir} at seq ${recovered.last.seq}${current.no > 0 ? ` in ${segmentName(current.no)}` : ' (new)'}`);
    return new Journal(dir, maxBytes, log, head, recovered.last, current);
  }

  /** Appends one record; resolves once it and the head are flushed to disk. Concurrent calls keep their call order. */
  append(record: JournalRecordInput): Promise<JournalRecord> {
    let fields: Record<string, unknown>;
    try {
      fields = prepare(record);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.enqueue(() => this.write(fields));
  }

  /**
   * approval_pending records whose approval_id has no approval_resolved record, across all segments,
   * oldest first: after a crash nobody is waiting for them, so the supervisor answers them `expired`.
   */
  pendingApprovals(): Promise<JournalRecord[]> {
    return this.enqueue(async () => {
      if (this.closed) throw fail('internal', `journal ${this.dir} is closed`);
      const pending = new Map<string, JournalRecord>();
      let unreadable = 0;
      for (const segment of await listSegments(this.dir)) {
        for (const line of (await readSegment(this.dir, segment.name)).lines) {
          const record = parseLine(line);
          if (record === undefined) {
            unreadable++;
            continue;
          }
          const id = record['approval_id'];
          if (typeof id !== 'string') continue;
          if (record.kind === 'approval_pending') pending.set(id, record);
          else if (record.kind === 'approval_resolved') pending.delete(id);
        }
      }
      if (unreadable > 0) this.log(`[journal] ${unreadable} unreadable line(s) skipped while looking for pending approvals; run \`overseer journal verify\``);
      return [...pending.values()];
    });
  }

  /** Waits for queued appends, then closes the files; later appends are refused. */
  close(): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.current.fh?.close();
      await this.head.close();
    });
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(fields: Record<string, unknown>): Promise<JournalRecord> {
    if (this.closed) throw fail('internal', `journal ${this.dir} is closed`);
    if (this.broken !== undefined) throw this.broken;
    const base = { ...fields, seq: this.last.seq + 1, at: new Date().toISOString(), prev_hash: this.last.hash };
    const record = { ...base, hash: recordHash(base) } as JournalRecord;
    const bytes = Buffer.from(`${canonicalJSON(record)}\n`, 'utf8');
    try {
      if (this.current.fh === undefined || (this.current.size > 0 && this.current.size + bytes.length > this.maxBytes)) await this.rotate();
      const fh = this.current.fh as FileHandle;
      await appendAll(fh, bytes);
      this.current.size += bytes.length;
      await fh.datasync();
      await writeHead(this.head, { seq: record.seq, hash: record.hash, segment: segmentName(this.current.no) });
    } catch (error) {
      // After a failed write or fsync the file's contents are unknown (a partial line, a lost page):
      // appending more would build the chain on sand. Reopening recovers.
      this.broken = fail('internal', `journal ${this.dir} stopped after a write failure at seq ${record.seq}: ${reason(error)}`, { path: this.dir });
      this.log(`[journal] ${this.broken.info.detail}`);
      throw this.broken;
    }
    this.last = { seq: record.seq, hash: record.hash };
    return record;
  }

  /** Starts the next segment; the chain continues across it. */
  private async rotate(): Promise<void> {
    const from = this.current.fh === undefined ? undefined : segmentName(this.current.no);
    await this.current.fh?.close();
    this.current = { no: this.current.no + 1, fh: undefined, size: 0 };
    const name = segmentName(this.current.no);
    const path = join(this.dir, name);
    // ax: create, never reuse: a file already there is not ours to append to.
    const fh = await open(path, 'ax', 0o600);
    this.current.fh = fh;
    await ensureFileMode(fh, path, this.log, true);
    await syncDir(this.dir);
    if (from !== undefined) this.log(`[journal] ${from} reached ${this.maxBytes} bytes; continuing in ${name}`);
  }
}

/** Validates and freezes the caller's record: redacted, reduced to plain JSON, no reserved fields, within MAX_RECORD_BYTES. */
function prepare(input: JournalRecordInput): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw fail('invalid_argument', 'a journal record must be an object');
  if (!(RECORD_KINDS as readonly unknown[]).includes(input.kind))
    throw fail('invalid_argument', `unknown journal record kind ${JSON.stringify(input.kind)}`, { kinds: [...RECORD_KINDS] });
  let plain: unknown;
  try {
    // The JSON round trip is what makes the stored line, the hash and the returned record agree.
    plain = JSON.parse(JSON.stringify(redactForJournal(input)));
  } catch (error) {
    throw fail('invalid_argument', `a journal record must be JSON-serializable: ${reason(error)}`);
  }
  const fields = plain as Record<string, unknown>;
  const reserved = RESERVED_FIELDS.filter((k) => Object.hasOwn(fields, k));
  if (reserved.length > 0) throw fail('invalid_argument', `journal record sets fields the journal owns: ${reserved.join(', ')}`, { fields: reserved });
  return fitRecord(fields);
}
