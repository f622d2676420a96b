import { rect, type Rect } from '../../../protocol/index.js';
import type { DetailScope } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import { I, makeNode, patternsOf, type AtspiNode } from './atspiNode.js';
import { DBusReplyError, type A11yBus } from './dbus.js';
import { formatNumber, pool, str, type Problems } from './readSupport.js';
import { NULL_PATH, ROOT_PATH, asRef, keyOf, refOf } from './refs.js';
import { S } from './roles.js';

/** Largest text read for a value; answers cut it further to max_text_chars. */
const MAX_VALUE_READ = 20_001;
/** Calls in flight at once towards one application. */
const CONCURRENCY = 64;

/** Details of one object read by the detail pass, kept until an event says they may have changed. */
interface Detail {
  rect?: Rect;
  value?: string;
  actions?: string[];
}

/** Events after which positions anywhere in the application may have moved without their own event. */
const LAYOUT_MEMBERS = new Set(['ChildrenChanged', 'BoundsChanged', 'VisibleDataChanged', 'RowInserted', 'RowDeleted', 'RowReordered', 'ModelChanged']);
/** Events after which the source object's children list is no longer known (tables announce rows, not children). */
const CHILDREN_MEMBERS = new Set(['ChildrenChanged', 'RowInserted', 'RowDeleted', 'RowReordered', 'ColumnInserted', 'ColumnDeleted', 'ColumnReordered', 'ModelChanged']);
const LAYOUT_ROLES = new Set(['scroll_bar', 'pane', 'window', 'dialog', 'tab']);

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
  /** False once the application turned out not to publish Cache.GetItems. */
  private bulk = process.env['OVERSEER_ATSPI_NO_BULK'] !== '1';
  private generation = 0;
  private readonly gapNodes = new Map<string, AtspiNode>();
  private readonly childLists = new Map<string, string[]>();
  private readonly detailStore = new Map<string, Detail>();
  /** Accessible ids are fixed for an object's life; kept until the object is removed. */
  private readonly ids = new Map<string, string>();

  constructor(
    private readonly bus: A11yBus,
    readonly busName: string,
  ) {}

  /** Called for every event the application emits; `path` is the object it concerns. */
  onEvent(path: string, member: string, detail = ''): void {
    this.fresh = false;
    this.generation++;
    const key = keyOf(this.busName, path);
    const role = this.nodes.get(key)?.role;
    this.gapNodes.delete(key);
    this.detailStore.delete(key);
    if (CHILDREN_MEMBERS.has(member)) this.childLists.delete(key);
    if (member === 'PropertyChange' && detail === 'accessible-parent') this.childLists.clear();
    if (member === 'RemoveAccessible') this.ids.delete(key);
    if (LAYOUT_MEMBERS.has(member) || (role !== undefined && LAYOUT_ROLES.has(role))) {
      for (const d of this.detailStore.values()) delete d.rect;
    }
  }

  /** Drops everything (used after a read met provider failures). */
  invalidate(): void {
    this.fresh = false;
    this.generation++;
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
    const generation = this.generation;
    const loaded = this.bulk ? await this.getItems(deadline) : await this.topLevels(deadline);
    const nodes = new Map<string, AtspiNode>();
    const byParent = new Map<string, AtspiNode[]>();
    for (const node of loaded) {
      nodes.set(node.key, node);
      if (node.parent === undefined) continue;
      const list = byParent.get(node.parent) ?? [];
      list.push(node);
      byParent.set(node.parent, list);
    }
    // Children from the cache only where their order is certain: every index known, unique and complete.
    for (const [parentKey, kids] of byParent) {
      const parent = nodes.get(parentKey);
      if (parent === undefined || kids.length !== parent.childCount) continue;
      const sorted = [...kids].sort((a, b) => a.index - b.index);
      if (sorted.every((k, i) => k.index === i)) parent.children = sorted.map((k) => k.key);
    }
    for (const node of nodes.values()) if (node.childCount === 0) node.children = [];
    for (const [key, gap] of this.gapNodes) if (!nodes.has(key)) nodes.set(key, { ...gap, unread: new Set(), children: this.childLists.get(key) ?? (gap.childCount === 0 ? [] : undefined) });
    for (const [key, list] of this.childLists) {
      const node = nodes.get(key);
      if (node !== undefined && node.children === undefined) node.children = list;
    }
    for (const node of nodes.values()) this.restore(node, nodes);
    this.nodes = nodes;
    this.fresh = generation === this.generation;
  }

  /**
   * The whole cache in one call, when the application publishes it. Toolkits without
   * Cache.GetItems (or with it disabled) are read by walking from their top-level windows.
   */
  private async getItems(deadline: Deadline): Promise<AtspiNode[]> {
    let items: unknown;
    try {
      [items] = await this.bus.call(this.busName, '/org/a11y/atspi/cache', I.cache, 'GetItems', deadline.remaining());
    } catch (error) {
      if (!(error instanceof DBusReplyError)) throw error;
      this.bulk = false;
      return this.topLevels(deadline);
    }
    return (Array.isArray(items) ? (items as unknown[][]) : []).flatMap((item) => {
      const ref = asRef(item[0]);
      const parent = asRef(item[2]);
      if (ref === undefined) return [];
      const parentKey = parent === undefined || parent.path === NULL_PATH ? undefined : keyOf(parent.bus, parent.path);
      return [makeNode(ref.bus, ref.path, parentKey, Number(item[3]), Number(item[4]), (item[5] as string[]) ?? [], str(item[6]), Number(item[7]), (item[9] as number[]) ?? [])];
    });
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
    const node = makeNode(busName, path, parentKey, index, childCount, (ifaces[0] as string[]) ?? [], str(all['Name']?.value), Number(role[0]), (state[0] as number[]) ?? []);
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
    const generation = this.generation;
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
        if (generation === this.generation) this.childLists.set(key, node.children);
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
        if (generation === this.generation) this.gapNodes.set(node.key, { ...node, unread: new Set() });
      } catch (error) {
        problems.note(error, `an element under ${m.parent}`);
      }
    });
  }

  /** Reads only what matching needs: automation ids (kept for the object's life) or values. */
  private async partialDetails(nodes: Map<string, AtspiNode>, keys: readonly string[], deadline: Deadline, scope: 'ids' | 'values', problems: Problems): Promise<void> {
    const generation = this.generation;
    const todo = keys
      .map((k) => nodes.get(k))
      .filter((n): n is AtspiNode => n !== undefined && !n.detailed && (scope === 'ids' ? !this.ids.has(n.key) : n.interfaces.has(I.value) || n.interfaces.has(I.text) || n.role === 'combo_box'));
    await pool(todo, CONCURRENCY, deadline, async (node) => {
      try {
        if (scope === 'ids') {
          const id = str(await this.bus.getProperty(node.bus, node.path, I.accessible, 'AccessibleId', deadline.remaining()));
          if (id !== '') node.automationId = id;
          if (generation === this.generation) this.ids.set(node.key, id);
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
      node.value = ref === undefined || ref.path === NULL_PATH ? '' : str(await this.bus.getProperty(ref.bus, ref.path, I.accessible, 'Name', deadline.remaining()));
    } else if (node.interfaces.has(I.value)) {
      node.value = formatNumber(Number(await this.bus.getProperty(node.bus, node.path, I.value, 'CurrentValue', deadline.remaining())));
    } else if (node.interfaces.has(I.text) && (node.patterns.includes('value') || node.patterns.includes('text'))) {
      const [text] = await this.bus.call(node.bus, node.path, I.text, 'GetText', deadline.remaining(), 'ii', [0, MAX_VALUE_READ]);
      node.value = str(text);
    }
  }

  /** Reads rect, automation id, value/text and action names of these nodes concurrently. */
  async details(nodes: Map<string, AtspiNode>, keys: readonly string[], deadline: Deadline, problems: Problems, scope: DetailScope = 'full'): Promise<void> {
    if (scope !== 'full') return this.partialDetails(nodes, keys, deadline, scope, problems);
    const generation = this.generation;
    const todo = keys.map((k) => nodes.get(k)).filter((n): n is AtspiNode => n !== undefined && !n.detailed);
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
      if (!this.ids.has(node.key)) {
        guard('automation_id', async () => {
          const id = str(await this.bus.getProperty(node.bus, node.path, I.accessible, 'AccessibleId', t()));
          if (id !== '') node.automationId = id;
          if (generation === this.generation) this.ids.set(node.key, id);
        });
      }
      if (node.interfaces.has(I.value) || node.interfaces.has(I.text) || node.role === 'combo_box') guard('value', () => this.readValue(node, deadline));
      if (node.interfaces.has(I.action)) {
        guard('patterns', async () => {
          const n = Number(await this.bus.getProperty(node.bus, node.path, I.action, 'NActions', t()));
          const names = await Promise.all(Array.from({ length: Math.min(n, 32) }, (_, i) => this.bus.call(node.bus, node.path, I.action, 'GetName', t(), 'i', [i]).then((r) => str(r[0]))));
          node.actions = names;
        });
      }
      await Promise.all(jobs);
      node.patterns = patternsOf(node, node.parent === undefined ? undefined : nodes.get(node.parent));
      node.detailed = true;
      if (!failed && generation === this.generation) {
        const d: Detail = {};
        if (node.rect !== undefined || node.interfaces.has(I.component)) d.rect = node.rect as Rect;
        if (node.value !== undefined) d.value = node.value;
        if (node.actions !== undefined) d.actions = node.actions;
        this.detailStore.set(node.key, d);
      }
    });
  }
}
