import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import { REPO_ROOT } from './paths.js';

describe('REPO_ROOT', () => {
  it('is the repository root when run from the sources', async () => {
    const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string };
    assert.equal(pkg.name, 'overseer');
    assert.ok(REPO_ROOT.endsWith('/'));
  });

  it('is two levels above a bundle that inlines it, as the shipped bundles in dist/<entry>/ do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'overseer-paths-'));
    try {
      const outfile = join(dir, 'dist', 'cli', 'bundle.mjs');
      await build({
        stdin: { contents: "export { REPO_ROOT } from './paths.ts';", resolveDir: import.meta.dirname, loader: 'ts' },
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile,
        logLevel: 'silent',
      });
      const bundled = (await import(pathToFileURL(outfile).href)) as { REPO_ROOT: string };
      assert.equal(bundled.REPO_ROOT, `${dir}/`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
