// Where the Electron binary is, or why there is none. Never require('electron') to find out: its
// entry point tries to download the binary on first use.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The installed Electron binary under `root`, or a plain reason why it is missing. */
export function electronBinary(root) {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  const binary = process.env.OVERSEER_ELECTRON ?? (existsSync(pathFile) ? join(dir, 'dist', readFileSync(pathFile, 'utf8').trim()) : undefined);
  if (binary === undefined || !existsSync(binary)) return { why: "Electron's binary is not installed on this machine (it could not be downloaded)" };
  return { binary };
}
