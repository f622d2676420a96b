// Loaded into `overseer serve` with `node --import` by desktop tests that reach a private sshd: the
// ssh connections of that supervisor install the remote helper bundle the test built from the
// sources (OVERSEER_TEST_REMOTE_HELPER) instead of dist/helper/remote.mjs, which a test must not
// trust to match the code under test. Everything else is the real transport (makeTarget).
// serve.ts picks the factory up from the same hook as standInTarget.ts; nothing else sets it.
import { makeTarget, type TargetFactory } from '../core/connections/makeTarget.js';
import { sshTarget } from '../core/connections/sshTarget.js';

const bundle = process.env['OVERSEER_TEST_REMOTE_HELPER'];

const withTestBundle: TargetFactory = (config, context) =>
  config.kind === 'ssh' && bundle !== undefined ? sshTarget(config, { dataDir: context.dataDir, log: context.log, bundle }) : makeTarget(config, context);

// The symbol standInTarget.ts exports as STAND_IN_TARGETS (importing it would set its own factory first).
(globalThis as Record<symbol, unknown>)[Symbol.for('overseer.test.standInTargets')] = withTestBundle;
