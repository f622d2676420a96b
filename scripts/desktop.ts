// The private desktop from the command line (npm run desktop).
//
//   npx tsx scripts/desktop.ts run [--width W] [--height H] -- <cmd> [args...]
//       start a desktop, run <cmd> in it (stdio inherited), stop the desktop,
//       exit with <cmd>'s exit code (128+N if it died of signal N).
//   npx tsx scripts/desktop.ts start [--width W] [--height H]
//       start a detached desktop; print `export VAR=...` lines for the shell
//       (`eval "$(npx tsx scripts/desktop.ts start)"`) and the stop command.
//   npx tsx scripts/desktop.ts stop <dir>
//       stop the desktop recorded in <dir>/pids.json (pids whose /proc start
//       time still matches, and the members of their sessions) and remove <dir>.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { MARKER_VAR, collectOwned, readStat, terminateOwned, type RecordedProcess } from '../desktop/procs.js';
import { DESKTOP_DIR_PREFIX, startPrivateDesktop, type PidsFile } from '../desktop/privateDesktop.js';

const USAGE = `usage:
  npx tsx scripts/desktop.ts run [--width W] [--height H] -- <cmd> [args...]
  npx tsx scripts/desktop.ts start [--width W] [--height H]
  npx tsx scripts/desktop.ts stop <dir>`;

class UsageError extends Error {}

function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function parseSize(args: string[]): { width?: number; height?: number; rest: string[] } {
  const result: { width?: number; height?: number; rest: string[] } = { rest: [] };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      result.rest = args.slice(i + 1);
      return result;
    }
    if (arg === '--width' || arg === '--height') {
      const value = Number(args[i + 1]);
      if (!Number.isInteger(value) || value <= 0) throw new UsageError(`${arg} needs a positive integer`);
      if (arg === '--width') result.width = value;
      else result.height = value;
      i += 1;
      continue;
    }
    result.rest = args.slice(i);
    return result;
  }
  return result;
}

function sizeOptions(parsed: { width?: number; height?: number }): { width?: number; height?: number } {
  return {
    ...(parsed.width !== undefined ? { width: parsed.width } : {}),
    ...(parsed.height !== undefined ? { height: parsed.height } : {}),
  };
}

async function cmdRun(args: string[]): Promise<number> {
  const parsed = parseSize(args);
  const [command, ...commandArgs] = parsed.rest;
  if (command === undefined) throw new UsageError('run: missing command after --');

  const desktop = await startPrivateDesktop(sizeOptions(parsed));
  let code: number;
  try {
    const child = spawn(command, commandArgs, { env: desktop.env, stdio: 'inherit' });
    // Keep running until the command has exited, then stop the desktop.
    // SIGINT (Ctrl-C) already reaches the command through the terminal's
    // process group, so it is only held off here; SIGTERM/SIGHUP are passed on.
    const forwarders = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => {
      const handler = (): void => {
        if (sig !== 'SIGINT') child.kill(sig);
      };
      process.on(sig, handler);
      return { sig, handler };
    });
    code = await new Promise<number>((resolve) => {
      child.once('error', (error) => {
        process.stderr.write(`cli run: cannot start ${command}: ${error.message}\n`);
        resolve(127);
      });
      child.once('exit', (exitCode, sig) => {
        if (exitCode !== null) resolve(exitCode);
        else resolve(128 + (sig !== null ? (osConstants.signals[sig] ?? 0) : 0));
      });
    });
    for (const { sig, handler } of forwarders) process.removeListener(sig, handler);
  } finally {
    await desktop.stop();
  }
  return code;
}

async function cmdStart(args: string[]): Promise<number> {
  const parsed = parseSize(args);
  if (parsed.rest.length > 0) throw new UsageError(`start: unexpected argument ${parsed.rest[0] ?? ''}`);
  const desktop = await startPrivateDesktop({ ...sizeOptions(parsed), detached: true });
  const lines: string[] = [];
  for (const [key, value] of Object.entries(desktop.env)) {
    if (key === MARKER_VAR) continue; // internal: marks processes the desktop itself started
    if (process.env[key] !== value) lines.push(`export ${key}=${shellQuote(value)}`);
  }
  for (const key of Object.keys(process.env)) {
    if (!(key in desktop.env)) lines.push(`unset ${key}`);
  }
  lines.push(`# a11y bus: ${desktop.a11yBusAddress}`);
  lines.push(`# stop with: npx tsx scripts/desktop.ts stop ${shellQuote(desktop.dir)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function isRecorded(value: unknown): value is RecordedProcess {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r['pid'] === 'number' &&
    Number.isInteger(r['pid']) &&
    r['pid'] > 1 &&
    typeof r['startTime'] === 'string' &&
    /^\d+$/.test(r['startTime']) &&
    typeof r['session'] === 'number' &&
    typeof r['role'] === 'string' &&
    typeof r['command'] === 'string'
  );
}

async function cmdStop(args: string[]): Promise<number> {
  const [dirArg, extra] = args;
  if (dirArg === undefined || extra !== undefined) throw new UsageError('stop: expected exactly one <dir>');
  if (!existsSync(dirArg)) {
    process.stderr.write(`cli stop: ${dirArg} does not exist (already stopped?)\n`);
    return 1;
  }
  const dir = realpathSync(dirArg);
  if (!path.basename(dir).startsWith(DESKTOP_DIR_PREFIX)) {
    throw new UsageError(`stop: ${dir} is not a private desktop folder (${DESKTOP_DIR_PREFIX}*)`);
  }
  let file: PidsFile;
  try {
    file = JSON.parse(readFileSync(path.join(dir, 'pids.json'), 'utf8')) as PidsFile;
  } catch (error) {
    process.stderr.write(`cli stop: cannot read ${dir}/pids.json: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (file.version !== 1 || file.dir !== dir || !Array.isArray(file.processes) || typeof file.startTicks !== 'string' || !/^\d+$/.test(file.startTicks)) {
    process.stderr.write(`cli stop: ${dir}/pids.json does not describe this folder; not touching anything\n`);
    return 1;
  }
  const recorded = file.processes.filter(isRecorded);
  const own = { recorded, marker: dir, startTicks: file.startTicks };
  const xvfb = recorded.filter((r) => r.role === 'Xvfb' && readStat(r.pid)?.startTime === r.startTime).map((r) => r.pid);
  const before = collectOwned(own);
  const left = await terminateOwned(own, { graceMs: 2000, last: xvfb });
  for (const p of before) process.stderr.write(`stopped ${p.pid} ${p.comm}\n`);
  if (left.length > 0) {
    process.stderr.write(`cli stop: still alive: ${left.map((p) => `${p.pid} ${p.comm}`).join(', ')}\n`);
    return 1;
  }
  await rm(dir, { recursive: true, force: true });
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return cmdRun(rest);
    case 'start':
      return cmdStart(rest);
    case 'stop':
      return cmdStop(rest);
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      throw new UsageError(command === undefined ? 'missing command' : `unknown command ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
