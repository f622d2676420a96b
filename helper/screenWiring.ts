import { createHash } from 'node:crypto';
import { fail, type Exclusions } from '../protocol/index.js';
import type { Backend } from './core/backend.js';
import { Deadline } from './core/deadline.js';
import { isExcluded, isExcludedTitle } from './core/exclusions.js';
import { callScope, scopedPids } from './core/scope.js';
import type { ScreenMethods } from './core/service.js';
import type { ScreenBackend } from './screen/screenBackend.js';
import { ScreenService, type ScreenContext } from './screen/screenService.js';
import { defaultWork } from './screen/screenWork.js';

/** Budget of one question the screen tier asks the tree (element at a point, focus, a window). */
const PROBE_MS = 2000;

/** A Wayland session: its own socket, and no X display, or one that is only XWayland (the session says it is Wayland). */
export function isWaylandSession(env: NodeJS.ProcessEnv): boolean {
  const wayland = (env['WAYLAND_DISPLAY'] ?? '') !== '';
  return wayland && ((env['DISPLAY'] ?? '') === '' || env['XDG_SESSION_TYPE'] === 'wayland');
}

/** The screen backend of this session: an OSWorld VM's, the portals' on Wayland, X11 when there is an X display. */
async function openScreenBackend(log: (line: string) => void): Promise<ScreenBackend> {
  if (process.env['OVERSEER_BACKEND'] === 'osworld') {
    // The VM's screen, never this desktop's: an osworld helper has no other screen to fall back to.
    const [{ openOsworldScreenBackend }, { OsworldHttp, osworldSettings }] = await Promise.all([
      import('./screen/osworld/osworldScreen.js'),
      import('./osworld/osworldHttp.js'),
    ]);
    return openOsworldScreenBackend(new OsworldHttp(osworldSettings(process.env)));
  }
  if (process.platform === 'win32') {
    const { openWin32ScreenBackend } = await import('./screen/win32/win32Backend.js');
    return openWin32ScreenBackend();
  }
  if (isWaylandSession(process.env)) {
    // XWayland would show only X clients' windows: the portals see the whole desktop.
    const [{ openWaylandBackend }, { tokenFile }] = await Promise.all([import('./screen/wayland/waylandBackend.js'), import('./screen/wayland/tokenFile.js')]);
    return openWaylandBackend({ tokens: tokenFile(process.env['OVERSEER_DATA_DIR'], log), log });
  }
  if ((process.env['DISPLAY'] ?? '') === '')
    throw fail('capture_unavailable', 'no display: neither DISPLAY nor WAYLAND_DISPLAY is set', { reason: 'no_display' });
  const { openX11Backend } = await import('./screen/x11/x11Backend.js');
  return openX11Backend();
}

/**
 * The screen service over the session's screen backend and the accessibility backend: the tree
 * names applications, windows and the element at a point; the exclusions the supervisor configured
 * (its own pid, the agent host, app names and the titles of windows showing its UI) are the same.
 */
export function screenMethods(backend: Backend, log: (line: string) => void, backlog: () => number): ScreenMethods & { close(): Promise<void> } {
  let configured: Exclusions = {};
  const exclusions = (): Exclusions => configured;
  const names = new Map<number, string>();
  const context: ScreenContext = {
    resolveWindow: async (id) => (await backend.resolveWindow(id, new Deadline(PROBE_MS))).info,
    async appName(pid) {
      const known = names.get(pid);
      if (known !== undefined) return known;
      const { windows } = await backend.listWindows(new Deadline(PROBE_MS));
      for (const w of windows) names.set(w.pid, w.app);
      return names.get(pid);
    },
    elementAt: (pid, title, x, y) => backend.probe?.elementAt(pid, title, x, y, new Deadline(PROBE_MS)) ?? Promise.resolve({}),
    focused: (pid, title) => backend.probe?.focused(pid, title, new Deadline(PROBE_MS)) ?? Promise.resolve({}),
    hasFocus: (key) => backend.probe?.hasFocus?.(key, new Deadline(PROBE_MS)) ?? Promise.resolve(undefined),
    async activeWindow() {
      // Only one active window is an answer: none, or several (a stale state), is not knowing.
      // Excluded windows too: keys into the supervisor's own must be refused, not sent for want of a name.
      const active = (await backend.listWindows(new Deadline(PROBE_MS), { withExcluded: true })).windows.filter((w) => w.foreground);
      const [w] = active;
      if (w === undefined || active.length > 1) return undefined;
      names.set(w.pid, w.app);
      // A handle travels in fields of at most 100 characters (the card's focus binding, a rule's stay).
      const handle = w.window.length <= 90 ? `a11y:${w.window}` : `a11y:${createHash('sha256').update(w.window).digest('hex').slice(0, 40)}`;
      return { handle, title: w.title, pid: w.pid, classes: [w.app], rect: { x: 0, y: 0, width: 0, height: 0 } };
    },
    excluded(window, app) {
      const ex = exclusions();
      if (isExcludedTitle(ex, window.title)) return 'the supervisor’s own window';
      if (window.pid !== undefined && (window.pid === process.pid || (ex.pids ?? []).includes(window.pid))) return 'an excluded process';
      if (window.pid !== undefined && scopedPids().includes(window.pid)) return 'this agent’s own host';
      for (const name of [app ?? '', ...window.classes])
        if (name !== '' && isExcluded({ apps: ex.apps ?? [] }, -1, name)) return `an excluded application (${name})`;
      return undefined;
    },
    accessibility: () => ({ backend: backend.name, available: true }),
    agent: () => callScope()?.agent,
  };
  const service = new ScreenService(() => openScreenBackend(log), context, log, defaultWork(log, backlog));
  // Values that are typed (a web page's fields, a sheet's cells) go through this keyboard, in the caller's scope.
  backend.useTypist?.(service.keyboard);
  return {
    handles: (method): method is Parameters<ScreenMethods['handle']>[0] => ScreenService.handles(method),
    handle: (method, params, signal) => service.handle(method, params, signal),
    setExclusions: (e) => {
      configured = e;
    },
    close: () => service.close(),
  };
}
