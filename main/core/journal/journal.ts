import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, OverseerError } from '../../../protocol/index.js';
import { appendAll, ensureFileMode, HEAD_BYTES, openFailure, syncDir, writeHead } from './files.js';
import {
  canonicalJSON,
  DEFAULT_MAX_BYTES,
  HEAD_FILE,
  listSegments,
  MAX_BATCH,
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

/** An append waiting for the next group commit. */
interface Waiting {
  fields: Record<string, unknown>;
  resolve: (record: JournalRecord) => void;
  reject: (error: unknown) => void;
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
  /** Writes run one after another: the chain needs each record's predecessor. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Appends waiting for the next group commit: urgent ones (brakes) go first. */
  private readonly urgent: Waiting[] = [];
  private readonly waiting: Waiting[] = [];
  private committing = false;
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

  /**
   * Appends one record; resolves once it and the head are flushed to disk. Appends made while a
   * write is under way are written together, with one flush (group commit), so a flood of calls
   * costs one fsync per batch, not one per record. Concurrent calls keep their call order, except
   * that an `urgent` record (a brake) goes ahead of those still waiting: a person's Stop is on disk
   * within one batch, however many records an agent's flood queued before it.
   */
  append(record: JournalRecordInput, options: { urgent?: boolean } = {}): Promise<JournalRecord> {
    let fields: Record<string, unknown>;
    try {
      fields = prepare(record);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<JournalRecord>((resolve, reject) => {
      (options.urgent === true ? this.urgent : this.waiting).push({ fields, resolve, reject });
      this.commitSoon();
    });
  }

  /** Schedules one group commit of what is waiting, behind any write under way. */
  private commitSoon(): void {
    if (this.committing) return;
    this.committing = true;
    void this.enqueue(async () => {
      this.committing = false;
      const batch = [...this.urgent.splice(0, MAX_BATCH)];
      batch.push(...this.waiting.splice(0, MAX_BATCH - batch.length));
      if (this.urgent.length + this.waiting.length > 0) this.commitSoon();
      await this.writeBatch(batch);
    });
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

  /** Writes a batch of records, one flush for each segment it touches, then the head; settles each record's append. */
  private async writeBatch(batch: readonly Waiting[]): Promise<void> {
    if (batch.length === 0) return;
    const refused = this.closed ? fail('internal', `journal ${this.dir} is closed`) : this.broken;
    if (refused !== undefined) {
      for (const w of batch) w.reject(refused);
      return;
    }
    const at = new Date().toISOString();
    let last = this.last;
    const records: JournalRecord[] = [];
    let lines: Buffer[] = [];
    let pending = 0;
    const flush = async (): Promise<void> => {
      if (lines.length === 0) return;
      const fh = this.current.fh as FileHandle;
      await appendAll(fh, lines.length === 1 ? (lines[0] as Buffer) : Buffer.concat(lines));
      this.current.size += pending;
      await fh.datasync();
      lines = [];
      pending = 0;
    };
    try {
      for (const w of batch) {
        const base = { ...w.fields, seq: last.seq + 1, at, prev_hash: last.hash };
        const record = { ...base, hash: recordHash(base) } as JournalRecord;
        const bytes = Buffer.from(`${canonicalJSON(record)}\n`, 'utf8');
        const size = this.current.size + pending;
        if (this.current.fh === undefined || (size > 0 && size + bytes.length > this.maxBytes)) {
          await flush();
          await this.rotate();
        }
        lines.push(bytes);
        pending += bytes.length;
        records.push(record);
        last = { seq: record.seq, hash: record.hash };
      }
      await flush();
      await writeHead(this.head, { seq: last.seq, hash: last.hash, segment: segmentName(this.current.no) });
    } catch (error) {
      // After a failed write or fsync the file's contents are unknown (a partial line, a lost page):
      // appending more would build the chain on sand. Reopening recovers.
      this.broken = fail('internal', `journal ${this.dir} stopped after a write failure at seq ${this.last.seq + 1}: ${reason(error)}`, { path: this.dir });
      this.log(`[journal] ${this.broken.info.detail}`);
      for (const w of batch) w.reject(this.broken);
      return;
    }
    this.last = last;
    batch.forEach((w, i) => w.resolve(records[i] as JournalRecord));
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
