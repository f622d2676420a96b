import { fail, OverseerError, type Action, type Exclusions, type ProcessIdentity, type Truncation, type WindowInfo } from '../../../protocol/index.js';
import type { ActionPlan, Backend, BackendStats, DispatchResult, NativeNode, TreeProbe, TreeSource, Typist, WindowHandle } from '../../core/backend.js';
import { setValueRoute } from '../../core/setValue.js';
import { type Deadline } from '../../core/deadline.js';
import { isExcluded, isExcludedTitle } from '../../core/exclusions.js';
import { AppCache } from './appCache.js';
import { Problems, str } from './readSupport.js';
import { AtspiTreeSource, walkedNote } from './treeSource.js';
import { I, type AtspiNode } from './atspiNode.js';
import { dispatchAtspi } from './atspiActions.js';
import { typesValue, typingPlan } from './typing.js';
import { elementAtPoint, focusedElement } from './atPoint.js';
import { AppUnresponsiveError } from './breaker.js';
import { A11yBus, DBusReplyError, DBusTimeoutError, enableAccessibility } from './dbus.js';
import { procStart } from './identity.js';
import { ROOT_PATH, asRef, keyOf, refOf } from './refs.js';
import { S, stateSet } from './roles.js';

const REGISTRY = 'org.a11y.atspi.Registry';
const WINDOW_EVENTS = 'org.a11y.atspi.Event.Window';
const EVENT_CLASSES = ['object:', 'window:', 'focus:', 'document:'];
const SIGNAL_INTERFACES = [
  'org.a11y.atspi.Event.Object',
  'org.a11y.atspi.Event.Window',
  'org.a11y.atspi.Event.Focus',
  'org.a11y.atspi.Event.Document',
  'org.a11y.atspi.Cache',
];
/** Per-application budget of a window listing. */
const LIST_APP_MS = 1500;

interface AppInfo {
  bus: string;
  pid: number;
  start: string;
  name: string;
}

/** How often changed applications are reported to the supervisor (what a person sees follows them). */
const CHANGE_REPORT_MS = 100;

function inside(rect: { x: number; y: number; w: number; h: number }, x: number, y: number): boolean {
  return x >= rect.x && y >= rect.y && x < rect.x + rect.w && y < rect.y + rect.h;
}

/** The Linux backend: AT-SPI over D-Bus (dbus-next), bulk reads with Cache.GetItems. */
export class AtspiBackend implements Backend {
  readonly name = 'atspi' as const;
  readonly capabilities = ['window_list', 'window_read', 'element_find', 'element_act', 'events_cache', 'cancel'] as const;
  private bus: A11yBus | undefined;
  private readonly caches = new Map<string, AppCache>();
  private readonly apps = new Map<string, AppInfo>();
  private readonly lastWindows = new Map<string, WindowInfo>();
  private exclusions: Exclusions = {};
  private changeListener: ((pids: number[]) => void) | undefined;
  private changedPids = new Set<number>();
  private changeTimer: ReturnType<typeof setTimeout> | undefined;
  /** The event counter each handle's resolution proved its application's cache current at (AppCache.load). */
  private readonly proofs = new WeakMap<WindowHandle, number>();
  private windowShown: ((window: string) => void) | undefined;
  /** The keyboard for values that are typed (typing.ts), given by the screen tier. */
  private typist: Typist | undefined;

  constructor(private readonly log: (line: string) => void) {}

  readonly probe: TreeProbe = {
    elementAt: async (pid, title, x, y, deadline) => {
      const found = await this.frameOf(pid, title, deadline, (f) => f.rect !== undefined && inside(f.rect, x, y));
      if (found === undefined) return {};
      const element = await elementAtPoint(this.a11y, found.cache, found.frame, x, y, deadline);
      return element === undefined ? { window: found.window } : { window: found.window, element };
    },
    focused: async (pid, title, deadline) => {
      const found = await this.frameOf(pid, title, deadline, (f) => f.state?.active === true);
      if (found === undefined) return {};
      const element = await focusedElement(this.a11y, found.cache, deadline);
      return element === undefined ? { window: found.window } : { window: found.window, element };
    },
    hasFocus: async (key, deadline) => {
      const ref = refOf(key);
      if (ref === undefined) return undefined;
      try {
        const [words] = await this.a11y.call(ref.bus, ref.path, I.accessible, 'GetState', deadline.remaining());
        return stateSet((words as number[] | undefined) ?? []).has(S.focused);
      } catch {
        return undefined;
      }
    },
  };

  /** The frame of process `pid` titled `title`, else the first that passes `fallback`. */
  private async frameOf(
    pid: number,
    title: string,
    deadline: Deadline,
    fallback: (frame: AtspiNode) => boolean,
  ): Promise<{ window: WindowInfo; frame: AtspiNode; cache: AppCache } | undefined> {
    let app = [...this.apps.values()].find((a) => a.pid === pid);
    if (app === undefined) {
      await this.listWindows(deadline);
      app = [...this.apps.values()].find((a) => a.pid === pid);
    }
    if (app === undefined || this.isExcluded(app)) return undefined;
    const windows = await this.appWindows(app, deadline);
    const cache = this.cacheFor(app.bus);
    const frames = windows.map((w) => cache.nodes.get(w.window)).filter((f): f is AtspiNode => f !== undefined);
    const frame = frames.find((f) => (f.name ?? '') === title && title !== '') ?? frames.find(fallback) ?? (frames.length === 1 ? frames[0] : undefined);
    const window = frame === undefined ? undefined : windows.find((w) => w.window === frame.key);
    if (frame === undefined || window === undefined || isExcludedTitle(this.exclusions, window.title)) return undefined;
    return { window, frame, cache };
  }

  onChange(listener: (pids: number[]) => void): void {
    this.changeListener = listener;
  }

  onWindowShown(listener: (window: string) => void): void {
    this.windowShown = listener;
  }

  /** Collects the processes whose trees changed and reports them at most every CHANGE_REPORT_MS. */
  private noteChange(bus: string): void {
    const pid = this.apps.get(bus)?.pid;
    if (pid === undefined || this.changeListener === undefined) return;
    this.changedPids.add(pid);
    this.changeTimer ??= setTimeout(() => {
      this.changeTimer = undefined;
      const pids = [...this.changedPids];
      this.changedPids.clear();
      this.changeListener?.(pids);
    }, CHANGE_REPORT_MS);
  }

  async start(): Promise<void> {
    // Before connecting: applications that wait for it join the bus once it is on (Firefox at once, Qt on its next start).
    if (process.env['OVERSEER_ATSPI_ENABLE'] !== '0') {
      const enabled = await enableAccessibility(2000);
      if ('failed' in enabled) this.log(`[atspi] could not turn the session's accessibility on: ${enabled.failed}`);
      else if (enabled.done === 'turned_on')
        this.log("[atspi] turned the session's accessibility on (org.a11y.Status.IsEnabled), as assistive technologies do");
    }
    const bus = await A11yBus.connect(3000, this.log);
    this.bus = bus;
    bus.onSignal((sender, path, iface, member, body) => {
      if (iface === 'org.freedesktop.DBus' && member === 'NameOwnerChanged') {
        const name = body[0];
        if (typeof name === 'string' && body[2] === '') {
          bus.breakers.forget(name);
          this.caches.delete(name);
          this.apps.delete(name);
          for (const window of this.lastWindows.keys()) if (refOf(window)?.bus === name) this.lastWindows.delete(window);
        }
        return;
      }
      // GTK4 frames send no window events, only their `active` state.
      if ((iface === WINDOW_EVENTS && (member === 'Activate' || member === 'Create')) || (member === 'StateChanged' && body[0] === 'active' && body[1] === 1))
        this.windowShown?.(keyOf(sender, path));
      const cache = this.caches.get(sender);
      if (cache === undefined) return;
      // AddAccessible/RemoveAccessible name the object in their body, not in the signal path.
      const ref = iface === I.cache ? asRef(member === 'RemoveAccessible' ? body[0] : Array.isArray(body[0]) ? body[0][0] : undefined) : undefined;
      if (cache.onEvent(ref?.path ?? path, iface, member, body)) this.noteChange(sender);
    });
    bus.onDisconnect(() => this.log('[atspi] accessibility bus connection closed'));
    await Promise.all([
      ...SIGNAL_INTERFACES.map((i) => bus.addMatch(`type='signal',interface='${i}'`, 3000)),
      bus.addMatch("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'", 3000),
    ]);
    // Registering listeners also makes toolkit bridges publish their Cache object.
    await Promise.all(
      EVENT_CLASSES.map((e) => bus.call(REGISTRY, '/org/a11y/atspi/registry', 'org.a11y.atspi.Registry', 'RegisterEvent', 3000, 'sass', [e, [], ''])),
    );
    await this.warmUp(bus);
  }

  /**
   * Runs the D-Bus call path a few hundred times against the bus daemon (no application is
   * touched) so that the first real read does not pay for the JIT compiling it.
   */
  private async warmUp(bus: A11yBus): Promise<void> {
    const started = Date.now();
    for (let round = 0; round < 4; round++) {
      await Promise.all(Array.from({ length: 150 }, () => bus.daemon('GetNameOwner', 1000, 's', ['org.a11y.atspi.Registry']).catch(() => undefined)));
    }
    this.log(`[atspi] call path warmed in ${Date.now() - started} ms`);
  }

  stop(): Promise<void> {
    if (this.changeTimer !== undefined) clearTimeout(this.changeTimer);
    this.bus?.disconnect();
    this.bus = undefined;
    return Promise.resolve();
  }

  setExclusions(exclusions: Exclusions): void {
    this.exclusions = exclusions;
  }

  private get a11y(): A11yBus {
    if (this.bus === undefined) throw fail('accessibility_unavailable', 'the AT-SPI backend is not connected', { reason: 'bus_down' });
    return this.bus;
  }

  private cacheFor(bus: string): AppCache {
    let cache = this.caches.get(bus);
    if (cache === undefined) {
      cache = new AppCache(this.a11y, bus);
      this.caches.set(bus, cache);
    }
    return cache;
  }

  private isExcluded(app: AppInfo): boolean {
    return isExcluded(this.exclusions, app.pid, app.name);
  }

  /** pid, start time and name of an application connection (cached per bus name). */
  private async appInfo(bus: string, deadline: Deadline): Promise<AppInfo> {
    const known = this.apps.get(bus);
    if (known !== undefined) return known;
    // Both asked at once: a cold read waits for this before anything else.
    // A frozen application cannot tell its name: go on without it (and ask again next time).
    const asked = this.a11y.getProperty(bus, ROOT_PATH, I.accessible, 'Name', Math.min(deadline.remaining(), LIST_APP_MS)).then(str, () => undefined);
    let pid: number;
    try {
      const [p] = await this.a11y.daemon('GetConnectionUnixProcessID', deadline.remaining(), 's', [bus]);
      pid = Number(p);
    } catch {
      throw fail('stale_process', `the application ${bus} is no longer connected`, { bus });
    }
    const start = procStart(pid);
    if (start === undefined) throw fail('stale_process', `process ${pid} has exited`, { pid });
    const name = await asked;
    const info = { bus, pid, start, name: name ?? '' };
    if (name !== undefined) this.apps.set(bus, info);
    return info;
  }

  private async appBuses(deadline: Deadline): Promise<string[]> {
    const [children] = await this.a11y.call(REGISTRY, ROOT_PATH, I.accessible, 'GetChildren', deadline.remaining());
    return (Array.isArray(children) ? children : []).map(asRef).flatMap((r) => (r === undefined ? [] : [r.bus]));
  }

  async listWindows(
    deadline: Deadline,
    options: { withExcluded?: boolean } = {},
  ): Promise<{ windows: WindowInfo[]; truncated: Truncation[]; notes: string[] }> {
    const all = options.withExcluded === true;
    const truncated = new Set<Truncation>();
    const notes: string[] = [];
    const windows: WindowInfo[] = [];
    await Promise.all(
      (await this.appBuses(deadline)).map(async (bus) => {
        const slice = deadline.slice(LIST_APP_MS);
        // Never waited for: an application that stopped answering is listed as last seen, and why.
        const hungListing = (): boolean => {
          const hung = this.unresponsive(bus);
          if (hung === undefined) return false;
          if (!all && hung.app !== undefined && this.isExcluded(hung.app)) return true;
          const seen = [...this.lastWindows.values()].filter((w) => refOf(w.window)?.bus === bus && (all || !isExcludedTitle(this.exclusions, w.title)));
          windows.push(...seen.map((w) => ({ ...w, foreground: false })));
          truncated.add('timeout');
          const listed =
            seen.length === 0
              ? 'none of its windows was seen before'
              : `its ${seen.length === 1 ? 'window is' : `${seen.length} windows are`} listed as last seen`;
          notes.push(`application_unresponsive: ${hung.detail}; ${listed}`);
          return true;
        };
        if (hungListing()) return;
        try {
          const app = await this.appInfo(bus, slice);
          if (!all && this.isExcluded(app)) return;
          windows.push(...(await this.appWindows(app, slice)).filter((w) => all || !isExcludedTitle(this.exclusions, w.title)));
          const cache = this.caches.get(bus);
          if (cache?.bulkEmpty === true) notes.push(walkedNote(app.name, cache.toolkit.label));
        } catch (error) {
          if (error instanceof OverseerError && error.code === 'stale_process') return;
          if (hungListing()) return;
          const cut: Truncation = error instanceof DBusTimeoutError ? 'timeout' : 'provider_error';
          truncated.add(cut);
          const known = this.apps.get(bus);
          notes.push(
            `${cut}: application ${known?.name ?? bus}${known ? ` (pid ${known.pid})` : ''} did not answer: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }),
    );
    windows.sort((a, b) => Number(b.foreground) - Number(a.foreground));
    return { windows, truncated: [...truncated], notes };
  }

  private async appWindows(app: AppInfo, deadline: Deadline): Promise<WindowInfo[]> {
    const cache = this.cacheFor(app.bus);
    await cache.load(deadline);
    const nodes = cache.nodes;
    const rootKey = keyOf(app.bus, ROOT_PATH);
    // A frame without a name (GTK header-bar apps) is titled by its application, as the window system shows it.
    const frames = [...nodes.values()].filter(
      (n) => n.parent === rootKey && (n.name !== undefined && n.name !== '' ? n.name : app.name) !== '' && n.state?.offscreen === false,
    );
    await cache.details(
      nodes,
      frames.map((f) => f.key),
      deadline,
      new Problems(),
    );
    return frames.map((f) => this.windowInfo(app, f));
  }

  private windowInfo(app: AppInfo, frame: AtspiNode): WindowInfo {
    const info: WindowInfo = {
      window: frame.key,
      title: frame.name !== undefined && frame.name !== '' ? frame.name : app.name,
      app: app.name,
      pid: app.pid,
      process_start: app.start,
      foreground: frame.state?.active === true,
      role: frame.role,
    };
    if (frame.rect !== undefined) info.rect = frame.rect;
    this.lastWindows.set(frame.key, info);
    return info;
  }

  /** The window's application or the window itself no longer exists. */
  private windowGone(id: string, app?: AppInfo): OverseerError {
    const title = this.lastWindows.get(id)?.title;
    const what = `${title !== undefined ? `"${title}"` : id}${app !== undefined && app.name !== '' ? ` of ${app.name}` : ''}`;
    return fail('window_gone', app === undefined ? `window ${what} is gone: its application exited` : `window ${what} is gone`, { window: id });
  }

  /** True when the application's connection has left the bus (an error reply then means it exited). */
  private async gone(bus: string, deadline: Deadline): Promise<boolean> {
    try {
      await this.a11y.daemon('GetNameOwner', Math.min(deadline.remaining(), 1000), 's', [bus]);
      return false;
    } catch (error) {
      return error instanceof DBusReplyError;
    }
  }

  /** An application that stopped answering, with a sentence naming it (docs/compatibility.md#an-application-that-stops-answering). */
  private unresponsive(bus: string): { detail: string; data: Record<string, unknown>; app?: AppInfo } | undefined {
    const hung = this.bus?.breakers.state(bus);
    if (hung === undefined) return undefined;
    const app = this.apps.get(bus);
    const now = performance.now();
    const sinceS = Math.max(1, Math.round((now - hung.since) / 1000));
    const retry = Math.max(0, Math.round(hung.nextProbe - now));
    const who = app !== undefined && app.name !== '' ? `${app.name} (pid ${app.pid})` : `the application ${bus}`;
    return {
      detail: `${who} has not answered its accessibility calls for ${sinceS} s: Overseer sends it nothing and asks again ${retry < 1000 ? 'now' : `in ${Math.ceil(retry / 1000)} s`}`,
      data: { app: app?.name ?? bus, ...(app !== undefined ? { pid: app.pid } : {}), since_ms: Math.round(now - hung.since), retry_after_ms: retry },
      ...(app !== undefined ? { app } : {}),
    };
  }

  /** Throws application_unresponsive when the window's application stopped answering. */
  private refuseUnresponsive(bus: string, window: string): void {
    const hung = this.unresponsive(bus);
    if (hung !== undefined) throw fail('application_unresponsive', hung.detail, { ...hung.data, window });
  }

  async resolveWindow(id: string | undefined, deadline: Deadline): Promise<WindowHandle> {
    if (id === undefined) {
      const { windows } = await this.listWindows(deadline);
      const first = windows[0];
      if (first === undefined) throw fail('not_found', 'there is no visible titled window to read', { searched_whole_window: true });
      return this.resolveWindow(first.window, deadline);
    }
    const ref = refOf(id);
    if (ref === undefined) throw fail('invalid_argument', `"${id}" is not a window id from window_list`);
    let app: AppInfo;
    try {
      app = await this.appInfo(ref.bus, deadline);
    } catch (error) {
      if (error instanceof OverseerError && error.code === 'stale_process') throw this.windowGone(id);
      throw error;
    }
    if (this.isExcluded(app))
      throw fail('excluded_target', `window ${id} belongs to an excluded application (${app.name}, pid ${app.pid})`, { window: id, pid: app.pid });
    this.refuseUnresponsive(app.bus, id);
    const cache = this.cacheFor(app.bus);
    const last = this.lastWindows.get(id);
    let proof: number;
    try {
      proof = await cache.load(deadline);
    } catch (error) {
      if (error instanceof AppUnresponsiveError) this.refuseUnresponsive(app.bus, id);
      if (error instanceof DBusReplyError && (await this.gone(app.bus, deadline))) throw this.windowGone(id, app);
      if (!(error instanceof DBusTimeoutError)) throw error;
      // The application is not answering: answer partially from what the listing knew.
      const info = last ?? { window: id, title: '', app: app.name, pid: app.pid, process_start: app.start, foreground: false };
      return { info, rootKey: id, process: { pid: app.pid, process_start: app.start } };
    }
    const nodes = cache.nodes;
    const frame = nodes.get(id);
    if (frame === undefined || frame.parent !== keyOf(app.bus, ROOT_PATH)) throw this.windowGone(id, app);
    await cache.details(nodes, [id], deadline, new Problems());
    const info = this.windowInfo(app, frame);
    if (isExcludedTitle(this.exclusions, info.title))
      throw fail('excluded_target', `window ${id} shows the supervisor's own UI ("${info.title}")`, { window: id, pid: app.pid });
    const handle = { info, rootKey: id, process: { pid: app.pid, process_start: app.start } };
    this.proofs.set(handle, proof);
    return handle;
  }

  async open(window: WindowHandle, deadline: Deadline): Promise<TreeSource> {
    const ref = refOf(window.rootKey);
    if (ref === undefined) throw fail('stale_window', `window ${window.rootKey} is not an AT-SPI window`);
    const source = new AtspiTreeSource(window, this.cacheFor(ref.bus));
    // The barrier of resolving this handle stands for its first opening only (never across a dispatch).
    const proof = this.proofs.get(window);
    this.proofs.delete(window);
    await source.open(deadline, proof);
    return source;
  }

  stats(): BackendStats {
    const counts = this.bus?.counts;
    const loads = { reused: 0, reloaded: 0, nodes: 0, ms: 0 };
    for (const cache of this.caches.values()) {
      loads.reused += cache.loads.reused;
      loads.reloaded += cache.loads.reloaded;
      loads.nodes += cache.loads.nodes;
      loads.ms += cache.loads.ms;
    }
    return {
      calls: counts?.calls ?? 0,
      callsByMember: { ...counts?.byMember },
      maxInFlight: this.bus?.takePeak() ?? 0,
      loadsReused: loads.reused,
      loadsReloaded: loads.reloaded,
      nodesLoaded: loads.nodes,
      loadMs: loads.ms,
    };
  }

  checkProcess(process: ProcessIdentity): Promise<void> {
    const start = procStart(process.pid);
    if (start === undefined) return Promise.reject(fail('stale_process', `process ${process.pid} has exited`, { pid: process.pid }));
    if (start !== process.process_start)
      return Promise.reject(fail('stale_process', `pid ${process.pid} now belongs to another process (start time changed)`, { pid: process.pid }));
    return Promise.resolve();
  }

  dispatch(source: TreeSource, node: NativeNode, action: Action, text: string | undefined, deadline: Deadline): Promise<DispatchResult> {
    if (!(source instanceof AtspiTreeSource)) throw new Error('foreign tree source');
    return dispatchAtspi(this.a11y, source, node as AtspiNode, action, text, deadline, this.typist);
  }

  async plan(source: TreeSource, node: NativeNode, action: Action, text: string | undefined): Promise<ActionPlan | undefined> {
    if (!(source instanceof AtspiTreeSource)) throw new Error('foreign tree source');
    if (action !== 'set_value' || text === undefined || !typesValue(source, node as AtspiNode)) return undefined;
    if (setValueRoute(node.patterns, text).via !== 'text') return undefined;
    return typingPlan(source, node as AtspiNode, text, this.typist);
  }

  useTypist(typist: Typist): void {
    this.typist = typist;
  }
}
