// `npm start`: the desktop app; where it cannot run, one clear line and browser mode instead.
// Never require('electron') here: its entry tries to download the binary on first use.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const electronDir = join(root, 'node_modules', 'electron');
const pathFile = join(electronDir, 'path.txt');
const binary = existsSync(pathFile) ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : undefined;
const shell = join(root, 'dist', 'electron', 'main.js');
const args = process.argv.slice(2);

let why;
if (binary === undefined || !existsSync(binary)) why = "Electron's binary is not installed on this machine (it could not be downloaded)";
else if (!existsSync(shell)) why = 'the desktop shell is not built (dist/electron/main.js)';

const child =
  why === undefined
    ? spawn(binary, [shell, ...args], { stdio: 'inherit' })
    : (process.stderr.write(`overseer: ${why}; starting browser mode instead: open the UI URL below.\n`), spawn(process.execPath, [join(root, 'bin', 'overseer.mjs'), 'serve', ...args], { stdio: 'inherit' }));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)));
