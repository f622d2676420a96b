// The record of which processes a desktop owns, kept on disk as
// <dir>/pids.json after every change: `cli.ts stop <dir>` (and a person
// cleaning up by hand) can then stop a detached or orphaned desktop exactly,
// by pid and start time, without this Node process.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readCmdline, readStat, type Ownership, type RecordedProcess } from './procs.js';

/** Contents of <dir>/pids.json. */
export interface PidsFile {
  version: 1;
  dir: string;
  display: string;
  marker: string;
  startTicks: string;
  createdAt: string;
  processes: RecordedProcess[];
}

/** A desktop's Ownership, filled in as its processes start. */
export type DesktopOwnership = Ownership & { recorded: RecordedProcess[]; marker: string };

/** The growing record of one desktop's processes. */
export interface ProcessTracker {
  own: DesktopOwnership;
  /** Record `pid` (once; ignored if it is already gone) and rewrite pids.json. */
  track: (pid: number, role: string) => void;
}

function record(pid: number, role: string): RecordedProcess | null {
  const stat = readStat(pid);
  if (stat === null) return null;
  return { pid, startTime: stat.startTime, session: stat.session, role, command: readCmdline(pid) };
}

/** Start an empty record for the desktop in `dir`; `currentDisplay` is read whenever pids.json is written. */
export function createProcessTracker(dir: string, currentDisplay: () => string): ProcessTracker {
  // startTicks "0" until the first process is recorded; then the earliest start time.
  const own: DesktopOwnership = { recorded: [], marker: dir, startTicks: '0' };

  const writePids = (): void => {
    const file: PidsFile = {
      version: 1,
      dir,
      display: currentDisplay(),
      marker: dir,
      startTicks: own.startTicks,
      createdAt: new Date().toISOString(),
      processes: own.recorded,
    };
    try {
      writeFileSync(path.join(dir, 'pids.json'), `${JSON.stringify(file, null, 2)}\n`);
    } catch {
      // dir already removed
    }
  };

  const track = (pid: number, role: string): void => {
    if (own.recorded.some((r) => r.pid === pid)) return;
    const rec = record(pid, role);
    if (rec === null) return;
    own.recorded.push(rec);
    if (own.startTicks === '0' || BigInt(rec.startTime) < BigInt(own.startTicks)) own.startTicks = rec.startTime;
    writePids();
  };

  return { own, track };
}
