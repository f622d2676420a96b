// The RemoteDesktop portal's restore token, kept in the data dir (0600) so the next helper starts
// its session without a dialog (docs/wayland.md#consent). Written atomically; a token that cannot
// be read is no token (the desktop asks again), never an error.

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TokenStore } from './remoteDesktopPortal.js';

export const TOKEN_FILE = 'wayland-remote-desktop.token';
/** A restore token is a UUID; anything much longer is not one. */
const MAX_TOKEN = 256;

/** The store in `dataDir`, or one that keeps nothing when there is no data dir (the token lasts as long as the helper). */
export function tokenFile(dataDir: string | undefined, log: (line: string) => void): TokenStore {
  if (dataDir === undefined || dataDir === '') {
    let kept: string | undefined;
    return { load: () => kept, save: (token) => void (kept = token) };
  }
  const file = path.join(dataDir, TOKEN_FILE);
  return {
    load() {
      try {
        const token = readFileSync(file, 'utf8').trim();
        return token !== '' && token.length <= MAX_TOKEN ? token : undefined;
      } catch {
        return undefined;
      }
    },
    save(token) {
      try {
        if (token === undefined) {
          rmSync(file, { force: true });
          return;
        }
        mkdirSync(dataDir, { recursive: true, mode: 0o700 });
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, `${token}\n`, { mode: 0o600 });
        renameSync(temp, file);
      } catch (error) {
        log(`[wayland] the restore token could not be kept: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}
