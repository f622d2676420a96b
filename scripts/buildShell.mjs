// Bundles what the desktop app runs without tsx: the Electron main process, its sandboxed preload,
// the helper and the CLI. Each bundle is self-contained (dependencies inlined) so it runs from
// app.asar or app.asar.unpacked alike; only Electron itself and native modules stay outside.
//
//   node scripts/buildShell.mjs                         everything, into dist/
//   node scripts/buildShell.mjs --remote-helper OUTFILE  only the ssh connections' remote helper (tests build their own)
import { cpSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
/** Never bundled: Electron's own module, native modules loaded from node_modules at run time, and
 * dbus-next's optional x11 session-bus lookup (not a dependency: Overseer passes the bus address). */
const external = ['electron', 'koffi', 'usocket', 'x11'];
// ESM bundles of CommonJS dependencies need a real `require` for Node's built-ins.
const requireShim = "import { createRequire as __overseerRequire } from 'node:module'; const require = __overseerRequire(import.meta.url);";

/**
 * The helper an ssh connection installs on the remote (docs/connections.md#the-helper-on-the-remote): ONE file that
 * needs no node_modules on Linux. x11 and dbus-next are inlined; koffi stays outside (it loads only on Windows paths the
 * remote never takes) and so does usocket (dbus-next's optional native socket: it falls back to net); the file is its
 * own encoder worker (helper/remoteMain.ts). The remote needs only Node.js 20.
 */
function buildRemoteHelper(outfile) {
  return build({
    entryPoints: ['helper/remoteMain.ts'],
    outfile,
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['koffi', 'usocket'],
    banner: { js: requireShim },
    logLevel: 'warning',
    legalComments: 'none',
  });
}

const remoteOnly = process.argv.indexOf('--remote-helper');
if (remoteOnly !== -1) {
  const out = process.argv[remoteOnly + 1];
  if (out === undefined) throw new Error('usage: node scripts/buildShell.mjs --remote-helper OUTFILE');
  await buildRemoteHelper(out);
  process.exit(0);
}

const node = { bundle: true, platform: 'node', target: 'node22', external, logLevel: 'warning', absWorkingDir: root, legalComments: 'none' };
const esm = { ...node, format: 'esm', outExtension: { '.js': '.mjs' }, banner: { js: requireShim } };

await Promise.all([
  // The helper's screen encoder runs on worker threads from its own bundle, beside the helper's (helper/screen/encoderPool.ts).
  build({
    ...esm,
    entryPoints: {
      'electron/main': 'main/electron/main.ts',
      'helper/main': 'helper/main.ts',
      'helper/encodeWorker': 'helper/screen/encodeWorker.ts',
      'cli/overseer': 'main/cli.ts',
    },
    outdir: 'dist',
  }),
  // A sandboxed preload is a CommonJS script that may require only `electron` (and a few built-ins).
  build({
    ...node,
    format: 'cjs',
    platform: 'browser',
    minify: true,
    entryPoints: { 'electron/preload': 'preload/preload.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
  }),
  // The helper ssh connections install on the remote: one file, no node_modules.
  buildRemoteHelper('dist/helper/remote.mjs'),
]);
// The demo's sample app is a Python file, run as a file: it sits next to the CLI bundle, where
// desktop/demoDesktop.ts looks for it (`./apps/` beside the running module).
cpSync(new URL('desktop/apps/', `file://${root}`), new URL('dist/cli/apps/', `file://${root}`), { recursive: true });
