// The test entry of `overseer serve`: the same command, with a test's connection targets in place of
// the real transports. Desktop tests start it through serveHarness.ts (its `targets` option) as
// `node --import tsx main/testing/serveWithTargets.ts <name> [serve's flags]`; the product's entry
// (bin/overseer.mjs) has no way to hand serve a factory.
import { serve } from '../commands/serve.js';
import type { TargetFactory } from '../core/connections/makeTarget.js';
import { testBundleTargets } from './sshBundleTarget.js';
import { standInTargets } from './standInTarget.js';

const TARGETS = { 'stand-in': standInTargets, 'ssh-bundle': testBundleTargets } satisfies Record<string, TargetFactory>;

/** The factories this entry can give serve: a second private desktop as the remote, or ssh with the test's helper bundle. */
export type TestTargets = keyof typeof TARGETS;

const [name = '', ...argv] = process.argv.slice(2);
if (!Object.hasOwn(TARGETS, name)) {
  process.stderr.write(`usage: serveWithTargets.ts ${Object.keys(TARGETS).join('|')} [serve's flags]\n`);
  process.exit(2);
}
serve(argv, { makeTarget: TARGETS[name as TestTargets] }).catch((error: unknown) => {
  process.stderr.write(`overseer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
