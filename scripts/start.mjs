// `npm start`: the desktop app; where it cannot run, one clear line and browser mode instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { electronBinary } from './electronBinary.mjs';

const root = new URL('..', import.meta.url).pathname;
const shell = join(root, 'dist', 'electron', 'main.mjs');
const args = process.argv.slice(2);

const { binary, why: missing } = electronBinary(root);
let why = missing;
if (why === undefined && !existsSync(shell)) why = 'the desktop shell is not built (dist/electron/main.mjs: run npm run build)';

const child =
  why === undefined
    ? spawn(binary, [root, ...args], { stdio: 'inherit' })
    : (process.stderr.write(`overseer: ${why}; starting browser mode instead: open the UI URL below.\n`),
      spawn(process.execPath, [join(root, 'bin', 'overseer.mjs'), 'serve', ...args], { stdio: 'inherit' }));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)));
