// The desktop's D-Bus side: its own session bus, the accessibility bus that
// at-spi-bus-launcher starts, and the AT-SPI registry on it. Each function
// resolves only once its service answers, so a test never races startup.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageBus } from 'dbus-next';
import { connectBus, dbusCall } from './dbus.js';
import { logTail, spawnLogged } from './spawnLogged.js';

/** What starting a service needs from the desktop being assembled. */
export interface ServiceContext {
  /** Folder for the <service>.{out,err}.log files. */
  logs: string;
  detached: boolean;
  /** Record a spawned process as the desktop's. */
  track: (pid: number, role: string) => void;
  /** How long a service gets to come up. */
  timeoutMs: number;
}

/** Start the private session dbus-daemon on `busAddress` (socket <dir>/bus); resolves once the socket exists. */
export async function startSessionBus(dir: string, busAddress: string, env: Record<string, string>, ctx: ServiceContext): Promise<void> {
  const daemon = await spawnLogged(
    'dbus-daemon',
    ['--session', '--nofork', '--nopidfile', `--address=${busAddress}`],
    env,
    path.join(ctx.logs, 'dbus-session'),
    ctx.detached,
  );
  ctx.track(daemon.pid, 'dbus-daemon (session)');
  const socket = path.join(dir, 'bus');
  const deadline = Date.now() + ctx.timeoutMs;
  while (!existsSync(socket)) {
    if (daemon.hasExited()) throw new Error(`session dbus-daemon exited: ${logTail(daemon.logFiles)}`);
    if (Date.now() > deadline) throw new Error('session dbus-daemon did not create its socket');
    await sleep(5);
  }
}

/**
 * Give the session bus's activated services our DISPLAY, start
 * at-spi-bus-launcher with `env`, and resolve with the a11y bus address it
 * reports (org.a11y.Bus.GetAddress).
 */
export async function startA11yBus(busAddress: string, display: string, env: Record<string, string>, ctx: ServiceContext): Promise<string> {
  const sessionConn = await connectBus(busAddress, ctx.timeoutMs);
  try {
    // Services activated by the session bus (at-spi-bus-launcher if an app
    // asks before ours answers, dconf, portals...) need DISPLAY too.
    await dbusCall(sessionConn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'UpdateActivationEnvironment', {
      signature: 'a{ss}',
      body: [{ DISPLAY: display, GDK_BACKEND: 'x11', GSETTINGS_BACKEND: 'keyfile', QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1', ACCESSIBILITY_ENABLED: '1' }],
      timeoutMs: ctx.timeoutMs,
    });

    const launcher = await spawnLogged(
      '/usr/libexec/at-spi-bus-launcher',
      ['--launch-immediately'],
      env,
      path.join(ctx.logs, 'at-spi-bus-launcher'),
      ctx.detached,
    );
    ctx.track(launcher.pid, 'at-spi-bus-launcher');
    let a11yBusAddress = '';
    const deadline = Date.now() + ctx.timeoutMs;
    while (a11yBusAddress === '') {
      if (launcher.hasExited()) throw new Error(`at-spi-bus-launcher exited: ${logTail(launcher.logFiles)}`);
      if (Date.now() > deadline) throw new Error(`org.a11y.Bus.GetAddress did not answer: ${logTail(launcher.logFiles)}`);
      try {
        // NO_AUTO_START: never let the bus activate a second launcher.
        const [address] = await dbusCall(sessionConn, 'org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress', { noAutoStart: true });
        if (typeof address === 'string' && address.length > 0) a11yBusAddress = address;
      } catch {
        // not yet on the bus
      }
      if (a11yBusAddress === '') await sleep(10);
    }
    return a11yBusAddress;
  } finally {
    // Only needed during startup; on failure it must be closed before the
    // caller sweeps the processes.
    sessionConn.disconnect();
  }
}

/**
 * Start at-spi2-registryd on the a11y bus and resolve once the registry
 * answers. The a11y bus would D-Bus-activate it on first use, but then it is
 * re-parented to init, which on this kind of machine reaps it only every ~2 s
 * after stop (a <defunct> entry in ps). Started here it is our child: reaped
 * at once, and the first waitForWindow does not pay for the activation.
 */
export async function startRegistry(a11yConn: MessageBus, a11yBusAddress: string, env: Record<string, string>, ctx: ServiceContext): Promise<void> {
  const registryd = await spawnLogged(
    '/usr/libexec/at-spi2-registryd',
    [],
    { ...env, AT_SPI_BUS_ADDRESS: a11yBusAddress },
    path.join(ctx.logs, 'at-spi2-registryd'),
    ctx.detached,
  );
  ctx.track(registryd.pid, 'at-spi2-registryd');
  const registryDeadline = Date.now() + ctx.timeoutMs;
  for (;;) {
    const [owned] = await dbusCall(a11yConn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner', {
      signature: 's',
      body: ['org.a11y.atspi.Registry'],
    });
    if (owned === true) break;
    // Exited: most likely lost the race for the name to an activated copy.
    if (registryd.hasExited()) break;
    if (Date.now() > registryDeadline) throw new Error(`at-spi2-registryd did not take its bus name: ${logTail(registryd.logFiles)}`);
    await sleep(5);
  }
  await dbusCall(a11yConn, 'org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Accessible', 'GetChildren', {
    timeoutMs: ctx.timeoutMs,
  });
}
