// The helper an ssh connection installs on the remote (docs/connections.md#the-helper-on-the-remote):
// ONE file that needs no node_modules on Linux. x11 and dbus-next are inlined; koffi stays outside
// (it loads only on Windows paths the remote never takes); the file is its own encoder worker
// (helper/remoteMain.ts). `npm run build` writes dist/helper/remote.mjs; tests build their own copy:
//
//   node scripts/buildRemoteHelper.mjs OUTFILE
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// ESM bundles of CommonJS dependencies need a real `require` for Node's built-ins.
const requireShim = "import { createRequire as __overseerRequire } from 'node:module'; const require = __overseerRequire(import.meta.url);";

/** Builds the remote helper into `outfile`. */
export async function buildRemoteHelper(outfile) {
  await build({
    entryPoints: ['helper/remoteMain.ts'],
    outfile,
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // The remote needs only Node.js 20.
    target: 'node20',
    // koffi: Windows only, never loaded on Linux; usocket: dbus-next's optional native socket (it falls back to net).
    external: ['koffi', 'usocket'],
    banner: { js: requireShim },
    logLevel: 'warning',
    legalComments: 'none',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (out === undefined) {
    console.error('usage: node scripts/buildRemoteHelper.mjs OUTFILE');
    process.exit(2);
  }
  await buildRemoteHelper(out);
}
