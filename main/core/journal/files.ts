import { chmod, mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { fail, type OverseerError } from '../../../protocol/index.js';
import { reason, type HeadState } from './records.js';

/**
 * Fixed size of the head file. Rewriting it in place at the same length keeps the file's size (and so
 * its metadata) unchanged, so a datasync is one small data write, and the write fits in one sector.
 */
export const HEAD_BYTES = 256;

/** Permission bits only matter (and only work) on POSIX systems. */
const POSIX = process.platform !== 'win32';

/** An open failure: a startup error that names the path and the reason. */
export function openFailure(path: string, why: string, error?: unknown): OverseerError {
  const cause = error === undefined ? '' : `: ${reason(error)}`;
  return fail('internal', `cannot open the journal at ${path}: ${why}${cause}`, { path, reason: `${why}${cause}` });
}

/** Makes a directory entry (a new segment or head) durable: fsync of the directory itself. */
export async function syncDir(dir: string): Promise<void> {
  // Windows cannot open a directory for syncing; NTFS journals its metadata itself.
  if (!POSIX) return;
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Creates the journal directory with mode 0700, or tightens an existing one that others can read. */
export async function ensureDir(dir: string, log: (line: string) => void): Promise<void> {
  try {
    const created = await mkdir(dir, { recursive: true, mode: 0o700 });
    const st = await stat(dir);
    if (!st.isDirectory()) throw new Error('not a directory');
    if (!POSIX) return;
    // mkdir's mode passes through the umask, and a directory made by someone else may be open to all.
    if ((st.mode & 0o777) !== 0o700) {
      await chmod(dir, 0o700);
      if (created === undefined) log(`[journal] ${dir} was mode ${(st.mode & 0o777).toString(8)}; set to 700 (receipts are private)`);
    }
  } catch (error) {
    throw openFailure(dir, 'cannot create or secure the directory', error);
  }
}

/** Sets a journal file to 0600 when it is not, logging the change when the file was not just made. */
export async function ensureFileMode(fh: FileHandle, path: string, log: (line: string) => void, quiet = false): Promise<void> {
  if (!POSIX) return;
  const mode = (await fh.stat()).mode & 0o777;
  if (mode === 0o600) return;
  await fh.chmod(0o600);
  if (!quiet) log(`[journal] ${path} was mode ${mode.toString(8)}; set to 600 (receipts are private)`);
}

/** The head as stored: JSON padded with spaces to HEAD_BYTES, ending in a newline. */
export function encodeHead(head: HeadState): Buffer {
  const json = JSON.stringify({ seq: head.seq, hash: head.hash, segment: head.segment });
  const buf = Buffer.alloc(HEAD_BYTES, ' ');
  const used = buf.write(json, 0, 'utf8');
  if (used !== Buffer.byteLength(json) || used >= HEAD_BYTES) throw new Error(`head does not fit in ${HEAD_BYTES} bytes: ${json}`);
  buf[HEAD_BYTES - 1] = 0x0a;
  return buf;
}

/** Rewrites the head in place and flushes it; the handle must not be in append mode. */
export async function writeHead(fh: FileHandle, head: HeadState): Promise<void> {
  const buf = encodeHead(head);
  const { bytesWritten } = await fh.write(buf, 0, buf.length, 0);
  if (bytesWritten !== buf.length) throw new Error(`short write of the head (${bytesWritten} of ${buf.length} bytes)`);
  await fh.datasync();
}

/** Writes every byte of `buf` at the end of an append-mode file (a short write is retried, not lost). */
export async function appendAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await fh.write(buf, offset, buf.length - offset);
    if (bytesWritten <= 0) throw new Error(`write made no progress after ${offset} of ${buf.length} bytes`);
    offset += bytesWritten;
  }
}
