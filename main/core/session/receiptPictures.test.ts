import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { ReceiptPictures } from './receiptPictures.js';

describe('receipt pictures', () => {
  it('keeps private files, bounded, oldest out first, and reads only receipt ids', async () => {
    const root = await mkdtemp(join(tmpdir(), 'overseer-pictures-'));
    try {
      const dir = join(root, 'pictures');
      const pictures = new ReceiptPictures(dir, 3);
      for (const id of ['Ra', 'Rb', 'Rc', 'Rd']) await pictures.keep(id, Buffer.from(id).toString('base64'));
      assert.deepEqual((await readdir(dir)).sort(), ['Rb.jpg', 'Rc.jpg', 'Rd.jpg']);
      assert.equal((await stat(dir)).mode & 0o777, 0o700);
      assert.equal((await stat(join(dir, 'Rd.jpg'))).mode & 0o777, 0o600);
      assert.equal(await pictures.read('Rd'), `data:image/jpeg;base64,${Buffer.from('Rd').toString('base64')}`);
      await assert.rejects(pictures.read('Ra'), (e: unknown) => e instanceof OverseerError && e.code === 'not_found');
      await assert.rejects(pictures.read('../journal/x'), (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument');
      // A new process finds what the last one kept and goes on bounding it (by file time: the three were written within the same moment).
      const again = new ReceiptPictures(dir, 3);
      await again.keep('Re', 'AA==');
      const left = await readdir(dir);
      assert.equal(left.length, 3);
      assert.ok(left.includes('Re.jpg'));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
