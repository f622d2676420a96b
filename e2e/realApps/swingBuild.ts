// The Swing fixture's build: Debian's OpenJDK 17 paths, and SwingForm.java compiled once per
// content into .cache/realApps (gitignored), so a run pays javac (~2 s) only after the source changes.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SWING_FORM_SOURCE } from './documents.js';

const run = promisify(execFile);

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const DEB_ARCH: Partial<Record<string, { jvm: string; multiarch: string }>> = {
  x64: { jvm: 'amd64', multiarch: 'x86_64-linux-gnu' },
  arm64: { jvm: 'arm64', multiarch: 'aarch64-linux-gnu' },
};

/** Debian's OpenJDK 17 and the ATK wrapper's native library folder on this machine. */
export function javaPaths(): { bin: string; jni: string } {
  const arch = DEB_ARCH[process.arch];
  if (arch === undefined) throw new Error(`[realApps] Swing: no Debian OpenJDK path known for ${process.arch}`);
  return { bin: `/usr/lib/jvm/java-17-openjdk-${arch.jvm}/bin`, jni: `/usr/lib/${arch.multiarch}/jni` };
}

/** Compile SwingForm.java once per content into .cache/realApps/swing-<hash>; returns the class folder. */
export async function compiledSwingForm(javac: string): Promise<string> {
  const source = readFileSync(SWING_FORM_SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cache = path.join(REPO_ROOT, '.cache', 'realApps');
  const classes = path.join(cache, `swing-${hash}`);
  if (existsSync(path.join(classes, 'SwingForm.class'))) return classes;
  mkdirSync(cache, { recursive: true });
  const partial = mkdtempSync(path.join(cache, 'swing-partial-'));
  try {
    await run(javac, ['-d', partial, SWING_FORM_SOURCE], { timeout: 60_000 });
    renameSync(partial, classes); // atomic; another run that got there first wins (ENOTEMPTY)
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(path.join(classes, 'SwingForm.class'))) throw error;
  }
  return classes;
}
