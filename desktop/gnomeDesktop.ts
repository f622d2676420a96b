// A private headless GNOME Wayland session (docs/wayland.md#test-session): gnome-shell with a
// virtual monitor, its own session bus (and a private stand-in for the system bus, which it
// expects), PipeWire and WirePlumber (the portals' screen sharing needs them), the desktop portals
// activated on that bus, and the accessibility bus. Apps run on it with GDK_BACKEND=wayland.
//
//   const desktop = await startGnomeDesktop({ width: 1280, height: 800 });
//   const app = await desktop.launch('/usr/bin/python3', [...], { waitForWindow: 'Overseer Canvas' });
//   await desktop.hand.key(0xff1b); // the person's own hand: see gnomeHand.ts
//   await desktop.stop();
//
// Every process is recorded and stopped by pid, as in privateDesktop.ts (whose handle it reuses).

import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageBus } from 'dbus-next';
import { type ServiceContext } from './busServices.js';
import { GnomeHand } from './gnomeHand.js';
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

export const GNOME_DIR_PREFIX = 'overseer-gnome-';

/** A running GNOME session: the private desktop's handle, the person's hand, and where screenshots land. */
export interface GnomeDesktop extends PrivateDesktop {
  /** The Wayland socket's name in XDG_RUNTIME_DIR. */
  waylandDisplay: string;
  /** Pointer and keys as the person's own (the compositor's private remote-desktop API, not a portal): answers the desktop's dialogs. */
  hand: GnomeHand;
  /** The session's Pictures folder, where the Screenshot portal writes. */
  pictures: string;
  /** gnome-shell's log, for what it said about the test (the keysyms it dropped). */
  shellLog(): string;
}

/**
 * gnome-shell is up in 3–4 s here; once, right after a full test run, it stalled past 30 s at
 * startup (its log stopped after the PolKit message, as if one D-Bus call waited out its 25 s
 * timeout): the budget has room for one such wait.
 */
const STARTUP_TIMEOUT_MS = 60_000;
/**
 * How long the shell itself may take to say it started. About one full run in three saw it stall
 * for good after the usual warnings (no PolicyKit, no calendar server), so a stalled start is given
 * up after this and the session is started once more, from nothing.
 */
const SHELL_START_MS = 40_000;

/** gnome-shell ran but never said it started. */
class ShellStalled extends Error {}

/**
 * A private headless GNOME Wayland session (see GnomeDesktop). A shell that stalls at startup is
 * stopped with everything it started, and the session is started once more.
 */
export async function startGnomeDesktop(options: { width?: number; height?: number; xwayland?: boolean } = {}): Promise<GnomeDesktop> {
  try {
    return await startGnomeOnce(options);
  } catch (error) {
    if (!(error instanceof ShellStalled)) throw error;
    process.stderr.write(`[gnome] ${error.message.slice(0, 300).replace(/\s+/g, ' ')}; starting the session again\n`);
    return startGnomeOnce(options);
  }
}

async function startGnomeOnce(options: { width?: number; height?: number; xwayland?: boolean }): Promise<GnomeDesktop> {
  const width = options.width ?? 1280;
  const height = options.height ?? 800;
  const xwayland = options.xwayland ?? true;
  const plan = planSession(GNOME_DIR_PREFIX, { dirs: (dir) => [path.join(dir, 'pictures')] });
  const { dir, logs, xdg, waylandDisplay, track } = plan;
  const pictures = path.join(dir, 'pictures');
  // The Screenshot portal saves into the Pictures folder: this session's own.
  writeFileSync(path.join(xdg.XDG_CONFIG_HOME, 'user-dirs.dirs'), `XDG_PICTURES_DIR="${pictures}"\n`);
  const session = {
    WAYLAND_DISPLAY: waylandDisplay,
    DBUS_SESSION_BUS_ADDRESS: plan.busAddress,
    DBUS_SYSTEM_BUS_ADDRESS: plan.systemAddress,
    XDG_SESSION_TYPE: 'wayland',
    XDG_CURRENT_DESKTOP: 'GNOME',
    ...xdg,
  };
  const env: Record<string, string> = { ...plan.baseEnv, ...session, ...WAYLAND_CLIENTS, [MARKER_VAR]: dir };
  const ctx: ServiceContext = { logs, detached: false, track, timeoutMs: STARTUP_TIMEOUT_MS };
  let sessionConn: MessageBus | null = null;
  let a11yConn: MessageBus | null = null;
  let shellPid = 0;
  let hand: GnomeHand | null = null;
  let shellLogFiles: string[] = [];

  try {
    // 1. The buses: the session's, and a private one where gnome-shell and the portals look for the system's.
    sessionConn = await startBuses(plan, env, { ...session, GDK_BACKEND: 'wayland', [MARKER_VAR]: dir }, ctx);

    // This session cannot lock (no display manager), and a banner saying so would cover the top of the
    // screen: the session's own settings turn off locking and banners (the person's are never touched).
    for (const [schema, key, value] of [
      ['org.gnome.desktop.screensaver', 'lock-enabled', 'false'],
      ['org.gnome.desktop.notifications', 'show-banners', 'false'],
    ] as const)
      await run('gsettings', ['set', schema, key, value], env);

    // 2. PipeWire and its session manager.
    await startPipeWire(plan, env);

    // 3. The compositor and shell, on a virtual monitor.
    if (xwayland) ensureX11SocketDir();
    const shell = await spawnLogged(
      'gnome-shell',
      ['--headless', '--wayland', ...(xwayland ? [] : ['--no-x11']), '--virtual-monitor', `${width}x${height}`, '--wayland-display', waylandDisplay],
      env,
      path.join(logs, 'gnome-shell'),
      false,
    );
    shellPid = shell.pid;
    shellLogFiles = shell.logFiles;
    track(shell.pid, 'gnome-shell');
    await waitForCompositor(plan, sessionConn, shell, {
      name: 'gnome-shell',
      busName: 'org.gnome.Mutter.RemoteDesktop',
      timeoutMs: SHELL_START_MS,
      ready: () => shellStarted(shell.logFiles),
      late: (message) => new ShellStalled(message),
    });
    // Xwayland, as in a person's session: its display and cookie, for the session's programs.
    if (xwayland) Object.assign(env, xwaylandEnv(logTail(shell.logFiles, 200_000), xdg.XDG_RUNTIME_DIR));

    // 4. The accessibility bus the shell asked for, and its registry.
    const a11y = await startAccessibility(sessionConn, env, ctx);
    a11yConn = a11y.a11yConn;

    // 5. The shell starts in the overview: the person leaves it, as they would with Escape.
    hand = await GnomeHand.open(plan.busAddress);
    await hand.key(0xff1b);
    await sleep(800); // the overview's closing animation
    const desktop = sessionDesktop(plan, sessionConn, { env, a11y, compositorPid: shellPid });
    sessionConn = null;
    const theHand = hand;
    return {
      ...desktop,
      waylandDisplay,
      hand: theHand,
      pictures,
      shellLog: () => logTail(shell.logFiles, 20_000),
      async stop() {
        await theHand.close().catch(() => undefined);
        await desktop.stop();
        removeStaleXwayland(logTail(shell.logFiles, 200_000));
      },
    };
  } catch (error) {
    await hand?.close().catch(() => undefined);
    return abandonSession(plan, error, { conns: [sessionConn, a11yConn], last: [shellPid], after: () => removeStaleXwayland(logTail(shellLogFiles, 200_000)) });
  }
}

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 10_000 }, (error, stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`${command} ${args.join(' ')}: ${error.message} ${stdout}${stderr}`));
    });
  });
}

/**
 * /tmp/.X11-unix as systemd-tmpfiles makes it at boot (1777): mutter refuses to start Xwayland
 * otherwise, and on a machine without systemd the first X server made it under the umask (1755).
 */
function ensureX11SocketDir(): void {
  const dir = '/tmp/.X11-unix';
  if (!existsSync(dir)) mkdirSync(dir, { mode: 0o1777 });
  const { mode, uid } = statSync(dir);
  if ((mode & 0o1022) !== 0o1022 && (uid === process.getuid?.() || process.getuid?.() === 0)) chmodSync(dir, 0o1777);
}

/** DISPLAY and XAUTHORITY of the shell's Xwayland: the display from its log, the cookie mutter wrote into the runtime dir. */
function xwaylandEnv(log: string, runtimeDir: string): { DISPLAY: string; XAUTHORITY: string } {
  const display = /Using public X11 display (:\d+)/.exec(log)?.[1];
  if (display === undefined) throw new Error(`gnome-shell named no Xwayland display: ${log.slice(-2000)}`);
  const cookie = readdirSync(runtimeDir).find((f) => f.startsWith('.mutter-Xwaylandauth.'));
  if (cookie === undefined) throw new Error(`gnome-shell wrote no Xwayland cookie into ${runtimeDir}`);
  return { DISPLAY: display, XAUTHORITY: path.join(runtimeDir, cookie) };
}

/**
 * The lock files and sockets of the shell's Xwayland displays (public and managed, from its log),
 * where the shell, stopped by a signal, left them behind and no process holds them: they would keep
 * the display number from every later X server.
 */
function removeStaleXwayland(log: string): void {
  const named = /Using public X11 display :(\d+), \(using :(\d+) for managed services\)/.exec(log);
  for (const n of named?.slice(1) ?? []) {
    const lock = `/tmp/.X${n}-lock`;
    // An X server writes its lock before its socket: a socket without a lock is stale too.
    const pid = existsSync(lock) ? Number(readFileSync(lock, 'latin1').trim()) : 0;
    if (pid > 0 && existsSync(`/proc/${pid}`)) continue;
    rmSync(lock, { force: true });
    rmSync(`/tmp/.X11-unix/X${n}`, { force: true });
  }
}

/** gnome-shell says when it is up ("GNOME Shell started at …"). */
function shellStarted(logFiles: string[]): boolean {
  return logTail(logFiles, 200_000).includes('GNOME Shell started');
}
