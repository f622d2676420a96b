import { rect, type Rect } from '../../../protocol/index.js';
import type { DetailScope } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import { I, makeNode, patternsOf, type AtspiNode } from './atspiNode.js';
import { DBusReplyError, type A11yBus } from './dbus.js';
import { CACHE_ITEMS_SIGNATURE, cacheItemNodes } from './cacheItems.js';
import { formatNumber, pool, str, type Problems } from './readSupport.js';
import { NULL_PATH, ROOT_PATH, asRef, keyOf, refOf } from './refs.js';
import { classify } from './events.js';
import { S, STATE_NUMBERS, mapState } from './roles.js';

/** Largest text read for a value; answers cut it further to max_text_chars. */
const MAX_VALUE_READ = 20_001;
/** Canonical AT-SPI action names (GTK, Qt, Chromium) whose English localized forms only differ in case. */
const KNOWN_ACTIONS = new Set([
  'click',
  'press',
  'activate',
  'toggle',
  'expand or contract',
  'expand',
  'collapse',
  'jump',
  'open',
  'select',
  'check',
  'uncheck',
  'edit',
  'showcontextmenu',
  'show menu',
  'menu',
  'increment',
  'decrement',
  'switch',
  'scroll',
]);

/** Calls in flight at once towards one application. */
const CONCURRENCY = 64;

/** Details of one object read by the detail pass, kept until an event says they may have changed. */
interface Detail {
  rect?: Rect;
  value?: string;
  actions?: string[];
}

/**
 * Everything known about one application's tree. The structure (Cache.GetItems) is reloaded after
 * any event; objects read one by one (MANAGES_DESCENDANTS children, lazy GTK4 caches), children
 * lists and details are kept per object and dropped when an event names that object (or, for
 * positions, on any layout event). A D-Bus round trip to the application before reuse proves no
 * event was missed (its signals are ordered before the reply); anything read while an event
 * arrived is used for that answer only. Never serves stale data.
 */
export class AppCache {
  /** The latest loaded view; each tree source pins the map it opened with. */
  nodes = new Map<string, AtspiNode>();
  private fresh = false;
  private loading = false;
  private eventDuringLoad = false;
  /** Event counter; details read before an event that touched their object are not kept. */
  private eventSeq = 0;
  private globalTouch = 0;
  private readonly touched = new Map<string, number>();
  /** False once the application turned out not to publish Cache.GetItems. */
  private bulk = process.env['OVERSEER_ATSPI_NO_BULK'] !== '1';
  private readonly gapNodes = new Map<string, AtspiNode>();
  private readonly childLists = new Map<string, string[]>();
  private readonly detailStore = new Map<string, Detail>();
  /** Accessible ids are fixed for an object's life; kept until the object is removed. */
  private readonly ids = new Map<string, string>();

  constructor(
    private readonly bus: A11yBus,
    readonly busName: string,
  ) {}

  /** Called for every event the application emits (see events.ts for what each one changes); true when it changed anything. */
  onEvent(path: string, iface: string, member: string, body: readonly unknown[]): boolean {
    const key = keyOf(this.busName, path);
    const effect = classify(iface, member, body);
    if (Object.keys(effect).length === 0) return false;
    this.eventSeq++;
    if (this.loading) this.eventDuringLoad = true;
    if (effect.structure) {
      this.fresh = false;
      this.gapNodes.delete(key);
      this.detailStore.delete(key);
      this.touch(key);
    }
    if (effect.children) {
      this.childLists.delete(key);
      for (const [k, gap] of this.gapNodes) if (gap.parent === key) this.gapNodes.delete(k);
    }
    if (effect.removed) this.ids.delete(key);
    if (effect.reparented) this.childLists.clear();
    if (effect.state !== undefined) this.patchState(key, effect.state.name, effect.state.on);
    if (effect.name !== undefined) this.patchName(key, effect.name);
    if (effect.value) {
      this.dropDetail(key, 'value');
      this.touch(key);
    }
    if (effect.rects === 'subtree') for (const k of this.subtree(key)) this.dropDetail(k, 'rect');
    if (effect.rects === 'app' || effect.details === 'app') this.dropAll(effect.details !== 'app');
    return true;
  }

  /** An object and its known descendants (for position changes that move children too). */
  private subtree(key: string): string[] {
    const out: string[] = [];
    const stack = [key];
    while (stack.length > 0 && out.length < 100_000) {
      const k = stack.pop() as string;
      out.push(k);
      for (const c of this.nodes.get(k)?.children ?? this.childLists.get(k) ?? []) stack.push(c);
    }
    return out;
  }

  /** Forgets one detail of an object, in the store and on the loaded node, so the next read asks again. */
  private dropDetail(key: string, field: 'rect' | 'value'): void {
    const d = this.detailStore.get(key);
    if (d !== undefined) {
      if (field === 'value') this.detailStore.delete(key);
      else delete d.rect;
    }
    // Mark stale only: a read in flight keeps the values it read; the next read asks again.
    for (const node of [this.nodes.get(key), this.gapNodes.get(key)]) if (node !== undefined) node.detailed = false;
    this.touch(key);
  }

  /** Forgets every detail of the application (or only positions). */
  private dropAll(onlyRects: boolean): void {
    // Like dropDetail: stale, not erased.
    this.globalTouch = this.eventSeq;
    if (onlyRects) for (const d of this.detailStore.values()) delete d.rect;
    else this.detailStore.clear();
    for (const map of [this.nodes, this.gapNodes]) for (const node of map.values()) node.detailed = false;
  }

  private touch(key: string): void {
    this.touched.set(key, this.eventSeq);
  }

  /** True when no event touched this object (or the whole application) since `since`. */
  private untouchedSince(key: string, since: number): boolean {
    return this.globalTouch <= since && (this.touched.get(key) ?? 0) <= since;
  }

  /** Applies a StateChanged event to the cached object (the event carries the new value). */
  private patchState(key: string, name: string, on: boolean): void {
    const n = STATE_NUMBERS.get(name);
    for (const node of [this.nodes.get(key), this.gapNodes.get(key)]) {
      if (node === undefined) continue;
      if (n === undefined) {
        this.fresh = false;
        continue;
      }
      const states = new Set(node.states);
      if (on) states.add(n);
      else states.delete(n);
      node.states = states;
      node.state = mapState(states, node.nativeRole ?? '');
      node.patterns = patternsOf(node, node.parent === undefined ? undefined : this.nodes.get(node.parent));
    }
    if (name === 'showing' || name === 'visible') for (const k of this.subtree(key)) this.dropDetail(k, 'rect');
  }

  /** Applies an accessible-name change to the cached object. */
  private patchName(key: string, name: string): void {
    for (const node of [this.nodes.get(key), this.gapNodes.get(key)]) if (node !== undefined) node.name = name;
  }

  /** Drops everything (used after a read met provider failures). */
  invalidate(): void {
    this.fresh = false;
    this.eventSeq++;
    this.globalTouch = this.eventSeq;
    this.gapNodes.clear();
    this.childLists.clear();
    this.detailStore.clear();
  }

  /** Makes the cache current: reuse after a barrier, or reload the structure with Cache.GetItems. */
  async load(deadline: Deadline): Promise<void> {
    if (this.fresh) {
      await this.bus.call(this.busName, '/', 'org.freedesktop.DBus.Peer', 'Ping', deadline.remaining());
      if (this.fresh) return;
    }
    this.loading = true;
    this.eventDuringLoad = false;
    const loaded = await this.loadNodes(deadline).finally(() => (this.loading = false));
    const nodes = new Map<string, AtspiNode>();
    const byParent = new Map<string, AtspiNode[]>();
    for (const node of loaded) {
      nodes.set(node.key, node);
      if (node.parent === undefined) continue;
      let list = byParent.get(node.parent);
      if (list === undefined) byParent.set(node.parent, (list = []));
      list.push(node);
    }
    // Children from the cache only where their order is certain: every index known, unique and complete.
    for (const [parentKey, kids] of byParent) {
      const parent = nodes.get(parentKey);
      if (parent === undefined || kids.length !== parent.childCount) continue;
      const sorted = [...kids].sort((a, b) => a.index - b.index);
      if (sorted.every((k, i) => k.index === i)) parent.children = sorted.map((k) => k.key);
    }
    for (const node of nodes.values()) if (node.childCount === 0) node.children = [];
    for (const [key, gap] of this.gapNodes)
      if (!nodes.has(key)) nodes.set(key, { ...gap, unread: new Set(), children: this.childLists.get(key) ?? (gap.childCount === 0 ? [] : undefined) });
    for (const [key, list] of this.childLists) {
      const node = nodes.get(key);
      if (node !== undefined && node.children === undefined) node.children = list;
    }
    for (const node of nodes.values()) this.restore(node, nodes);
    this.nodes = nodes;
    // An event that arrived while the structure was read may or may not be in it: read again next time.
    this.fresh = !this.eventDuringLoad;
  }

  private loadNodes(deadline: Deadline): Promise<AtspiNode[]> {
    return this.bulk ? this.getItems(deadline) : this.topLevels(deadline);
  }

  /**
   * The whole cache in one call, when the application publishes it. Toolkits without
   * Cache.GetItems (or with it disabled) are read by walking from their top-level windows.
   */
  private async getItems(deadline: Deadline): Promise<AtspiNode[]> {
    let reply: unknown[];
    try {
      reply = await this.bus.call(this.busName, '/org/a11y/atspi/cache', I.cache, 'GetItems', deadline.remaining(), '', [], CACHE_ITEMS_SIGNATURE);
    } catch (error) {
      if (!(error instanceof DBusReplyError)) throw error;
      this.bulk = false;
      return this.topLevels(deadline);
    }
    return cacheItemNodes(reply);
  }

  /** The application's top-level windows, read one by one; the walk reads the rest. */
  private async topLevels(deadline: Deadline): Promise<AtspiNode[]> {
    const root = keyOf(this.busName, ROOT_PATH);
    const [refs] = await this.bus.call(this.busName, ROOT_PATH, I.accessible, 'GetChildren', deadline.remaining());
    const list = (Array.isArray(refs) ? refs : []).map(asRef).filter((r) => r !== undefined);
    const nodes = await Promise.all(list.map((r, index) => this.readNode(r.bus, r.path, root, index, deadline)));
    for (const n of nodes) if (n.childCount !== 0) n.childCount = -1;
    return nodes;
  }

  /** Puts kept id and details back on a freshly loaded node. */
  private restore(node: AtspiNode, nodes: ReadonlyMap<string, AtspiNode>): void {
    const id = this.ids.get(node.key);
    if (id !== undefined && id !== '') node.automationId = id;
    const d = this.detailStore.get(node.key);
    if (d === undefined || (node.interfaces.has(I.component) && d.rect === undefined && !('rect' in d))) return;
    if (d.rect !== undefined) node.rect = d.rect;
    if (d.value !== undefined) node.value = d.value;
    if (d.actions !== undefined) node.actions = d.actions;
    node.patterns = patternsOf(node, node.parent === undefined ? undefined : nodes.get(node.parent));
    node.detailed = true;
  }

  /** Reads one object with individual calls (gaps the cache does not hold). */
  async readNode(busName: string, path: string, parentKey: string | undefined, index: number, deadline: Deadline): Promise<AtspiNode> {
    const t = deadline.remaining();
    const [props, role, state, ifaces] = await Promise.all([
      this.bus.call(busName, path, 'org.freedesktop.DBus.Properties', 'GetAll', t, 's', [I.accessible]),
      this.bus.call(busName, path, I.accessible, 'GetRole', t),
      this.bus.call(busName, path, I.accessible, 'GetState', t),
      this.bus.call(busName, path, I.accessible, 'GetInterfaces', t),
    ]);
    const all = (props[0] ?? {}) as Record<string, { value: unknown }>;
    const childCount = Number(all['ChildCount']?.value ?? 0);
    const node = makeNode(
      busName,
      path,
      parentKey,
      index,
      childCount,
      (ifaces[0] as string[]) ?? [],
      str(all['Name']?.value),
      Number(role[0]),
      (state[0] as number[]) ?? [],
    );
    const id = str(all['AccessibleId']?.value);
    if (id !== '') node.automationId = id;
    this.ids.set(node.key, id);
    if (node.childCount === 0) node.children = [];
    return node;
  }

  /** Reads one object by key (parent from its Parent property); undefined when it is gone. */
  async fetch(nodes: Map<string, AtspiNode>, key: string, deadline: Deadline): Promise<AtspiNode | undefined> {
    const ref = refOf(key);
    if (ref === undefined || ref.bus !== this.busName) return undefined;
    const parent = asRef(await this.bus.getProperty(ref.bus, ref.path, I.accessible, 'Parent', deadline.remaining()));
    const parentKey = parent === undefined || parent.path === NULL_PATH ? undefined : keyOf(parent.bus, parent.path);
    const node = await this.readNode(ref.bus, ref.path, parentKey, -1, deadline);
    if (node.states.has(S.defunct)) return undefined;
    nodes.set(key, node);
    return node;
  }

  /** Reads children lists (GetChildren) of these nodes, and the first `limit` unknown children of each. */
  async expand(nodes: Map<string, AtspiNode>, keys: readonly string[], deadline: Deadline, limit: number, problems: Problems): Promise<void> {
    const since = this.eventSeq;
    const missing: { busName: string; path: string; parent: string; index: number }[] = [];
    await pool(keys, CONCURRENCY, deadline, async (key) => {
      const node = nodes.get(key);
      if (node === undefined) return;
      if (node.children !== undefined) {
        node.children.slice(0, limit).forEach((child, index) => {
          const ref = refOf(child);
          if (ref !== undefined && !nodes.has(child)) missing.push({ busName: ref.bus, path: ref.path, parent: key, index });
        });
        return;
      }
      try {
        const [refs] = await this.bus.call(node.bus, node.path, I.accessible, 'GetChildren', deadline.remaining());
        const list = (Array.isArray(refs) ? refs : []).map(asRef).filter((r) => r !== undefined);
        node.children = list.map((r) => keyOf(r.bus, r.path));
        if (this.untouchedSince(key, since)) this.childLists.set(key, node.children);
        list.slice(0, limit).forEach((r, index) => {
          if (!nodes.has(keyOf(r.bus, r.path))) missing.push({ busName: r.bus, path: r.path, parent: key, index });
        });
      } catch (error) {
        problems.note(error, `children of ${node.role} "${node.name ?? ''}"`);
        node.unread.add('children');
        node.children = [];
      }
    });
    await pool(missing, CONCURRENCY, deadline, async (m) => {
      try {
        const node = await this.readNode(m.busName, m.path, m.parent, m.index, deadline);
        nodes.set(node.key, node);
        if (this.untouchedSince(node.key, since) && this.untouchedSince(m.parent, since)) this.gapNodes.set(node.key, { ...node, unread: new Set() });
      } catch (error) {
        problems.note(error, `an element under ${m.parent}`);
      }
    });
  }

  /**
   * Canonical action names in one GetActions call. GetActions answers localized names (GTK3:
   * "Click"); those that fold to a known canonical English name are taken as such, any other
   * is asked for with GetName(i), so a translated desktop still gets canonical names.
   */
  private async actionNames(node: AtspiNode, deadline: Deadline): Promise<string[]> {
    const [list] = await this.bus.call(node.bus, node.path, I.action, 'GetActions', deadline.remaining());
    const localized = (Array.isArray(list) ? (list as unknown[][]) : []).slice(0, 32).map((a) => str(a[0]));
    return Promise.all(
      localized.map(async (name, i) => {
        const lower = name.toLowerCase();
        if (KNOWN_ACTIONS.has(lower) || (name !== '' && name === lower && /^[a-z0-9._-]+$/.test(name))) return lower;
        return str((await this.bus.call(node.bus, node.path, I.action, 'GetName', deadline.remaining(), 'i', [i]))[0]);
      }),
    );
  }

  /**
   * Puts an automation id another read already learned on this node. Reads pin the node map they
   * opened with, so a map loaded before the id was known lacks it; skipping the call because the id
   * is known must never leave the node without it (that answered a false not_found).
   */
  private knownId(node: AtspiNode): boolean {
    const id = this.ids.get(node.key);
    if (id === undefined) return false;
    if (id !== '') node.automationId = id;
    return true;
  }

  /** Reads only what matching needs: automation ids (kept for the object's life) or values. */
  private async partialDetails(
    nodes: Map<string, AtspiNode>,
    keys: readonly string[],
    deadline: Deadline,
    scope: 'ids' | 'values',
    problems: Problems,
  ): Promise<void> {
    if (scope === 'ids')
      for (const k of keys) {
        const n = nodes.get(k);
        if (n !== undefined) this.knownId(n);
      }
    const todo = keys
      .map((k) => nodes.get(k))
      .filter(
        (n): n is AtspiNode =>
          n !== undefined &&
          !n.detailed &&
          (scope === 'ids' ? !this.ids.has(n.key) : n.interfaces.has(I.value) || n.interfaces.has(I.text) || n.role === 'combo_box'),
      );
    await pool(todo, CONCURRENCY, deadline, async (node) => {
      try {
        if (scope === 'ids') {
          const id = str(await this.bus.getProperty(node.bus, node.path, I.accessible, 'AccessibleId', deadline.remaining()));
          if (id !== '') node.automationId = id;
          this.ids.set(node.key, id); // fixed for the object's life
        } else await this.readValue(node, deadline);
      } catch (error) {
        node.unread.add(scope === 'ids' ? 'automation_id' : 'value');
        problems.note(error, `${scope === 'ids' ? 'automation id' : 'value'} of ${node.role} "${node.name ?? ''}"`);
      }
    });
  }

  private async readValue(node: AtspiNode, deadline: Deadline): Promise<void> {
    if (node.role === 'combo_box' && node.interfaces.has(I.selection) && !node.interfaces.has(I.text)) {
      // A combo box's value is its selected item (UIA's ValuePattern on a combo box says the same).
      const [child] = await this.bus.call(node.bus, node.path, I.selection, 'GetSelectedChild', deadline.remaining(), 'i', [0]);
      const ref = asRef(child);
      node.value =
        ref === undefined || ref.path === NULL_PATH ? '' : str(await this.bus.getProperty(ref.bus, ref.path, I.accessible, 'Name', deadline.remaining()));
    } else if (node.interfaces.has(I.value)) {
      node.value = formatNumber(Number(await this.bus.getProperty(node.bus, node.path, I.value, 'CurrentValue', deadline.remaining())));
    } else if (node.interfaces.has(I.text) && (node.patterns.includes('value') || node.patterns.includes('text'))) {
      const [text] = await this.bus.call(node.bus, node.path, I.text, 'GetText', deadline.remaining(), 'ii', [0, MAX_VALUE_READ]);
      node.value = str(text);
    }
  }

  /** Reads rect, automation id, value/text and action names of these nodes concurrently. */
  async details(
    nodes: Map<string, AtspiNode>,
    keys: readonly string[],
    deadline: Deadline,
    problems: Problems,
    scope: DetailScope = 'full',
    detailed?: Set<string>,
  ): Promise<void> {
    if (scope !== 'full') return this.partialDetails(nodes, keys, deadline, scope, problems);
    const since = this.eventSeq;
    const todo = keys.map((k) => nodes.get(k)).filter((n): n is AtspiNode => n !== undefined && !n.detailed);
    // Details still valid when the read began count as read, even if an event marks them stale meanwhile.
    if (detailed !== undefined) for (const k of keys) if (nodes.get(k)?.detailed === true) detailed.add(k);
    await pool(todo, CONCURRENCY, deadline, async (node) => {
      const t = (): number => deadline.remaining();
      const jobs: Promise<void>[] = [];
      let failed = false;
      const guard = (field: 'rect' | 'automation_id' | 'value' | 'patterns', job: () => Promise<void>): void => {
        jobs.push(
          job().catch((error: unknown) => {
            failed = true;
            node.unread.add(field);
            problems.note(error, `${field} of ${node.role} "${node.name ?? ''}"`);
          }),
        );
      };
      if (node.interfaces.has(I.component)) {
        guard('rect', async () => {
          const [ext] = await this.bus.call(node.bus, node.path, I.component, 'GetExtents', t(), 'u', [0]);
          const [x, y, w, h] = (ext as number[]).map(Number) as [number, number, number, number];
          if (x > -2_000_000_000 && w > 0 && h > 0) node.rect = rect(x, y, w, h);
        });
      }
      if (!this.knownId(node)) {
        guard('automation_id', async () => {
          const id = str(await this.bus.getProperty(node.bus, node.path, I.accessible, 'AccessibleId', t()));
          if (id !== '') node.automationId = id;
          this.ids.set(node.key, id); // fixed for the object's life
        });
      }
      if (node.interfaces.has(I.value) || node.interfaces.has(I.text) || node.role === 'combo_box') guard('value', () => this.readValue(node, deadline));
      if (node.interfaces.has(I.action)) {
        guard('patterns', async () => {
          node.actions = await this.actionNames(node, deadline);
        });
      }
      await Promise.all(jobs);
      node.patterns = patternsOf(node, node.parent === undefined ? undefined : nodes.get(node.parent));
      node.detailed = true;
      detailed?.add(node.key);
      if (!failed && this.untouchedSince(node.key, since)) {
        const d: Detail = {};
        if (node.rect !== undefined || node.interfaces.has(I.component)) d.rect = node.rect as Rect;
        if (node.value !== undefined) d.value = node.value;
        if (node.actions !== undefined) d.actions = node.actions;
        this.detailStore.set(node.key, d);
      }
    });
  }
}
