// What the private headless Wayland sessions share, GNOME's (gnomeDesktop.ts) and KDE's
// (kdeDesktop.ts): a folder with the XDG directories, the socket and bus names, the process record,
// the environment without the caller's desktop, the session and stand-in system buses with the
// activation environment, PipeWire, the accessibility bus and its registry, the wait for the
// compositor, and the clean-up of a start that failed. Each session adds its compositor and what
// only it needs.

import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageBus } from 'dbus-next';
import { startRegistry, startSessionBus, type ServiceContext } from './busServices.js';
import { connectBus, dbusCall } from './dbus.js';
import { makeDesktopFolder } from './desktopFolder.js';
import { registerEmergencyCleanup, unregisterEmergencyCleanup, type CleanupEntry } from './emergencyCleanup.js';
import { collectOwned, terminateOwned } from './procs.js';
import { makeDesktop, type PrivateDesktop } from './runningDesktop.js';
import { createProcessTracker, type ProcessTracker } from './processTracker.js';
import { logTail, spawnLogged, type Spawned } from './spawnLogged.js';
import { missingPackagesHint } from './systemPackages.js';

/** Variables that would point the session's programs at another desktop. */
export const REMOVED_VARS = [
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'NO_AT_BRIDGE',
  'GTK_A11Y',
  'AT_SPI_BUS_ADDRESS',
  'SESSION_MANAGER',
  'DBUS_STARTER_ADDRESS',
  'DBUS_STARTER_BUS_TYPE',
  'XAUTHORITY',
] as const;

/** The variables every session sets for its Wayland clients. */
export const WAYLAND_CLIENTS = {
  GDK_BACKEND: 'wayland',
  QT_QPA_PLATFORM: 'wayland',
  QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
  ACCESSIBILITY_ENABLED: '1',
} as const;

/** A session about to start: where it lives, its names, and the record of its processes. */
export interface SessionPlan extends ProcessTracker {
  dir: string;
  logs: string;
  xdg: { XDG_RUNTIME_DIR: string; XDG_CONFIG_HOME: string; XDG_CACHE_HOME: string; XDG_DATA_HOME: string; XDG_STATE_HOME: string };
  /** The Wayland socket's name in XDG_RUNTIME_DIR. */
  waylandDisplay: string;
  busAddress: string;
  systemAddress: string;
  hookEntry: CleanupEntry;
  /** This process's environment without the variables of the caller's desktop (REMOVED_VARS and `removed`). */
  baseEnv: Record<string, string>;
}

/** Makes the session's folder (and `dirs` inside it), names its socket and buses, and starts its process record. */
export function planSession(prefix: string, options: { dirs?: (dir: string) => string[]; removed?: readonly string[] } = {}): SessionPlan {
  const { dir, logs, xdg } = makeDesktopFolder(prefix, (d) => [path.join(d, 'system'), ...(options.dirs?.(d) ?? [])]);
  const waylandDisplay = `overseer-${path.basename(dir).slice(prefix.length)}`;
  const tracker = createProcessTracker(dir, () => `wayland:${waylandDisplay}`);
  const hookEntry = { own: tracker.own, dir };
  registerEmergencyCleanup(hookEntry);
  const baseEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) baseEnv[key] = value;
  for (const key of [...REMOVED_VARS, ...(options.removed ?? [])]) delete baseEnv[key];
  return {
    ...tracker,
    dir,
    logs,
    xdg,
    waylandDisplay,
    busAddress: `unix:path=${path.join(dir, 'bus')}`,
    systemAddress: `unix:path=${path.join(dir, 'system', 'bus')}`,
    hookEntry,
    baseEnv,
  };
}

/**
 * Starts the session bus and the stand-in system bus, connects to the session bus, and has what the
 * bus activates (the portals, the accessibility bus) run in this session with `activation`.
 */
export async function startBuses(plan: SessionPlan, env: Record<string, string>, activation: Record<string, string>, ctx: ServiceContext): Promise<MessageBus> {
  await startSessionBus(plan.dir, plan.busAddress, env, ctx);
  await startSessionBus(path.join(plan.dir, 'system'), plan.systemAddress, env, ctx);
  const conn = await connectBus(plan.busAddress, ctx.timeoutMs);
  await dbusCall(conn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'UpdateActivationEnvironment', {
    signature: 'a{ss}',
    body: [activation],
    timeoutMs: ctx.timeoutMs,
  });
  return conn;
}

/** PipeWire and its session manager: the portals' screen sharing (and so RemoteDesktop) needs them. */
export async function startPipeWire(plan: SessionPlan, env: Record<string, string>): Promise<void> {
  for (const role of ['pipewire', 'wireplumber'] as const) {
    const spawned = await spawnLogged(role, [], env, path.join(plan.logs, role), false);
    plan.track(spawned.pid, role);
  }
}

/**
 * Waits until the compositor's socket exists and it owns `busName` on the session bus (and `ready`
 * says so, when given); a compositor that exits fails at once, one that takes longer than `timeoutMs`
 * fails with `late`'s error.
 */
export async function waitForCompositor(
  plan: SessionPlan,
  conn: MessageBus,
  compositor: Spawned,
  options: { name: string; busName: string; timeoutMs: number; ready?: () => boolean; late?: (message: string) => Error },
): Promise<void> {
  const socket = path.join(plan.xdg.XDG_RUNTIME_DIR, plan.waylandDisplay);
  for (const deadline = Date.now() + options.timeoutMs; ;) {
    if (compositor.hasExited()) throw new Error(`${options.name} exited: ${logTail(compositor.logFiles)}`);
    if (Date.now() > deadline) {
      const message = `${options.name} did not come up within ${options.timeoutMs} ms: ${logTail(compositor.logFiles)}`;
      throw options.late?.(message) ?? new Error(message);
    }
    const [owned] = existsSync(socket)
      ? await dbusCall(conn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner', {
          signature: 's',
          body: [options.busName],
        })
      : [false];
    if (owned === true && (options.ready?.() ?? true)) return;
    await sleep(50);
  }
}

/** The accessibility bus the session activated, connected, with its registry started. */
export async function startAccessibility(
  conn: MessageBus,
  env: Record<string, string>,
  ctx: ServiceContext,
): Promise<{ address: string; a11yConn: MessageBus }> {
  const [address] = await dbusCall(conn, 'org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress', { timeoutMs: ctx.timeoutMs });
  if (typeof address !== 'string' || address === '') throw new Error('org.a11y.Bus gave no address');
  const a11yConn = await connectBus(address, ctx.timeoutMs);
  await startRegistry(a11yConn, address, env, ctx);
  return { address, a11yConn };
}

/**
 * The started session as a private desktop: what the session's programs started on their own is
 * recorded, the session bus connection is closed, and the compositor stands where Xvfb stands for an
 * X session (stopped last).
 */
export function sessionDesktop(
  plan: SessionPlan,
  conn: MessageBus,
  parts: { env: Record<string, string>; a11y: { address: string; a11yConn: MessageBus }; compositorPid: number },
): PrivateDesktop {
  for (const p of collectOwned(plan.own)) plan.track(p.pid, p.comm);
  conn.disconnect();
  return makeDesktop({
    dir: plan.dir,
    display: `wayland:${plan.waylandDisplay}`,
    env: parts.env,
    a11yBusAddress: parts.a11y.address,
    a11yConn: parts.a11y.a11yConn,
    own: plan.own,
    xvfbPid: parts.compositorPid,
    logs: plan.logs,
    detached: false,
    hookEntry: plan.hookEntry,
    track: plan.track,
  });
}

/**
 * Undoes a start that failed: closes the connections, stops every recorded process (`last` after
 * the others: the compositor), removes the folder, and throws the error, with the missing
 * packages named when a program was not found.
 */
export async function abandonSession(
  plan: SessionPlan,
  error: unknown,
  options: { conns: (MessageBus | null)[]; last: number[]; after?: () => void },
): Promise<never> {
  for (const conn of options.conns) conn?.disconnect();
  await terminateOwned(plan.own, { graceMs: 500, last: options.last.filter((pid) => pid > 0) });
  options.after?.();
  unregisterEmergencyCleanup(plan.hookEntry);
  await rm(plan.dir, { recursive: true, force: true });
  const failure = error instanceof Error ? error : new Error(String(error));
  const hint = failure.message.includes('ENOENT') ? missingPackagesHint(true) : undefined;
  throw hint === undefined ? failure : new Error(`${failure.message}\n${hint}`, { cause: failure });
}
