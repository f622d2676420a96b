// The accessibility backend of an osworld_http connection (docs/connections.md#osworld): read-only.
// Every read asks the VM's server for its whole AT-SPI tree (GET /accessibility) and maps it onto
// the element model with rects: windows are the applications' top-level frames, roles and states
// the AT-SPI names of its `st:` attributes, values `val:value` (or an editable text's text), actions
// its `act:` names. The server names no processes, so a window's identity is its application's name
// and instance and its place among that application's windows, checked against its title; pids are
// 0 and `process_start` carries that identity. Acting on elements is refused `pattern_unsupported`:
// the server has no call that acts on an accessible, and this backend does not pretend to (the screen
// tier does it: a screenshot, then a click at the element's rect).

import { fail, OverseerError, rect, type Action, type Exclusions, type Pattern, type ProcessIdentity, type WindowInfo } from '../../../protocol/index.js';
import { mapRoleName, mapState, STATE_NUMBERS } from '../../backends/atspi/roles.js';
import type { Backend, DispatchResult, NativeNode, TreeSource, WindowHandle } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import { isExcluded, isExcludedTitle } from '../../core/exclusions.js';
import { accessibilityXmlOf, desktopWindows, subtreeAt, type AxNode, type AxWindow } from '../../osworld/accessibilityXml.js';
import type { OsworldHttp } from '../../osworld/osworldHttp.js';

/** Most bytes of one tree: a VM with a big document open writes tens of megabytes of XML. */
const MAX_TREE_BYTES = 64 * 1024 * 1024;
/** How long the tree a window's resolution fetched stands for opening it (the same read, right after). */
const RESOLVED_FRESH_MS = 500;

/** What a person or agent can do instead of element_act on this connection. */
const INSTEAD = 'act through the screen tier: take a screenshot (the screenshot tool), then click or type at the element’s rect';

/** The patterns an accessible shows, from what the XML says it has (its actions, value, states). */
function patternsOf(node: AxNode, nativeRole: string): Pattern[] {
  const out = new Set<Pattern>();
  const actions = new Set(node.actions);
  if (actions.has('click') || actions.has('press') || actions.has('activate') || actions.has('jump')) out.add('invoke');
  if (node.states.has('checkable') || nativeRole === 'check-box' || nativeRole === 'toggle-button' || nativeRole === 'radio-button') out.add('toggle');
  if (actions.has('toggle')) out.add('toggle');
  if (node.value !== undefined) out.add('range_value');
  if (node.states.has('editable')) {
    out.add('value');
    out.add('text');
  }
  if (node.states.has('expandable') || actions.has('expand-or-contract')) out.add('expand_collapse');
  if (node.states.has('selectable')) out.add('selection_item');
  if (node.states.has('focusable')) out.add('focus');
  return [...out];
}

/** One window's elements, all read in one answer. */
class XmlTreeSource implements TreeSource {
  readonly truncated = new Set<never>();
  readonly notes: string[] = [];
  private readonly nodes = new Map<string, NativeNode>();

  constructor(
    readonly window: WindowHandle,
    root: AxNode,
  ) {
    this.add(root, undefined, window.rootKey);
  }

  private add(ax: AxNode, parent: string | undefined, key: string): void {
    const { role, nativeRole } = mapRoleName(ax.role);
    const states = new Set<number>();
    for (const s of ax.states) {
      const n = STATE_NUMBERS.get(s.replace(/_/g, '-'));
      if (n !== undefined) states.add(n);
    }
    const state = mapState(states, nativeRole);
    const childKeys = ax.children.map((_, i) => `${key}.${i}`);
    const node: NativeNode = {
      key,
      parent,
      children: childKeys,
      childCount: childKeys.length,
      role,
      nativeRole,
      state,
      patterns: patternsOf(ax, nativeRole),
      detailed: true,
      unread: new Set(),
    };
    if (ax.name !== '') node.name = ax.name;
    if (ax.actions.length > 0) node.actions = [...ax.actions];
    if (ax.rect !== undefined) node.rect = rect(ax.rect.x, ax.rect.y, ax.rect.w, ax.rect.h);
    if (state.password !== true) {
      if (ax.value !== undefined) node.value = ax.value;
      else if (ax.text !== undefined && (ax.states.has('editable') || ax.children.length === 0)) node.value = ax.text;
    }
    if (ax.attributes['id'] !== undefined) node.automationId = ax.attributes['id'];
    this.nodes.set(key, node);
    ax.children.forEach((c, i) => this.add(c, key, childKeys[i] ?? ''));
  }

  node(key: string): NativeNode | undefined {
    return this.nodes.get(key);
  }
  expand(): Promise<void> {
    return Promise.resolve();
  }
  details(): Promise<void> {
    return Promise.resolve();
  }
  fetch(key: string): Promise<NativeNode | undefined> {
    return Promise.resolve(this.nodes.get(key));
  }
  isDetailed(key: string): boolean {
    return this.nodes.has(key);
  }
  finish(): void {}
}

/** A window found in one answer of the VM: the XML, where the window sits in it, and what it is. */
interface Resolved {
  xml: string;
  path: string;
  info: WindowInfo;
  /** When it was found (performance.now()). */
  at: number;
}

export class OsworldBackend implements Backend {
  readonly name = 'osworld' as const;
  /**
   * A listing fetches and parses the VM's whole tree (its server walks AT-SPI for each one), which
   * takes seconds on a loaded VM: it gets most of the supervisor's 10 s for window_list, not the local 3 s.
   */
  readonly listBudgetMs = 8000;
  readonly capabilities = ['window_list', 'window_read', 'element_find', 'read_only'] as const;
  private exclusions: Exclusions = {};
  private readonly titles = new Map<string, string>();
  /** The XML each handle's resolution fetched, for its first opening (see open). */
  private readonly resolved = new WeakMap<WindowHandle, Resolved>();

  constructor(
    private readonly http: OsworldHttp,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    // A VM that is not up yet is no reason to stop serving: every call asks it again and answers
    // connection_unavailable while it is down (a failed start would answer that for the helper's life).
    try {
      await this.windows(undefined);
      this.log(`[helper] osworld backend: ${this.http.settings.url}`);
    } catch (error) {
      if (!isConnectionFailure(error)) throw error;
      this.log(`[helper] osworld backend: ${this.http.settings.url} is not reachable yet: ${error.message}`);
    }
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  setExclusions(exclusions: Exclusions): void {
    this.exclusions = exclusions;
  }

  /** The VM's whole tree, now, as the XML its server wrote. */
  private async xml(deadline: Deadline | undefined): Promise<string> {
    const connection = this.http.settings.connection;
    const timeoutMs = deadline === undefined ? undefined : Math.max(100, deadline.remaining());
    const signal = deadline?.abortSignal;
    // A cancelled read stops waiting for the VM at once (the tree of a busy VM takes seconds).
    const answer = await this.http.request('GET', '/accessibility', {
      maxBytes: MAX_TREE_BYTES,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(signal !== undefined ? { signal } : {}),
    });
    if (answer.status !== 200)
      throw fail(
        'accessibility_unavailable',
        `the OSWorld server answered /accessibility with ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`,
        {
          connection,
          reason: 'server_error',
          status: answer.status,
        },
      );
    const xml = accessibilityXmlOf(this.http.json(answer, 'GET /accessibility'));
    if (xml === undefined)
      throw fail('accessibility_unavailable', 'the OSWorld server’s /accessibility answer has no "AT" tree', { connection, reason: 'bad_answer' });
    return xml;
  }

  /**
   * `read` of the VM's XML, a malformed tree answered as one. Listings read only the windows (see
   * desktopWindows) and a read builds only its window's tree: the whole tree of a VM with a big
   * document open would take hundreds of megabytes.
   */
  private parsed<T>(xml: string, read: (xml: string) => T): T {
    try {
      return read(xml);
    } catch (error) {
      throw fail('accessibility_unavailable', `the VM's accessibility tree is malformed: ${error instanceof Error ? error.message : String(error)}`, {
        connection: this.http.settings.connection,
        reason: 'bad_answer',
      });
    }
  }

  /** The VM's top-level windows, now, what they hold unread. */
  private async windows(deadline: Deadline | undefined): Promise<{ xml: string; windows: AxWindow[] }> {
    const xml = await this.xml(deadline);
    return { xml, windows: this.parsed(xml, desktopWindows) };
  }

  private info(w: AxWindow): WindowInfo {
    const info: WindowInfo = {
      window: w.id,
      title: w.node.name !== '' ? w.node.name : w.app.name,
      app: w.app.name,
      pid: 0,
      process_start: w.appId,
      foreground: w.node.states.has('active'),
      role: mapRoleName(w.node.role).role,
    };
    if (w.node.rect !== undefined) info.rect = rect(w.node.rect.x, w.node.rect.y, w.node.rect.w, w.node.rect.h);
    return info;
  }

  private excludedApp(app: string): boolean {
    return isExcluded({ apps: this.exclusions.apps ?? [] }, -1, app);
  }

  async listWindows(deadline: Deadline): Promise<{ windows: WindowInfo[]; truncated: never[]; notes: string[] }> {
    const windows = (await this.windows(deadline)).windows
      .filter((w) => w.node.states.has('showing') && !this.excludedApp(w.app.name))
      .map((w) => this.info(w))
      .filter((w) => w.title !== '' && !isExcludedTitle(this.exclusions, w.title));
    for (const w of windows) this.titles.set(w.window, w.title);
    windows.sort((a, b) => Number(b.foreground) - Number(a.foreground));
    return { windows, truncated: [], notes: [] };
  }

  /** The window `id` names (the active one when none), checked; with the XML it was found in. */
  private async find(id: string | undefined, deadline: Deadline): Promise<Resolved> {
    if (id !== undefined && !/^osworld:[^/]+~\d+\/\d+$/.test(id)) throw fail('invalid_argument', `"${id}" is not a window id from window_list`);
    const { xml, windows: all } = await this.windows(deadline);
    const windows = all.filter((x) => x.node.states.has('showing'));
    if (id === undefined) {
      const active = windows.find((x) => x.node.states.has('active')) ?? windows[0];
      if (active === undefined) throw fail('not_found', 'there is no visible titled window to read', { searched_whole_window: true });
      id = active.id;
    }
    const w = windows.find((x) => x.id === id);
    const info = w === undefined ? undefined : this.info(w);
    // The id names a place, not a process: a window there with another title is another window.
    const known = this.titles.get(id);
    if (w === undefined || info === undefined || (known !== undefined && known !== info.title))
      throw fail('window_gone', `window ${id} is gone`, { window: id });
    this.titles.set(id, info.title);
    if (this.excludedApp(info.app)) throw fail('excluded_target', `window ${id} belongs to an excluded application (${info.app})`, { window: id });
    if (isExcludedTitle(this.exclusions, info.title))
      throw fail('excluded_target', `window ${id} shows the supervisor's own UI ("${info.title}")`, { window: id });
    return { xml, path: w.node.path, info, at: performance.now() };
  }

  async resolveWindow(id: string | undefined, deadline: Deadline): Promise<WindowHandle> {
    const found = await this.find(id, deadline);
    const handle = { info: found.info, rootKey: found.info.window, process: { pid: 0, process_start: found.info.process_start } };
    this.resolved.set(handle, found);
    return handle;
  }

  async open(window: WindowHandle, deadline: Deadline): Promise<TreeSource> {
    // The tree resolving this handle fetched stands for its first opening, right after (one fetch of the VM's whole tree per read, not two).
    const just = this.resolved.get(window);
    this.resolved.delete(window);
    const { xml, path, info } = just !== undefined && performance.now() - just.at < RESOLVED_FRESH_MS ? just : await this.find(window.info.window, deadline);
    const root = this.parsed(xml, (x) => subtreeAt(x, path));
    if (root === undefined) throw fail('window_gone', `window ${info.window} is gone`, { window: info.window });
    return new XmlTreeSource({ ...window, info }, root);
  }

  async checkProcess(process: ProcessIdentity, deadline: Deadline): Promise<void> {
    const { windows } = await this.windows(deadline);
    if (!windows.some((w) => w.appId === process.process_start))
      throw fail('stale_process', `the application ${process.process_start} is no longer in the VM's accessibility tree`, {
        process_start: process.process_start,
      });
  }

  dispatch(_source: TreeSource, node: NativeNode, action: Action): Promise<DispatchResult> {
    return Promise.reject(
      fail(
        'pattern_unsupported',
        `an OSWorld connection reads the accessibility tree but cannot ${action} the ${node.role} "${node.name ?? ''}" through it: ${INSTEAD}`,
        {
          connection: this.http.settings.connection,
          reason: 'read_only_connection',
          instead: INSTEAD,
          ...(node.rect !== undefined ? { rect: node.rect } : {}),
        },
      ),
    );
  }
}

/** True for the failure of an unreachable VM (the helper keeps serving and answers it on every call). */
export function isConnectionFailure(error: unknown): error is OverseerError {
  return error instanceof OverseerError && error.code === 'connection_unavailable';
}
