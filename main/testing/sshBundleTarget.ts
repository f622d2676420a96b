// For desktop tests that reach a private sshd: the ssh connections of their supervisor install the
// remote helper bundle the test built from the sources (OVERSEER_TEST_REMOTE_HELPER) instead of
// dist/helper/remote.mjs, which a test must not trust to match the code under test. Everything else
// is the real transport (makeTarget). serveWithTargets.ts hands the factory to `overseer serve`
// (its `ssh-bundle` targets).
import { makeTarget, type TargetFactory } from '../core/connections/makeTarget.js';
import { sshTarget } from '../core/connections/sshTarget.js';

const bundle = process.env['OVERSEER_TEST_REMOTE_HELPER'];

/** The real targets, but ssh connections install the test's helper bundle. */
export const testBundleTargets: TargetFactory = (config, context) =>
  config.kind === 'ssh' && bundle !== undefined ? sshTarget(config, { dataDir: context.dataDir, log: context.log, bundle }) : makeTarget(config, context);
