// Finding the remote user's graphical session (docs/connections.md#finding-the-desktop): a helper
// started over ssh has no DISPLAY and no session bus of its own (an ssh session is not the desktop
// session). The user's desktop processes carry both in their environment; failing that, the
// well-known places (/run/user/UID/bus, /tmp/.X11-unix) are tried. Two desktops of one user are
// never guessed between: the helper refuses and names them, and the connection's entry says which.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { fail, type OverseerError } from '../../protocol/index.js';

/** The session the helper will use, and how it was found. */
export interface FoundSession {
  /** Variables to set in the helper's environment (DISPLAY, DBUS_SESSION_BUS_ADDRESS, ...). */
  env: Record<string, string>;
  /** x11 or wayland. */
  type: 'x11' | 'wayland';
  /** What was tried, in order (logged; said when nothing is found). */
  tried: string[];
}

/** Where findSession looks (tests give a fake tree). */
export interface SessionRoots {
  proc: string;
  runUser: string;
  x11Sockets: string;
  uid: number;
}

const SYSTEM_ROOTS = (): SessionRoots => ({ proc: '/proc', runUser: '/run/user', x11Sockets: '/tmp/.X11-unix', uid: process.getuid?.() ?? -1 });

/** The variables a desktop process passes on that the helper needs (the rest of its environment is not taken). */
const SESSION_VARS = ['DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'XAUTHORITY'] as const;

/** What one process says of its session. */
type SessionVars = Partial<Record<(typeof SESSION_VARS)[number], string>>;

/** Most candidate sessions named in a refusal. */
const MAX_NAMED = 5;

/**
 * Finds the graphical session for `env` (the helper's own): what it already has is kept, the rest
 * is taken from the user's desktop processes or the well-known places. Throws connection_unavailable
 * reason no_session, with everything it tried, when no session (or more than one) is found.
 */
export function findSession(env: Record<string, string | undefined>, roots: SessionRoots = SYSTEM_ROOTS()): FoundSession {
  const tried: string[] = [];
  const given = { display: nonEmpty(env['DISPLAY']), bus: nonEmpty(env['DBUS_SESSION_BUS_ADDRESS']) };
  if (given.display !== undefined && given.bus !== undefined) {
    tried.push(`DISPLAY=${given.display} and the bus were given`);
    return { env: {}, type: 'x11', tried };
  }
  const candidates = desktopProcesses(roots, tried).filter(
    (c) => (given.display === undefined || c.DISPLAY === given.display) && (given.bus === undefined || c.DBUS_SESSION_BUS_ADDRESS === given.bus),
  );
  // One session per display (or per Wayland socket): the bus most of its processes use.
  const sessions = new Map<string, Map<string, { count: number; vars: SessionVars }>>();
  for (const c of candidates) {
    const key = c.DISPLAY !== undefined ? `DISPLAY=${c.DISPLAY}` : `WAYLAND_DISPLAY=${c.WAYLAND_DISPLAY ?? ''}`;
    const buses = sessions.get(key) ?? new Map<string, { count: number; vars: SessionVars }>();
    const bus = c.DBUS_SESSION_BUS_ADDRESS ?? '';
    const seen = buses.get(bus) ?? { count: 0, vars: c };
    seen.count++;
    buses.set(bus, seen);
    sessions.set(key, buses);
  }
  if (sessions.size > 1) {
    const named = [...sessions.keys()].slice(0, MAX_NAMED).join(', ');
    throw noSession(
      `more than one graphical session of this user is running (${named}); the helper never guesses which one to act on`,
      tried,
      'set display (and bus) on the connection to the one to use',
    );
  }
  const found = [...sessions.values()][0];
  if (found !== undefined) {
    const best = [...found.values()].sort((a, b) => b.count - a.count)[0];
    const vars = best?.vars ?? {};
    const out: Record<string, string> = {};
    for (const name of SESSION_VARS) {
      const value = vars[name];
      if (value !== undefined && env[name] === undefined) out[name] = value;
    }
    if (given.bus === undefined && out['DBUS_SESSION_BUS_ADDRESS'] === undefined) {
      const bus = userBus(roots, tried);
      if (bus !== undefined) out['DBUS_SESSION_BUS_ADDRESS'] = bus;
    }
    if (given.bus === undefined && out['DBUS_SESSION_BUS_ADDRESS'] === undefined)
      throw noSession('a display was found but no session bus', tried, 'set bus on the connection');
    tried.push(
      `using ${Object.entries(out)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    return { env: out, type: (given.display ?? out['DISPLAY']) !== undefined ? 'x11' : 'wayland', tried };
  }
  // No desktop process to learn from: the well-known places, when they name exactly one session.
  const out: Record<string, string> = {};
  const bus = given.bus ?? userBus(roots, tried);
  const display = given.display ?? soleDisplay(roots, tried);
  if (bus === undefined || display === undefined) {
    throw noSession('no graphical session of this user was found', tried, 'log in to the desktop on the remote, or set display and bus on the connection');
  }
  if (given.bus === undefined) out['DBUS_SESSION_BUS_ADDRESS'] = bus;
  if (given.display === undefined) out['DISPLAY'] = display;
  tried.push(
    `using ${Object.entries(out)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  return { env: out, type: 'x11', tried };
}

/** The session variables of this user's processes that have a display (never the helper's own). */
function desktopProcesses(roots: SessionRoots, tried: string[]): SessionVars[] {
  let pids: string[];
  try {
    pids = readdirSync(roots.proc).filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch (error) {
    tried.push(`${roots.proc}: not readable (${(error as Error).message})`);
    return [];
  }
  const found: SessionVars[] = [];
  for (const pid of pids) {
    try {
      if (statSync(`${roots.proc}/${pid}`).uid !== roots.uid) continue;
      const vars: SessionVars = {};
      for (const entry of readFileSync(`${roots.proc}/${pid}/environ`, 'utf8').split('\0')) {
        const at = entry.indexOf('=');
        const name = entry.slice(0, at) as (typeof SESSION_VARS)[number];
        if (at > 0 && SESSION_VARS.includes(name) && entry.length > at + 1) vars[name] = entry.slice(at + 1);
      }
      if (vars.DISPLAY !== undefined || vars.WAYLAND_DISPLAY !== undefined) found.push(vars);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  tried.push(`${roots.proc}: ${found.length} process(es) of uid ${roots.uid} with a display in their environment`);
  return found;
}

/** systemd's per-user bus, when it is there. */
function userBus(roots: SessionRoots, tried: string[]): string | undefined {
  const path = `${roots.runUser}/${roots.uid}/bus`;
  try {
    if (statSync(path).isSocket()) {
      tried.push(`${path}: a socket`);
      return `unix:path=${path}`;
    }
  } catch {
    // Missing: said below.
  }
  tried.push(`${path}: missing`);
  return undefined;
}

/** The one X server socket this user owns, as a display (":0"). */
function soleDisplay(roots: SessionRoots, tried: string[]): string | undefined {
  let names: string[];
  try {
    names = readdirSync(roots.x11Sockets).filter((n) => /^X\d+$/.test(n));
  } catch {
    tried.push(`${roots.x11Sockets}: missing`);
    return undefined;
  }
  const own = names.filter((n) => {
    try {
      return statSync(`${roots.x11Sockets}/${n}`).uid === roots.uid;
    } catch {
      return false;
    }
  });
  tried.push(`${roots.x11Sockets}: ${names.length} X socket(s), ${own.length} of uid ${roots.uid}${own.length > 0 ? ` (${own.join(', ')})` : ''}`);
  return own.length === 1 ? `:${(own[0] as string).slice(1)}` : undefined;
}

function noSession(why: string, tried: string[], hint: string): OverseerError {
  return fail('connection_unavailable', `${why}. Tried: ${tried.join('; ')}`, { reason: 'no_session', hint, tried });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
