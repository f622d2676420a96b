// A private headless KDE Plasma 5.27 Wayland session (docs/wayland.md#kde): kwin_wayland on a
// virtual output, its own session bus (and a private stand-in for the system bus), PipeWire and
// WirePlumber, the desktop portals activated on that bus with XDG_CURRENT_DESKTOP=KDE (so
// xdg-desktop-portal picks xdg-desktop-portal-kde), and the accessibility bus. Apps run on it with
// GDK_BACKEND=wayland.
//
//   const desktop = await startKdeDesktop({ width: 1280, height: 800 });
//   const app = await desktop.launch('/usr/bin/python3', [...], { waitForWindow: 'Overseer Canvas' });
//   await desktop.stop();
//
// Every process is recorded and stopped by pid, as in gnomeDesktop.ts (whose parts it reuses). The
// session has its own HOME: xdg-desktop-portal-kde saves screenshots into $HOME/Pictures (and fails
// with response 1 when it is missing), and the helper must see the same HOME and XDG_CONFIG_HOME
// (kxkbrc, the keyboard layouts) as the portals do: the lane opens the backend with `env`.

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageBus } from 'dbus-next';
import { startRegistry, startSessionBus, type ServiceContext } from './busServices.js';
import { asRefs, connectBus, dbusCall, variantValue } from './dbus.js';
import { registerEmergencyCleanup, unregisterEmergencyCleanup } from './emergencyCleanup.js';
import { MARKER_VAR, collectOwned, terminateOwned } from './procs.js';
import { createProcessTracker } from './processTracker.js';
import { makeDesktop, type PrivateDesktop } from './runningDesktop.js';
import { logTail, spawnLogged } from './spawnLogged.js';
import { missingPackagesHint } from './systemPackages.js';

export const KDE_DIR_PREFIX = 'overseer-kde-';

/** A running KDE session: the private desktop's handle and where screenshots land. */
export interface KdeDesktop extends PrivateDesktop {
  /** The Wayland socket's name in XDG_RUNTIME_DIR. */
  waylandDisplay: string;
  /** The session's $HOME/Pictures, where xdg-desktop-portal-kde writes screenshots. */
  pictures: string;
  /** kwin_wayland's log. */
  kwinLog(): string;
  /** Every top-level window on the accessibility bus, as `<application>: <name>` (the canvas's, and any dialog). */
  a11yWindows(): Promise<string[]>;
}

const STARTUP_TIMEOUT_MS = 30_000;
const KWIN = '/usr/bin/kwin_wayland';

/** Variables that would point the session's programs at another desktop. */
const REMOVED_VARS = [
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'NO_AT_BRIDGE',
  'GTK_A11Y',
  'AT_SPI_BUS_ADDRESS',
  'SESSION_MANAGER',
  'DBUS_STARTER_ADDRESS',
  'DBUS_STARTER_BUS_TYPE',
  'XAUTHORITY',
  'QT_QPA_PLATFORM',
];

export async function startKdeDesktop(options: { width?: number; height?: number } = {}): Promise<KdeDesktop> {
  const width = options.width ?? 1280;
  const height = options.height ?? 800;
  const base = os.tmpdir().length <= 40 ? os.tmpdir() : '/tmp';
  const dir = mkdtempSync(path.join(base, KDE_DIR_PREFIX));
  const logs = path.join(dir, 'logs');
  const home = path.join(dir, 'home');
  const pictures = path.join(home, 'Pictures');
  const bin = path.join(dir, 'bin');
  const xdg = {
    XDG_RUNTIME_DIR: path.join(dir, 'runtime'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_STATE_HOME: path.join(dir, 'state'),
  };
  for (const d of [logs, pictures, bin, path.join(dir, 'system'), ...Object.values(xdg)]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const waylandDisplay = `overseer-${path.basename(dir).slice(KDE_DIR_PREFIX.length)}`;
  const busAddress = `unix:path=${path.join(dir, 'bus')}`;
  const systemAddress = `unix:path=${path.join(dir, 'system', 'bus')}`;
  const { own, track } = createProcessTracker(dir, () => `wayland:${waylandDisplay}`);
  const hookEntry = { own, dir };
  registerEmergencyCleanup(hookEntry);

  const baseEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) baseEnv[key] = value;
  for (const key of REMOVED_VARS) delete baseEnv[key];
  const session = {
    HOME: home,
    WAYLAND_DISPLAY: waylandDisplay,
    DBUS_SESSION_BUS_ADDRESS: busAddress,
    DBUS_SYSTEM_BUS_ADDRESS: systemAddress,
    XDG_SESSION_TYPE: 'wayland',
    XDG_CURRENT_DESKTOP: 'KDE',
    KDE_FULL_SESSION: 'true',
    KDE_SESSION_VERSION: '5',
    ...xdg,
  };
  // kwin_wayland picks its own Qt platform; everything else in the session is a Wayland client.
  const compositorEnv: Record<string, string> = { ...baseEnv, ...session, PATH: `${bin}:${baseEnv['PATH'] ?? '/usr/bin:/bin'}`, [MARKER_VAR]: dir };
  const clients = { GDK_BACKEND: 'wayland', QT_QPA_PLATFORM: 'wayland', QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1', ACCESSIBILITY_ENABLED: '1' };
  const env: Record<string, string> = { ...compositorEnv, ...clients };
  const ctx: ServiceContext = { logs, detached: false, track, timeoutMs: STARTUP_TIMEOUT_MS };
  let sessionConn: MessageBus | null = null;
  let a11yConn: MessageBus | null = null;
  let kwinPid = 0;

  const abort = async (error: unknown): Promise<never> => {
    sessionConn?.disconnect();
    a11yConn?.disconnect();
    await terminateOwned(own, { graceMs: 500, last: kwinPid > 0 ? [kwinPid] : [] });
    unregisterEmergencyCleanup(hookEntry);
    await rm(dir, { recursive: true, force: true });
    const failure = error instanceof Error ? error : new Error(String(error));
    const hint = failure.message.includes('ENOENT') ? missingPackagesHint(true) : undefined;
    throw hint === undefined ? failure : new Error(`${failure.message}\n${hint}`, { cause: failure });
  };

  try {
    if (!existsSync(KWIN)) throw new Error(`spawn ${KWIN} ENOENT`);
    // Debian's kwin_wayland carries the file capability cap_sys_resource=ep (to raise its scheduling
    // limits). Where the container's bounding set lacks that capability, execve of the file fails with
    // EPERM; a plain copy (copyFile keeps no extended attributes, so no capability) runs, without it.
    copyFileSync(KWIN, path.join(bin, 'kwin_wayland'));
    // KDE's keyboard layouts: one `us` layout, written out so the helper and KWin read the same file.
    writeFileSync(path.join(xdg.XDG_CONFIG_HOME, 'kxkbrc'), '[Layout]\nLayoutList=us\nUse=true\n');

    // 1. The buses: the session's, and a private one where KDE's programs look for the system's.
    await startSessionBus(dir, busAddress, env, ctx);
    await startSessionBus(path.join(dir, 'system'), systemAddress, env, ctx);
    sessionConn = await connectBus(busAddress, STARTUP_TIMEOUT_MS);
    // What the bus activates (the portals, the a11y bus) runs in this session, not the caller's.
    await dbusCall(sessionConn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'UpdateActivationEnvironment', {
      signature: 'a{ss}',
      body: [{ ...session, ...clients, PATH: compositorEnv['PATH'] ?? '', [MARKER_VAR]: dir }],
      timeoutMs: STARTUP_TIMEOUT_MS,
    });

    // 2. PipeWire and its session manager: the portals' screen sharing (and so RemoteDesktop) needs them.
    for (const role of ['pipewire', 'wireplumber'] as const) {
      const spawned = await spawnLogged(role, [], env, path.join(logs, role), false);
      track(spawned.pid, role);
    }

    // 3. The compositor, on a virtual output (the private copy, see above).
    const kwin = await spawnLogged(
      path.join(bin, 'kwin_wayland'),
      [
        '--virtual',
        '--width',
        String(width),
        '--height',
        String(height),
        '--socket',
        waylandDisplay,
        '--no-lockscreen',
        '--no-global-shortcuts',
        '--no-kactivities',
      ],
      compositorEnv,
      path.join(logs, 'kwin_wayland'),
      false,
    );
    kwinPid = kwin.pid;
    track(kwin.pid, 'kwin_wayland');
    const socket = path.join(xdg.XDG_RUNTIME_DIR, waylandDisplay);
    for (const deadline = Date.now() + STARTUP_TIMEOUT_MS; ;) {
      if (kwin.hasExited()) throw new Error(`kwin_wayland exited: ${logTail(kwin.logFiles)}`);
      if (Date.now() > deadline) throw new Error(`kwin_wayland did not come up: ${logTail(kwin.logFiles)}`);
      const [owned] = existsSync(socket)
        ? await dbusCall(sessionConn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner', {
            signature: 's',
            body: ['org.kde.KWin'],
          })
        : [false];
      if (owned === true) break;
      await sleep(50);
    }

    // 4. The accessibility bus (activated on the session bus) and its registry.
    const [address] = await dbusCall(sessionConn, 'org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress', { timeoutMs: STARTUP_TIMEOUT_MS });
    if (typeof address !== 'string' || address === '') throw new Error('org.a11y.Bus gave no address');
    a11yConn = await connectBus(address, STARTUP_TIMEOUT_MS);
    await startRegistry(a11yConn, address, env, ctx);
    for (const p of collectOwned(own)) track(p.pid, p.comm);
    sessionConn.disconnect();
    sessionConn = null;

    const desktop = makeDesktop({
      dir,
      display: `wayland:${waylandDisplay}`,
      env,
      a11yBusAddress: address,
      a11yConn,
      own,
      xvfbPid: kwinPid,
      logs,
      detached: false,
      hookEntry,
      track,
    });
    return {
      ...desktop,
      waylandDisplay,
      pictures,
      kwinLog: () => logTail(kwin.logFiles, 20_000),
      a11yWindows: () => topLevelWindows(address),
    };
  } catch (error) {
    return abort(error);
  }
}

const ACCESSIBLE = 'org.a11y.atspi.Accessible';

/** `<application>: <name>` of every application's top-level children on the a11y bus. */
async function topLevelWindows(a11yBusAddress: string): Promise<string[]> {
  const bus = await connectBus(a11yBusAddress, 10_000);
  const name = async (ref: { busName: string; path: string }): Promise<string> => {
    const [value] = await dbusCall(bus, ref.busName, ref.path, 'org.freedesktop.DBus.Properties', 'Get', {
      signature: 'ss',
      body: [ACCESSIBLE, 'Name'],
      timeoutMs: 3000,
    });
    return String(variantValue(value));
  };
  try {
    const [apps] = await dbusCall(bus, 'org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', ACCESSIBLE, 'GetChildren', { timeoutMs: 3000 });
    const out: string[] = [];
    for (const app of asRefs(apps)) {
      const appName = await name(app).catch(() => '?');
      const [windows] = await dbusCall(bus, app.busName, app.path, ACCESSIBLE, 'GetChildren', { timeoutMs: 3000 }).catch(() => [[]]);
      for (const w of asRefs(windows)) out.push(`${appName}: ${await name(w).catch(() => '?')}`);
    }
    return out;
  } finally {
    bus.disconnect();
  }
}
