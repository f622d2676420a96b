// Waiting for a window to appear on the desktop's accessibility bus.
//
// Walks registry root -> applications -> their top-level children and looks
// for a frame/window/dialog/alert/file chooser with the wanted name. Only the
// top level is read: it is all a window title needs, and it keeps a pass
// cheap enough to repeat every 100 ms.

import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageBus } from 'dbus-next';
import { asRefs, dbusCall, variantValue, type ObjectRef } from './dbus.js';

/** How long waitForWindow and launch({ waitForWindow }) wait unless told otherwise. */
export const DEFAULT_WINDOW_TIMEOUT_MS = 15_000;

const ATSPI_ROLE_ALERT = 2;
const ATSPI_ROLE_DIALOG = 16;
const ATSPI_ROLE_FILE_CHOOSER = 19;
const ATSPI_ROLE_FRAME = 23;
const ATSPI_ROLE_WINDOW = 69;
const WINDOW_ROLES = new Set([ATSPI_ROLE_FRAME, ATSPI_ROLE_WINDOW, ATSPI_ROLE_DIALOG, ATSPI_ROLE_ALERT, ATSPI_ROLE_FILE_CHOOSER]);

/** A window found on the a11y bus, with the pid of the process that owns its bus connection. */
export interface FoundWindow {
  busName: string;
  path: string;
  pid: number;
}

/**
 * Wait until a window named `title` appears in a process `acceptPid` accepts.
 * `giveUp` is asked before every pass; a non-null answer rejects with it.
 */
export type WindowWaiter = (
  title: string | RegExp,
  timeoutMs: number,
  acceptPid: (pid: number) => boolean,
  giveUp: () => string | null,
) => Promise<FoundWindow>;

function matchesTitle(title: string | RegExp, name: string): boolean {
  if (typeof title === 'string') return name === title;
  // A /g or /y RegExp remembers where its last match ended: start afresh.
  title.lastIndex = 0;
  return title.test(name);
}

/** A window title for error messages: strings quoted, RegExps as /source/flags. */
export function describeTitle(title: string | RegExp): string {
  return typeof title === 'string' ? JSON.stringify(title) : String(title);
}

/** Build a WindowWaiter on `a11yConn` (the a11y bus of `display`) that stops waiting once `isStopping()`. */
export function createWindowWaiter(a11yConn: MessageBus, display: string, isStopping: () => boolean): WindowWaiter {
  // Unique bus names are never reused while the bus lives: cache their pids.
  const pidOfBusName = new Map<string, number>();
  const busPid = async (busName: string): Promise<number> => {
    const cached = pidOfBusName.get(busName);
    if (cached !== undefined) return cached;
    // Answered by the bus daemon itself: never delayed by a busy app.
    const [pidValue] = await dbusCall(a11yConn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetConnectionUnixProcessID', {
      signature: 's',
      body: [busName],
    });
    const pid = typeof pidValue === 'number' ? pidValue : 0;
    pidOfBusName.set(busName, pid);
    return pid;
  };

  const checkApp = async (appRef: ObjectRef, title: string | RegExp, acceptPid: (pid: number) => boolean): Promise<FoundWindow | null> => {
    const pid = await busPid(appRef.busName);
    if (!acceptPid(pid)) return null;
    const [childrenValue] = await dbusCall(a11yConn, appRef.busName, appRef.path, 'org.a11y.atspi.Accessible', 'GetChildren');
    const children = asRefs(childrenValue);
    const matches = await Promise.all(
      children.map(async (child): Promise<boolean> => {
        const [nameValue] = await dbusCall(a11yConn, child.busName, child.path, 'org.freedesktop.DBus.Properties', 'Get', {
          signature: 'ss',
          body: ['org.a11y.atspi.Accessible', 'Name'],
        });
        const name = variantValue(nameValue);
        if (typeof name !== 'string' || !matchesTitle(title, name)) return false;
        const [role] = await dbusCall(a11yConn, child.busName, child.path, 'org.a11y.atspi.Accessible', 'GetRole');
        return typeof role === 'number' && WINDOW_ROLES.has(role);
      }),
    );
    const hit = children[matches.indexOf(true)];
    return hit === undefined ? null : { busName: hit.busName, path: hit.path, pid };
  };

  /**
   * One pass over registry root -> applications -> their top-level children.
   * Resolves with the first match; a frozen app (calls time out) delays the
   * answer only when nothing else matches.
   */
  const scanOnce = async (title: string | RegExp, acceptPid: (pid: number) => boolean): Promise<FoundWindow | null> => {
    const [appsValue] = await dbusCall(a11yConn, 'org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Accessible', 'GetChildren');
    const appRefs = asRefs(appsValue);
    if (appRefs.length === 0) return null;
    return new Promise<FoundWindow | null>((resolve) => {
      let pending = appRefs.length;
      for (const appRef of appRefs) {
        checkApp(appRef, title, acceptPid)
          .then(
            (hit) => {
              if (hit !== null) resolve(hit);
            },
            () => undefined, // app busy, frozen or gone: look again next round
          )
          .finally(() => {
            pending -= 1;
            if (pending === 0) resolve(null);
          });
      }
    });
  };

  return async (title, timeoutMs, acceptPid, giveUp) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (isStopping()) throw new Error('waitForWindow: the desktop is stopping');
      const reason = giveUp();
      if (reason !== null) throw new Error(reason);
      let found: FoundWindow | null = null;
      try {
        found = await scanOnce(title, acceptPid);
      } catch {
        found = null;
      }
      if (found !== null) return found;
      if (Date.now() >= deadline) {
        throw new Error(`waitForWindow: no window named ${describeTitle(title)} appeared on the a11y bus of ${display} within ${timeoutMs} ms`);
      }
      await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
    }
  };
}
