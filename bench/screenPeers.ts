// The screen bench's peers: the command-line pipelines a script uses for a screenshot that fits
// 1280x800 (ImageMagick's import, or scrot, then convert -resize) and for a click (xdotool), spawned
// the way a script spawns them. ImageMagick by absolute path: another `convert` may come first on PATH.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';

export const IMPORT = '/usr/bin/import';
export const CONVERT = '/usr/bin/convert';
const PEER_TIMEOUT_MS = 60_000;

/** The executable `name` resolves to (PATH lookup unless absolute), or null when there is none. */
export function executable(name: string, searchPath = process.env['PATH'] ?? ''): string | null {
  const candidates = path.isAbsolute(name)
    ? [name]
    : searchPath
        .split(':')
        .filter((d) => d !== '')
        .map((d) => path.join(d, name));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

/** Collects a child's stdout; rejects on a non-zero exit or after the timeout (the child is killed by its pid). */
function finish(child: ChildProcess, what: string): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const out: Buffer[] = [];
    let err = '';
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), PEER_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, sig) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${what} exited ${sig ?? String(code)}: ${err.trim().slice(-500)}`));
    });
  });
}

/** Runs one command to its end; resolves with its stdout. */
export function runCommand(command: string, args: readonly string[], env: Record<string, string>): Promise<Buffer> {
  return finish(spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }), path.basename(command));
}

/** `a | b` without a shell: b's stdin is a's stdout pipe, as a shell would connect them. */
async function pipeline(a: readonly string[], b: readonly string[], env: Record<string, string>): Promise<Buffer> {
  const [aCmd = '', ...aArgs] = a;
  const [bCmd = '', ...bArgs] = b;
  const first = spawn(aCmd, aArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (first.stdout === null) throw new Error('no stdout pipe');
  const second = spawn(bCmd, bArgs, { env, stdio: [first.stdout, 'pipe', 'pipe'] });
  // b holds its own copy of the pipe now; ours must go, or we would read what b should, and an
  // early exit of b would leave a blocked on a pipe that still has a reader.
  first.stdout.destroy();
  const [, out] = await Promise.all([finish(first, path.basename(aCmd)), finish(second, path.basename(bCmd))]);
  return out;
}

/** A screenshot peer: what it needs installed, and one frame (a PNG fitted into 1280x800) on a display. */
export interface ScreenshotPeer {
  label: string;
  /** Executables and the Debian package each comes from. */
  needs: ReadonlyArray<{ executable: string; package: string }>;
  /** One frame; `scratch` is a folder for its temporary files, `i` numbers the frame. */
  frame(env: Record<string, string>, scratch: string, i: number): Promise<Buffer>;
}

const FIT = '1280x800';
const NEEDS_IMPORT = { executable: IMPORT, package: 'imagemagick' };
const NEEDS_CONVERT = { executable: CONVERT, package: 'imagemagick' };

export const SCREENSHOT_PEERS: readonly ScreenshotPeer[] = [
  {
    label: 'import | convert (piped)',
    needs: [NEEDS_IMPORT, NEEDS_CONVERT],
    frame: (env) => pipeline([IMPORT, '-window', 'root', 'png:-'], [CONVERT, 'png:-', '-resize', FIT, 'png:-'], env),
  },
  {
    label: 'import file; convert',
    needs: [NEEDS_IMPORT, NEEDS_CONVERT],
    async frame(env, scratch, i) {
      const file = path.join(scratch, `import-${i}.png`);
      await runCommand(IMPORT, ['-window', 'root', file], env);
      const out = await runCommand(CONVERT, [file, '-resize', FIT, 'png:-'], env);
      await rm(file, { force: true });
      return out;
    },
  },
  {
    label: 'scrot file; convert',
    needs: [{ executable: 'scrot', package: 'scrot' }, NEEDS_CONVERT],
    async frame(env, scratch, i) {
      const file = path.join(scratch, `scrot-${i}.png`);
      await runCommand('scrot', ['--overwrite', file], env);
      const out = await runCommand(CONVERT, [file, '-resize', FIT, 'png:-'], env);
      await rm(file, { force: true });
      return out;
    },
  },
];

/** The click peer: one process per click, as a script calls it. */
export const XDOTOOL = { executable: 'xdotool', package: 'xdotool' } as const;

/** `xdotool mousemove X Y click 1`, resolved once the process has exited. */
export function xdotoolClick(env: Record<string, string>, x: number, y: number): Promise<Buffer> {
  return runCommand('xdotool', ['mousemove', String(x), String(y), 'click', '1'], env);
}

/** The first missing executable of `needs` as "peer LABEL not installed: PACKAGE", or null. */
export function missingPeer(label: string, needs: ReadonlyArray<{ executable: string; package: string }>, searchPath?: string): string | null {
  const missing = needs.find((n) => executable(n.executable, searchPath) === null);
  return missing === undefined ? null : `peer ${label} not installed: ${missing.package}`;
}

/** Width and height from a PNG's IHDR, or null when `png` is no PNG. */
export function pngSize(png: Uint8Array): { width: number; height: number } | null {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.length < 24 || sig.some((b, i) => png[i] !== b)) return null;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
