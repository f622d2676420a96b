// Last-resort cleanup for crashed or aborted test runs: when this Node
// process exits (or dies of SIGINT/SIGTERM/SIGHUP) with desktops still
// running, SIGKILL their processes and remove their folders. Best effort and
// synchronous, because nothing asynchronous runs in an 'exit' handler.

import { rmSync } from 'node:fs';
import { killOwnedSync, type Ownership } from './procs.js';

/** A running desktop as the exit hooks see it. */
export interface CleanupEntry {
  own: Ownership;
  dir: string;
}

const liveDesktops = new Set<CleanupEntry>();
let hooksInstalled = false;

function emergencyCleanup(): void {
  for (const desktop of liveDesktops) {
    try {
      killOwnedSync(desktop.own);
    } catch {
      // best effort
    }
    try {
      rmSync(desktop.dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
  liveDesktops.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', emergencyCleanup);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = (): void => {
      // Someone else handles this signal: they decide when to exit, and the
      // 'exit' hook cleans up then.
      if (process.listenerCount(sig) > 1) return;
      emergencyCleanup();
      process.removeListener(sig, handler);
      // Keep the default behaviour: die of the signal.
      process.kill(process.pid, sig);
    };
    process.on(sig, handler);
  }
}

/** Clean up `entry` if this process exits before unregisterEmergencyCleanup(entry); installs the hooks once. */
export function registerEmergencyCleanup(entry: CleanupEntry): void {
  installHooks();
  liveDesktops.add(entry);
}

/** Forget `entry` (it was stopped the ordinary way); unknown entries are ignored. */
export function unregisterEmergencyCleanup(entry: CleanupEntry): void {
  liveDesktops.delete(entry);
}
