// Tests run from the sources: they build the remote helper bundle fresh (scripts/buildShell.mjs --remote-helper)
// rather than trust a dist/ that may predate the code under test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../core/runtime/paths.js';

/** Builds the remote helper into a temporary folder and returns the file. */
export function buildRemoteHelperForTest(): string {
  const out = join(mkdtempSync(join(tmpdir(), 'overseer-remote-helper-')), 'remote.mjs');
  execFileSync(process.execPath, ['scripts/buildShell.mjs', '--remote-helper', out], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  return out;
}
