import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { spawnHelper } from './helperProcess.js';
import { REPO_ROOT } from '../runtime/paths.js';

/** What the child writes: numbered lines, far past the 64 KiB kept. */
const LINES = 20_000;
const line = (i: number): string => `line ${String(i).padStart(6, '0')}\n`;
const WRITTEN = Array.from({ length: LINES }, (_, i) => line(i)).join('');
const CHILD = `const line = (i) => 'line ' + String(i).padStart(6, '0') + '\\n'; let s = ''; for (let i = 0; i < ${LINES}; i++) s += line(i); process.stderr.write(s, () => process.exit(0));`;

describe('helper process stderr', () => {
  it('keeps only the last 64 KiB of what the helper writes on stderr', async () => {
    assert.ok(WRITTEN.length > 3 * 64 * 1024);
    const helper = spawnHelper(process.env, { file: process.execPath, args: ['-e', CHILD], cwd: REPO_ROOT });
    try {
      await once(helper.child, 'close');
      const kept = helper.stderr();
      assert.equal(kept.length, 64 * 1024, 'bounded, and full up to the bound');
      assert.equal(kept, WRITTEN.slice(-64 * 1024), 'the latest output, in order');
    } finally {
      helper.child.kill();
    }
  });
});

describe('helper process stderr decoding', () => {
  it('keeps a character whole when the helper writes it in two pieces', async () => {
    // "ж" is two bytes in UTF-8 (d0 b6): they arrive in two chunks, 50 ms apart.
    const child = `process.stderr.write(Buffer.from([0xd0])); setTimeout(() => process.stderr.write(Buffer.from([0xb6, 0x0a]), () => process.exit(0)), 50);`;
    const helper = spawnHelper(process.env, { file: process.execPath, args: ['-e', child], cwd: REPO_ROOT });
    try {
      await once(helper.child, 'close');
      assert.equal(helper.stderr(), 'ж\n');
    } finally {
      helper.child.kill();
    }
  });
});

describe('helper process stderr lines', () => {
  it('hands each line over whole, even when it arrives in pieces, and the last one without a newline', async () => {
    const child = `process.stderr.write('[helper] first li'); setTimeout(() => process.stderr.write('ne\\n[helper] second\\n[helper] last', () => process.exit(0)), 50);`;
    const helper = spawnHelper(process.env, { file: process.execPath, args: ['-e', child], cwd: REPO_ROOT });
    const lines: string[] = [];
    helper.onStderrLine = (line) => lines.push(line);
    try {
      await once(helper.child, 'close');
      assert.deepEqual(lines, ['[helper] first line', '[helper] second', '[helper] last']);
    } finally {
      helper.child.kill();
    }
  });
});
