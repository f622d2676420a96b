// Runs the test suite with Node's test runner: unit tests (*.test.ts) and desktop tests
// (*.desktop.test.ts, which start their own private test desktop). Prints the runner's summary.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { register } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const skip = new Set(['node_modules', 'dist', 'release', '.git', '.artifacts', '.cache']);

/** Every file under dir whose name ends with suffix. */
function find(dir, suffix, out = []) {
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, suffix, out);
    else if (name.endsWith(suffix)) out.push(relative(root, path));
  }
  return out.sort();
}

const mode = process.argv[2] ?? '--all';
const all = find(root, '.test.ts');
const desktop = all.filter((f) => f.endsWith('.desktop.test.ts'));
const unit = all.filter((f) => !f.endsWith('.desktop.test.ts'));
const files = mode === '--unit' ? unit : mode === '--desktop' ? desktop : [...unit, ...desktop];
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
if (files.some((f) => f.endsWith('.desktop.test.ts'))) {
  // The desktop tests start a private desktop and real apps: name what the system lacks, and the fix.
  register();
  const { missingPackagesHint } = await import('../desktop/systemPackages.ts');
  const hint = missingPackagesHint(true);
  if (hint !== undefined) {
    console.error(`[tests] the desktop tests cannot run: ${hint} (npm run test:unit runs the unit tests alone)`);
    process.exit(1);
  }
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', '--test-timeout=300000', ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
