// A private, isolated Linux desktop (serve --demo, the tests, the benches): Xvfb + its own session D-Bus +
// at-spi-bus-launcher (a11y bus) with every XDG dir in a private temp folder.
//
//   const desktop = await startPrivateDesktop();
//   const app = await desktop.launch("/usr/bin/python3", ["desktop/apps/fixtureApp.py"], { waitForWindow: "Overseer Fixture" });
//   ...
//   await desktop.stop();
//
// Every process is spawned in its own session (setsid) and recorded with its
// /proc start time; stop() ends only those processes and their session
// members (see procs.ts), never anything by name.
//
// This file assembles the desktop; the parts live next to it:
//   displays.ts         free X display + Xvfb
//   busServices.ts      session bus, a11y bus, AT-SPI registry
//   runningDesktop.ts   the PrivateDesktop handle (launch, waitForWindow, stop)
//   a11yWindows.ts      finding a window on the a11y bus
//   processTracker.ts   which processes are ours, in <dir>/pids.json
//   emergencyCleanup.ts exit/signal hooks for crashed runs
//   spawnLogged.ts      spawning with output in <dir>/logs
//   dbus.ts             small D-Bus call helpers
//   windowManager.ts    openbox, placing windows side by side (the demo starts it)
//   demoDesktop.ts      the demo of `serve --demo`: window manager and sample apps (apps/)
//   systemPackages.ts   the Debian packages all this needs, and which are missing

import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';

import path from 'node:path';
import { type MessageBus } from 'dbus-next';
import { startA11yBus, startRegistry, startSessionBus, type ServiceContext } from './busServices.js';
import { connectBus } from './dbus.js';
import { startXvfb } from './displays.js';
import { registerEmergencyCleanup, unregisterEmergencyCleanup } from './emergencyCleanup.js';
import { MARKER_VAR, collectOwned, terminateOwned } from './procs.js';
import { createProcessTracker } from './processTracker.js';
import { makeDesktopFolder } from './desktopFolder.js';
import { makeDesktop, type PrivateDesktop } from './runningDesktop.js';
import { missingPackagesHint } from './systemPackages.js';

// Re-exported: callers import the whole public API from this file.
export type { PidsFile } from './processTracker.js';
export type { LaunchedApp, PrivateDesktop } from './runningDesktop.js';

/** Options of startPrivateDesktop; the screen defaults to 1920x1080. */
export interface PrivateDesktopOptions {
  width?: number;
  height?: number;
  /**
   * Leave the desktop running when this Node process exits (used by
   * `cli.ts start`): no exit/signal cleanup hooks, child handles unref'd.
   * Stop it later with `cli.ts stop <dir>` (which reads <dir>/pids.json).
   */
  detached?: boolean;
}

/** The settings every private desktop starts with (GLib keyfile syntax). */
const SEEDED_SETTINGS = '[org/gnome/calculator]\nrefresh-interval=0\n';

/** Prefix of the private folder's name; `cli.ts stop` refuses other folders. */
export const DESKTOP_DIR_PREFIX = 'overseer-desktop-';

const STARTUP_TIMEOUT_MS = 10_000;

/** Variables removed from the inherited environment. */
const REMOVED_VARS = [
  'NO_AT_BRIDGE', // GTK3: hides the app from AT-SPI
  'GTK_A11Y', // GTK4: "none" hides the app from AT-SPI
  'AT_SPI_BUS_ADDRESS', // would point apps at another session's a11y bus
  'WAYLAND_DISPLAY', // GTK would open on the host's Wayland instead of our Xvfb
  'SESSION_MANAGER', // host session manager
  'DBUS_STARTER_ADDRESS',
  'DBUS_STARTER_BUS_TYPE',
];

/** Start a private desktop (Xvfb, session bus, a11y bus, registry); resolves once windows can be found on it. */
export async function startPrivateDesktop(options: PrivateDesktopOptions = {}): Promise<PrivateDesktop> {
  const width = options.width ?? 1920;
  const height = options.height ?? 1080;
  const detached = options.detached === true;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 64 || height < 64) {
    throw new Error(`startPrivateDesktop: bad screen size ${width}x${height}`);
  }

  const { dir, logs, xdg } = makeDesktopFolder(DESKTOP_DIR_PREFIX);
  // Settings from a file of this desktop's (GLib's keyfile backend): deterministic, no dconf-service, and seeded.
  // gnome-calculator looks up www.imf.org and www.ecb.europa.eu for exchange rates at start unless
  // told not to (measured with strace): no traffic may leave the machine.
  mkdirSync(path.join(xdg.XDG_CONFIG_HOME, 'glib-2.0', 'settings'), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(xdg.XDG_CONFIG_HOME, 'glib-2.0', 'settings', 'keyfile'), SEEDED_SETTINGS, { mode: 0o600 });

  const busAddress = `unix:path=${path.join(dir, 'bus')}`;
  let display = '';
  const { own, track } = createProcessTracker(dir, () => display);
  const hookEntry = { own, dir };

  const baseEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) baseEnv[key] = value;
  }
  for (const key of REMOVED_VARS) delete baseEnv[key];
  const makeEnv = (): Record<string, string> => ({
    ...baseEnv,
    DISPLAY: display,
    DBUS_SESSION_BUS_ADDRESS: busAddress,
    ...xdg,
    GDK_BACKEND: 'x11',
    GSETTINGS_BACKEND: 'keyfile',
    QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
    ACCESSIBILITY_ENABLED: '1',
    [MARKER_VAR]: dir,
  });

  if (!detached) registerEmergencyCleanup(hookEntry);

  const ctx: ServiceContext = { logs, detached, track, timeoutMs: STARTUP_TIMEOUT_MS };
  let a11yConn: MessageBus | null = null;
  let xvfbPid = 0;

  const abort = async (error: unknown): Promise<never> => {
    a11yConn?.disconnect();
    await terminateOwned(own, { graceMs: 500, last: xvfbPid > 0 ? [xvfbPid] : [] });
    unregisterEmergencyCleanup(hookEntry);
    await rm(dir, { recursive: true, force: true });
    const failure = error instanceof Error ? error : new Error(String(error));
    // A program that is not there (spawn ... ENOENT) is a package that is not installed: say which.
    const hint = failure.message.includes('ENOENT') ? missingPackagesHint(false) : undefined;
    throw hint === undefined ? failure : new Error(`${failure.message}\n${hint}`, { cause: failure });
  };

  try {
    // 1. Xvfb on a free display, and (in parallel) the session bus.
    const started = await Promise.allSettled([
      startXvfb({ width, height, env: { ...baseEnv, [MARKER_VAR]: dir }, logs, detached, track, timeoutMs: STARTUP_TIMEOUT_MS }).then((xvfb) => {
        display = xvfb.display;
        xvfbPid = xvfb.pid;
      }),
      // DISPLAY is handed to the bus's activated services in step 2.
      startSessionBus(dir, busAddress, { ...baseEnv, ...xdg, [MARKER_VAR]: dir }, ctx),
    ]);
    // allSettled: if one fails, the other must have finished spawning (and
    // recorded its process) before abort() sweeps.
    for (const result of started) {
      if (result.status === 'rejected') throw result.reason;
    }
    const env = makeEnv();

    // 2. The accessibility bus.
    const a11yBusAddress = await startA11yBus(busAddress, display, env, ctx);
    a11yConn = await connectBus(a11yBusAddress, STARTUP_TIMEOUT_MS);

    // 3. The registry.
    await startRegistry(a11yConn, a11yBusAddress, env, ctx);
    // Also record what the buses started on their own (the a11y dbus-daemon...).
    for (const p of collectOwned(own)) track(p.pid, p.comm);

    return makeDesktop({ dir, display, env, a11yBusAddress, a11yConn, own, xvfbPid, logs, detached, hookEntry, track });
  } catch (error) {
    return abort(error);
  }
}
