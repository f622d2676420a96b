// A started private desktop as its users (demo, tests, benches) use it: launch apps into it, wait for
// their windows, stop it. startPrivateDesktop (privateDesktop.ts) assembles the
// parts and hands them to makeDesktop.

import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageBus } from 'dbus-next';
import { createWindowWaiter, DEFAULT_WINDOW_TIMEOUT_MS, describeTitle, type FoundWindow } from './a11yWindows.js';
import { unregisterEmergencyCleanup, type CleanupEntry } from './emergencyCleanup.js';
import { readStat, signal, terminateOwned, type Ownership, type RecordedProcess } from './procs.js';
import { logTail, spawnLogged } from './spawnLogged.js';

/** A running private desktop, as startPrivateDesktop returns it. */
export interface PrivateDesktop {
  /** X display of the private Xvfb, e.g. ":57". */
  display: string;
  /** Private folder: XDG dirs, session bus socket, logs/, pids.json. Removed by stop(). */
  dir: string;
  /**
   * Environment for child processes: process.env plus DISPLAY,
   * DBUS_SESSION_BUS_ADDRESS, XDG_{RUNTIME_DIR,CONFIG_HOME,CACHE_HOME,DATA_HOME,STATE_HOME},
   * GDK_BACKEND=x11, GSETTINGS_BACKEND=keyfile (seeded), QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1,
   * ACCESSIBILITY_ENABLED=1 and OVERSEER_TEST_DESKTOP=<dir> (marks processes
   * that stop() ends); without NO_AT_BRIDGE, GTK_A11Y, AT_SPI_BUS_ADDRESS,
   * WAYLAND_DISPLAY, SESSION_MANAGER, DBUS_STARTER_*. HOME is kept.
   */
  env: Record<string, string>;
  /** Answer of org.a11y.Bus.GetAddress on the private session bus. */
  a11yBusAddress: string;
  /**
   * Spawn `command` in its own session with `env` (+ options.env); stdout and
   * stderr go to <dir>/logs/app<N>-<name>.{out,err}.log. With waitForWindow,
   * resolves once a window of that process (or of its session) with that
   * name is on the a11y bus; rejects (and stops the app) with the log tail if
   * the app exits first or timeoutMs (default 15 s) passes.
   */
  launch(
    command: string,
    args?: string[],
    options?: { env?: Record<string, string>; waitForWindow?: string | RegExp; timeoutMs?: number },
  ): Promise<LaunchedApp>;
  /**
   * Poll registry root -> applications -> their top-level children for a
   * frame/window/dialog/alert/file chooser whose Name equals `title` (string)
   * or matches it (RegExp). Any app; default timeout 15 s.
   */
  waitForWindow(title: string | RegExp, timeoutMs?: number): Promise<{ busName: string; path: string; pid: number }>;
  /** Stop every launched app and every desktop process (by pid), remove dir. Idempotent. */
  stop(): Promise<void>;
}

/** An app started by PrivateDesktop.launch. */
export interface LaunchedApp {
  pid: number;
  /** SIGTERM to the app's process group, SIGKILL after 3 s, then sweep its session. Idempotent. */
  stop(): Promise<void>;
  /** Exit code; null when it died of a signal. */
  exited: Promise<number | null>;
}

/** Everything makeDesktop needs from a desktop whose processes are all up. */
export interface DesktopParts {
  dir: string;
  display: string;
  env: Record<string, string>;
  a11yBusAddress: string;
  a11yConn: MessageBus;
  own: Ownership & { recorded: RecordedProcess[] };
  xvfbPid: number;
  logs: string;
  detached: boolean;
  hookEntry: CleanupEntry;
  track: (pid: number, role: string) => void;
}

/** Wrap the started parts into the PrivateDesktop handle; from here on its stop() owns the cleanup. */
export function makeDesktop(parts: DesktopParts): PrivateDesktop {
  const { dir, display, env, a11yBusAddress, a11yConn, own, xvfbPid, logs, detached, hookEntry, track } = parts;
  const apps = new Set<LaunchedApp>();
  let stopping: Promise<void> | null = null;
  let appSeq = 0;

  const waitForWindowImpl = createWindowWaiter(a11yConn, display, () => stopping !== null);

  const waitForWindow = (title: string | RegExp, timeoutMs = DEFAULT_WINDOW_TIMEOUT_MS): Promise<FoundWindow> =>
    waitForWindowImpl(
      title,
      timeoutMs,
      () => true,
      () => null,
    );

  const launch = async (
    command: string,
    args: string[] = [],
    options: { env?: Record<string, string>; waitForWindow?: string | RegExp; timeoutMs?: number } = {},
  ): Promise<LaunchedApp> => {
    if (stopping !== null) throw new Error('launch: the desktop is stopping');
    appSeq += 1;
    const label = `app${appSeq}-${path.basename(command).replace(/[^A-Za-z0-9._-]/g, '_')}`;
    const spawned = await spawnLogged(command, args, { ...env, ...(options.env ?? {}) }, path.join(logs, label), detached);
    track(spawned.pid, `app ${command}`);
    const appPid = spawned.pid;
    // Only the app's own record: sweeping it reaches the app's session, not
    // the rest of the desktop (marker null).
    const appOwn: Ownership = { recorded: own.recorded.filter((r) => r.pid === appPid), marker: null, startTicks: own.startTicks };
    let appStopping: Promise<void> | null = null;
    const app: LaunchedApp = {
      pid: appPid,
      exited: spawned.exited,
      stop: () => {
        appStopping ??= (async () => {
          if (!spawned.hasExited()) {
            signal(-appPid, 'SIGTERM');
            const exitedInTime = await Promise.race([spawned.exited.then(() => true), sleep(3000).then(() => false)]);
            if (!exitedInTime) {
              signal(-appPid, 'SIGKILL');
              await spawned.exited;
            }
          }
          // Anything left in the app's session (children, re-parented helpers).
          await terminateOwned(appOwn, { graceMs: 1000 });
          apps.delete(app);
        })();
        return appStopping;
      },
    };
    apps.add(app);

    if (options.waitForWindow !== undefined) {
      const timeoutMs = options.timeoutMs ?? DEFAULT_WINDOW_TIMEOUT_MS;
      const inApp = (pid: number): boolean => {
        if (pid === appPid) return true;
        const stat = readStat(pid);
        return stat !== null && stat.session === appPid;
      };
      try {
        await waitForWindowImpl(options.waitForWindow, timeoutMs, inApp, () => {
          if (!spawned.hasExited()) return null;
          const code = spawned.child.exitCode;
          const sig = spawned.child.signalCode;
          return `launch(${command}): exited (${sig !== null ? `signal ${sig}` : `code ${String(code)}`}) before a window named ${describeTitle(options.waitForWindow ?? '')} appeared\n${logTail(spawned.logFiles)}`;
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const full = message.startsWith('launch(') ? message : `launch(${command}): ${message}\n${logTail(spawned.logFiles)}`;
        await app.stop();
        throw new Error(full);
      }
    }
    return app;
  };

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      try {
        a11yConn.disconnect();
      } catch {
        // already closed
      }
      await Promise.all([...apps].map((app) => app.stop()));
      await terminateOwned(own, { graceMs: 2000, last: [xvfbPid], reapMs: 2500 });
      unregisterEmergencyCleanup(hookEntry);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  return { display, dir, env, a11yBusAddress, launch, waitForWindow, stop };
}
