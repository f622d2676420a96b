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
// Every process is recorded and stopped by pid; what it shares with gnomeDesktop.ts is in
// waylandSession.ts. The
// session has its own HOME: xdg-desktop-portal-kde saves screenshots into $HOME/Pictures (and fails
// with response 1 when it is missing), and the helper must see the same HOME and XDG_CONFIG_HOME
// (kxkbrc, the keyboard layouts) as the portals do: the lane opens the backend with `env`.

import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type MessageBus } from 'dbus-next';
import { type ServiceContext } from './busServices.js';
import { ACCESSIBLE, accessibleProperty, asRefs, connectBus, dbusCall, type ObjectRef } from './dbus.js';
import { MARKER_VAR } from './procs.js';
import { type PrivateDesktop } from './runningDesktop.js';
import { logTail, spawnLogged } from './spawnLogged.js';
import {
  abandonSession,
  planSession,
  sessionDesktop,
  startAccessibility,
  startBuses,
  startPipeWire,
  waitForCompositor,
  WAYLAND_CLIENTS,
} from './waylandSession.js';

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

export async function startKdeDesktop(options: { width?: number; height?: number } = {}): Promise<KdeDesktop> {
  const width = options.width ?? 1280;
  const height = options.height ?? 800;
  // kwin_wayland picks its own Qt platform: the caller's must not reach it.
  const plan = planSession(KDE_DIR_PREFIX, { dirs: (dir) => [path.join(dir, 'home', 'Pictures'), path.join(dir, 'bin')], removed: ['QT_QPA_PLATFORM'] });
  const { dir, logs, xdg, waylandDisplay, track } = plan;
  const home = path.join(dir, 'home');
  const pictures = path.join(home, 'Pictures');
  const bin = path.join(dir, 'bin');
  const session = {
    HOME: home,
    WAYLAND_DISPLAY: waylandDisplay,
    DBUS_SESSION_BUS_ADDRESS: plan.busAddress,
    DBUS_SYSTEM_BUS_ADDRESS: plan.systemAddress,
    XDG_SESSION_TYPE: 'wayland',
    XDG_CURRENT_DESKTOP: 'KDE',
    KDE_FULL_SESSION: 'true',
    KDE_SESSION_VERSION: '5',
    ...xdg,
  };
  // kwin_wayland picks its own Qt platform; everything else in the session is a Wayland client.
  const compositorEnv: Record<string, string> = { ...plan.baseEnv, ...session, PATH: `${bin}:${plan.baseEnv['PATH'] ?? '/usr/bin:/bin'}`, [MARKER_VAR]: dir };
  const env: Record<string, string> = { ...compositorEnv, ...WAYLAND_CLIENTS };
  const ctx: ServiceContext = { logs, detached: false, track, timeoutMs: STARTUP_TIMEOUT_MS };
  let sessionConn: MessageBus | null = null;
  let a11yConn: MessageBus | null = null;
  let kwinPid = 0;

  try {
    if (!existsSync(KWIN)) throw new Error(`spawn ${KWIN} ENOENT`);
    // Debian's kwin_wayland carries the file capability cap_sys_resource=ep (to raise its scheduling
    // limits). Where the container's bounding set lacks that capability, execve of the file fails with
    // EPERM; a plain copy (copyFile keeps no extended attributes, so no capability) runs, without it.
    copyFileSync(KWIN, path.join(bin, 'kwin_wayland'));
    // KDE's keyboard layouts: one `us` layout, written out so the helper and KWin read the same file.
    writeFileSync(path.join(xdg.XDG_CONFIG_HOME, 'kxkbrc'), '[Layout]\nLayoutList=us\nUse=true\n');

    // 1. The buses: the session's, and a private one where KDE's programs look for the system's.
    sessionConn = await startBuses(plan, env, { ...session, ...WAYLAND_CLIENTS, PATH: compositorEnv['PATH'] ?? '', [MARKER_VAR]: dir }, ctx);

    // 2. PipeWire and its session manager.
    await startPipeWire(plan, env);

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
    await waitForCompositor(plan, sessionConn, kwin, { name: 'kwin_wayland', busName: 'org.kde.KWin', timeoutMs: STARTUP_TIMEOUT_MS });

    // 4. The accessibility bus (activated on the session bus) and its registry.
    const a11y = await startAccessibility(sessionConn, env, ctx);
    a11yConn = a11y.a11yConn;
    const desktop = sessionDesktop(plan, sessionConn, { env, a11y, compositorPid: kwinPid });
    sessionConn = null;
    return {
      ...desktop,
      waylandDisplay,
      pictures,
      kwinLog: () => logTail(kwin.logFiles, 20_000),
      a11yWindows: () => topLevelWindows(a11y.address),
    };
  } catch (error) {
    return abandonSession(plan, error, { conns: [sessionConn, a11yConn], last: [kwinPid] });
  }
}

/** `<application>: <name>` of every application's top-level children on the a11y bus. */
async function topLevelWindows(a11yBusAddress: string): Promise<string[]> {
  const bus = await connectBus(a11yBusAddress, 10_000);
  const name = async (ref: ObjectRef): Promise<string> => String(await accessibleProperty(bus, ref, 'Name'));
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
