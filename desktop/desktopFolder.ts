// The private folder every test desktop lives in (Xvfb's, GNOME's, KDE's): its logs and the XDG
// directories its programs use, so nothing of the person's own is read or written.

import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface DesktopFolder {
  dir: string;
  logs: string;
  xdg: { XDG_RUNTIME_DIR: string; XDG_CONFIG_HOME: string; XDG_CACHE_HOME: string; XDG_DATA_HOME: string; XDG_STATE_HOME: string };
}

/** Makes a fresh folder named `prefix…` with its logs and XDG directories, and `dirs` inside it, all 0700. */
export function makeDesktopFolder(prefix: string, dirs: (dir: string) => string[] = () => []): DesktopFolder {
  const base = os.tmpdir().length <= 40 ? os.tmpdir() : '/tmp'; // unix socket paths are limited to 107 bytes
  const dir = mkdtempSync(path.join(base, prefix));
  const logs = path.join(dir, 'logs');
  const xdg = {
    XDG_RUNTIME_DIR: path.join(dir, 'runtime'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_STATE_HOME: path.join(dir, 'state'),
  };
  for (const d of [logs, ...Object.values(xdg), ...dirs(dir)]) mkdirSync(d, { recursive: true, mode: 0o700 });
  return { dir, logs, xdg };
}
