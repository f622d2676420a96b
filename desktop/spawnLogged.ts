// Spawning the desktop's processes with their output in log files, and
// reading those logs back when something fails to start.
//
// Output goes to files rather than pipes: nobody has to drain a pipe (a full
// one would block the child), the logs survive a crashed test run, and
// detached processes (`cli.ts start`) keep no handle into this process.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A child started by spawnLogged. */
export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** Exit code; null when it died of a signal or could not be started. */
  exited: Promise<number | null>;
  hasExited: () => boolean;
  /** <logBase>.out.log and <logBase>.err.log. */
  logFiles: string[];
}

/**
 * Spawn `command` in its own session (setsid) with stdout/stderr appended to
 * <logBase>.{out,err}.log; resolves once it runs. With `detachedDesktop`, the
 * child is unref'd so this Node process can exit while it lives on.
 */
export async function spawnLogged(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  logBase: string,
  detachedDesktop: boolean,
): Promise<Spawned> {
  const outFile = `${logBase}.out.log`;
  const errFile = `${logBase}.err.log`;
  const out = openSync(outFile, 'a');
  const err = openSync(errFile, 'a');
  let child: ChildProcess;
  try {
    // detached: own session, so stop() can find everything it starts later.
    child = spawn(command, [...args], { env, detached: true, stdio: ['ignore', out, err] });
  } finally {
    // The child holds its own copies of the descriptors.
    closeSync(out);
    closeSync(err);
  }
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      done = true;
      resolve(code);
    });
    child.once('error', () => {
      done = true;
      resolve(null);
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (error) => reject(new Error(`cannot start ${command}: ${error.message}`)));
  });
  if (child.pid === undefined) throw new Error(`cannot start ${command}: no pid`);
  if (detachedDesktop) child.unref();
  return { child, pid: child.pid, exited, hasExited: () => done, logFiles: [outFile, errFile] };
}

/** The last `maxChars` of each non-empty log file, labelled, for error messages. */
export function logTail(files: readonly string[], maxChars = 2000): string {
  const parts: string[] = [];
  for (const file of files) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (text.trim().length === 0) continue;
    const tail = text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
    parts.push(`--- ${path.basename(file)} (tail) ---\n${tail.trimEnd()}`);
  }
  return parts.length > 0 ? parts.join('\n') : '(no output in logs)';
}
