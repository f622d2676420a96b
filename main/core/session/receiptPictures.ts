// The pictures the receipts timeline shows: a small JPEG of the screen right after each screen
// input, kept in the data folder (a 0700 folder of 0600 files, like the journal), at most
// MAX_RECEIPTS of them, the oldest removed first. Pixels only: a password field shows its dots, and
// no text is ever written here. The journal keeps each picture's hash.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_RECEIPTS, fail } from '../../../protocol/index.js';

/** A receipt id as a file name: what receipts are issued as, nothing else. */
const RECEIPT_ID = /^R[A-Za-z0-9_-]{1,40}$/;

export class ReceiptPictures {
  private order: string[] | undefined;

  constructor(
    readonly dir: string,
    private readonly max = MAX_RECEIPTS,
  ) {}

  private async known(): Promise<string[]> {
    if (this.order !== undefined) return this.order;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    const names = (await readdir(this.dir)).filter((n) => n.endsWith('.jpg'));
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(join(this.dir, n))).mtimeMs })));
    this.order = dated.sort((a, b) => a.t - b.t).map((d) => d.n.slice(0, -4));
    return this.order;
  }

  /** Keeps one picture (base64 JPEG) for a receipt; answers its SHA-256. */
  async keep(receiptId: string, jpegBase64: string): Promise<string> {
    if (!RECEIPT_ID.test(receiptId)) throw fail('invalid_argument', 'not a receipt id');
    const order = await this.known();
    const bytes = Buffer.from(jpegBase64, 'base64');
    await writeFile(join(this.dir, `${receiptId}.jpg`), bytes, { mode: 0o600 });
    order.push(receiptId);
    while (order.length > this.max) {
      const old = order.shift();
      if (old !== undefined) await rm(join(this.dir, `${old}.jpg`), { force: true });
    }
    return createHash('sha256').update(bytes).digest('hex');
  }

  /** The picture of a receipt as a data: URL; not_found when none is kept. */
  async read(receiptId: string): Promise<string> {
    if (!RECEIPT_ID.test(receiptId)) throw fail('invalid_argument', `"${receiptId.slice(0, 60)}" is not a receipt id`);
    try {
      return `data:image/jpeg;base64,${(await readFile(join(this.dir, `${receiptId}.jpg`))).toString('base64')}`;
    } catch {
      throw fail('not_found', `no picture is kept for receipt ${receiptId}`);
    }
  }
}
