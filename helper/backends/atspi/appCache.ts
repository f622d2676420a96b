import { rect, type Pattern, type Rect } from '../../../protocol/index.js';
import type { DetailScope } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import { I, makeNode, patternsOf, type AtspiNode } from './atspiNode.js';
import { DBusReplyError, type A11yBus } from './dbus.js';
import { CACHE_ITEMS_SIGNATURE, cacheItemNodes } from './cacheItems.js';
import { formatNumber, pool, str, type Problems } from './readSupport.js';
import { boundedChildList, boundedChildren } from './children.js';
import { NULL_PATH, ROOT_PATH, asRef, keyOf, refOf, type Ref } from './refs.js';
import { classify, type EventEffect } from './events.js';
import { S, STATE_NUMBERS, mapRole, mapState } from './roles.js';
import { UNKNOWN_PROFILE, toolkitProfile, type ToolkitProfile } from './toolkits.js';

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
/**
 * Automation ids asked of an application whose toolkit sets none by itself before the rest are
 * left unasked when every one was empty (docs/performance.md#what-a-read-asks).
 */
const ID_PROBE = 32;
/** Objects whose last event is remembered (for passes in flight); an application that keeps making new ones must not grow the helper. */
const TOUCHED_MAX = 50_000;
/** How long the barrier a window's resolution made stands for the tree source opened right after it. */
const PROOF_MS = 100;

/**
 * Details of one object read by the detail pass, kept until an event says they may have changed:
 * the answer's details (value, actions) and the rectangle, each dropped on its own.
 */
interface Detail {
  base?: { value?: string; actions?: string[] };
  /** The rectangle as read; `rect` undefined when the object had none on screen. */
  rect?: { rect: Rect | undefined };
}

/** Roles whose text is what they show, read as their value where the toolkit keeps a document's text in them (ToolkitProfile.contentText). */
const CONTENT_ROLES = new Set(['paragraph', 'heading', 'label', 'status_bar', 'list_item', 'cell', 'link', 'group', 'alert', 'tool_tip', 'header']);
/** Roles GTK 4.8 names by joining their own name and their label's ("7 7"). */
const LABELLED_ROLES = new Set(['button', 'toggle_button', 'check_box', 'radio_button', 'menu_item', 'tab_item', 'link', 'split_button']);
/** U+FFFC stands in a hypertext for each embedded child; the children are listed in the tree. */
const EMBEDDED = /\uFFFC/g;

/** A state or name change that arrived while the structure was being read, applied again to the result. */
type Patch = { key: string; state: { name: string; on: boolean } } | { key: string; name: string } | { key: string; role: number };

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
  private loading: Promise<void> | undefined;
  /** True from the first moment of a structural read (before `loading` is set) to its end. */
  private reading = false;
  private eventDuringLoad = false;
  private patchesDuringLoad: Patch[] = [];
  /** The event counter when a barrier or a load last proved the cache current, and when. */
  private proven = { seq: -1, at: 0 };
  /** Loads that reused the cache after a barrier, and that read the structure again. */
  readonly loads = { reused: 0, reloaded: 0, nodes: 0, ms: 0 };
  /** The application's toolkit and what it does differently (toolkits.ts), once read. */
  private profile: ToolkitProfile = UNKNOWN_PROFILE;
  private profileRead = false;
  /** Set when the application answered Cache.GetItems with nothing though it has windows: it is walked (Qt 5). */
  bulkEmpty = false;
  /** Automation ids answered so far (empty or not), and whether any was not empty. */
  private idsAnswered = 0;
  private idSeen = false;
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
    const effect = this.settleParent(key, classify(iface, member, body));
    if (Object.keys(effect).length === 0) return false;
    this.eventSeq++;
    // Only what the structure holds spoils a load; states and names are applied to its result too.
    if (this.reading && (effect.structure === true || effect.children === true || effect.reparented === true || effect.removed === true))
      this.eventDuringLoad = true;
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
    if (effect.state !== undefined) {
      this.patchState(key, effect.state.name, effect.state.on);
      if (this.reading) this.patchesDuringLoad.push({ key, state: effect.state });
    }
    if (effect.name !== undefined) {
      this.patchName(key, effect.name);
      if (this.reading) this.patchesDuringLoad.push({ key, name: effect.name });
    }
    if (effect.role !== undefined) {
      this.patchRole(key, effect.role);
      if (this.reading) this.patchesDuringLoad.push({ key, role: effect.role });
    }
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
      if (field === 'value') delete d.base;
      else delete d.rect;
    }
    // Mark stale only: a read in flight keeps the values it read; the next read asks again.
    for (const node of [this.nodes.get(key), this.gapNodes.get(key)])
      if (node !== undefined) {
        if (field === 'value') node.detailed = false;
        else node.rectRead = false;
      }
    this.touch(key);
  }

  /** Forgets every detail of the application (or only positions). */
  private dropAll(onlyRects: boolean): void {
    // Like dropDetail: stale, not erased.
    this.globalTouch = this.eventSeq;
    if (onlyRects) for (const d of this.detailStore.values()) delete d.rect;
    else this.detailStore.clear();
    for (const map of [this.nodes, this.gapNodes])
      for (const node of map.values()) {
        node.rectRead = false;
        if (!onlyRects) node.detailed = false;
      }
  }

  private touch(key: string): void {
    // Bounded: past TOUCHED_MAX objects, forget which and count the whole application as touched
    // now (passes in flight then keep nothing they read: correct, and rare).
    if (this.touched.size >= TOUCHED_MAX) {
      this.touched.clear();
      this.globalTouch = this.eventSeq;
    }
    this.touched.set(key, this.eventSeq);
  }

  /** True when no event touched this object (or the whole application) since `since`. */
  private untouchedSince(key: string, since: number): boolean {
    return this.globalTouch <= since && (this.touched.get(key) ?? 0) <= since;
  }

  /** Applies a StateChanged event to the cached object (the event carries the new value). */
  private patchState(key: string, name: string, on: boolean): void {
    const n = STATE_NUMBERS.get(name);
    if (n === undefined) {
      // A state this table does not know cannot be applied: read the structure again.
      this.fresh = false;
      if (this.reading) this.eventDuringLoad = true;
      return;
    }
    for (const node of [this.nodes.get(key), this.gapNodes.get(key)]) {
      if (node === undefined) continue;
      const states = new Set(node.states);
      if (on) states.add(n);
      else states.delete(n);
      node.states = states;
      node.state = mapState(states, node.nativeRole ?? '');
      this.adjustState(node);
      node.patterns = this.patternsOf(node, this.nodes);
    }
    if (name === 'showing' || name === 'visible') for (const k of this.subtree(key)) this.dropDetail(k, 'rect');
  }

  /**
   * A parent change is structural only for an object held under another parent. An object not held
   * was made on first access (GTK3 announces its parent then): its parent's children list, where
   * held, already counts it, and a real insertion also sends ChildrenChanged.
   */
  private settleParent(key: string, effect: EventEffect): EventEffect {
    if (effect.parent === undefined) return effect;
    const { parent, ...rest } = effect;
    const held = this.nodes.get(key) ?? this.gapNodes.get(key);
    if (held === undefined || held.parent === keyOf(parent.bus, parent.path)) return rest;
    return { ...rest, structure: true, reparented: true, rects: 'app' };
  }

  /** Applies a role change to the cached object (its patterns follow the role). */
  private patchRole(key: string, roleNumber: number): void {
    const { role, nativeRole } = mapRole(roleNumber);
    for (const node of [this.nodes.get(key), this.gapNodes.get(key)]) {
      if (node === undefined) continue;
      node.role = role;
      node.nativeRole = nativeRole;
      node.state = mapState(node.states, nativeRole);
      this.adjustState(node);
      node.patterns = this.patternsOf(node, this.nodes);
    }
  }

  /** Applies an accessible-name change to the cached object. */
  private patchName(key: string, name: string): void {
    for (const node of [this.nodes.get(key), this.gapNodes.get(key)]) if (node !== undefined) this.adjustName(node, name);
  }

  /** The name a person sees, from the provider's (ToolkitProfile.name). */
  private adjustName(node: AtspiNode, raw: string): void {
    const fixed = LABELLED_ROLES.has(node.role) || raw.startsWith('Gtk') || raw.startsWith('Adw') ? this.profile.name(raw) : { name: raw };
    node.name = fixed.name;
    if (fixed.className !== undefined) node.className = fixed.className;
  }

  /** States as the toolkit means them (GTK 4.8 sets no SHOWING: only VISIBLE says whether an element shows). */
  private adjustState(node: AtspiNode): void {
    if (this.profile.showingUnreported && node.state !== undefined) node.state.offscreen = !node.states.has(S.visible);
  }

  /** Applies the profile to a node as read. */
  private adjust(node: AtspiNode): void {
    this.adjustName(node, node.name ?? '');
    this.adjustState(node);
    if (this.profile.meaninglessValue.has(node.role)) node.patterns = node.patterns.filter((p) => p !== 'range_value');
  }

  /** The node's patterns (atspiNode.ts), less what its toolkit's provider offers without meaning. */
  private patternsOf(node: AtspiNode, nodes: ReadonlyMap<string, AtspiNode>): Pattern[] {
    const patterns = patternsOf(node, node.parent === undefined ? undefined : nodes.get(node.parent));
    return this.profile.meaninglessValue.has(node.role) ? patterns.filter((p) => p !== 'range_value') : patterns;
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

  /**
   * Makes the cache current: reuse after a barrier, or reload the structure with Cache.GetItems.
   * `proof` is what an earlier load of the same operation answered (resolving a window, then
   * opening it): when no event arrived since and it is under PROOF_MS old, its barrier stands.
   * Answers the event counter the cache is proven current at.
   */
  async load(deadline: Deadline, proof?: number): Promise<number> {
    if (this.loading !== undefined) await this.loading.catch(() => undefined);
    if (this.fresh && proof !== undefined && proof === this.eventSeq && this.proven.seq === proof && performance.now() - this.proven.at < PROOF_MS)
      return proof;
    if (this.fresh) {
      const seq = this.eventSeq;
      await this.bus.call(this.busName, '/', 'org.freedesktop.DBus.Peer', 'Ping', deadline.remaining());
      if (this.fresh) {
        this.loads.reused++;
        this.proven = { seq, at: performance.now() };
        return seq;
      }
    }
    // One structural read at a time: a caller that finds one running waits for it, then checks again.
    if (this.loading !== undefined) return this.load(deadline);
    const reading = this.reload(deadline);
    this.loading = reading;
    try {
      await reading;
    } finally {
      this.loading = undefined;
    }
    return this.proven.seq;
  }

  private async reload(deadline: Deadline): Promise<void> {
    const started = performance.now();
    this.eventDuringLoad = false;
    this.patchesDuringLoad = [];
    this.reading = true;
    let loaded: AtspiNode[];
    try {
      // The profile decides how objects are read (readNode): known before the first structural read.
      if (!this.profileRead) await this.readToolkit(deadline);
      loaded = await this.loadNodes(deadline);
    } finally {
      this.reading = false;
    }
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
    for (const node of loaded) this.adjust(node);
    for (const node of nodes.values()) this.restore(node, nodes);
    this.nodes = nodes;
    // States and names that changed meanwhile carry their new values: whichever the structure holds, these are current.
    for (const patch of this.patchesDuringLoad) {
      if ('state' in patch) this.patchState(patch.key, patch.state.name, patch.state.on);
      else if ('role' in patch) this.patchRole(patch.key, patch.role);
      else this.patchName(patch.key, patch.name);
    }
    this.patchesDuringLoad = [];
    this.loads.reloaded++;
    this.loads.nodes += loaded.length;
    this.loads.ms += performance.now() - started;
    // A structural event that arrived while the structure was read may or may not be in it: read again next time.
    this.fresh = !this.eventDuringLoad;
    if (this.fresh) this.proven = { seq: this.eventSeq, at: performance.now() };
  }

  /** Reads the toolkit's name and version and the application's name once, and takes its profile. */
  private async readToolkit(deadline: Deadline): Promise<void> {
    if (this.profileRead) return;
    const ask = (iface: string, name: string): Promise<string> =>
      this.bus
        .getProperty(this.busName, ROOT_PATH, iface, name, deadline.remaining())
        .then(str)
        .catch(() => '');
    const [toolkit, version, app] = await Promise.all([
      ask('org.a11y.atspi.Application', 'ToolkitName'),
      ask('org.a11y.atspi.Application', 'Version'),
      ask(I.accessible, 'Name'),
    ]);
    this.profile = toolkitProfile(toolkit, version, app);
    this.profileRead = true;
  }

  /** The application's toolkit profile (UNKNOWN_PROFILE until its first load). */
  get toolkit(): ToolkitProfile {
    return this.profile;
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
    const nodes = cacheItemNodes(reply);
    if (nodes.length > 0) return nodes;
    // An empty bulk answer is not "no windows" (Qt 5 answers [] and lists its frames to GetChildren): walk it from then on.
    const count = Number(await this.bus.getProperty(this.busName, ROOT_PATH, I.accessible, 'ChildCount', deadline.remaining()));
    if (!(count > 0)) return nodes;
    this.bulk = false;
    this.bulkEmpty = true;
    return this.topLevels(deadline);
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
    if (d?.rect !== undefined) {
      if (d.rect.rect !== undefined) node.rect = d.rect.rect;
      node.rectRead = true;
    }
    if (d?.base === undefined) return;
    if (d.base.value !== undefined) node.value = d.base.value;
    if (d.base.actions !== undefined) node.actions = d.base.actions;
    node.patterns = this.patternsOf(node, nodes);
    node.detailed = true;
  }

  /** The note of a read of an application whose provider has no accessible ids. */
  private noIdsNote(): string {
    return `automation_id: ${this.profile.label} provides no accessible ids (the provider answers an error), so none was asked`;
  }

  /** Records an automation id read (fixed for the object's life) and what it says about the application. */
  private learnId(node: AtspiNode, id: string): void {
    if (id !== '') node.automationId = id;
    this.ids.set(node.key, id);
    this.idsAnswered++;
    if (id !== '') this.idSeen = true;
  }

  /**
   * Whether a detail pass asks this many more nodes for their automation ids. An application of a
   * toolkit that sets none by itself (GTK), whose first ID_PROBE answers were all empty, is not asked
   * again element by element: its answers say so, and element_find by automation_id still asks every
   * candidate (partialDetails). Any id seen, or any other toolkit, and every element is asked.
   */
  private idsToAsk(wanted: number): number {
    if (this.profile.ids === 'unsupported') return 0;
    if (this.idSeen || this.profile.ids === 'toolkit') return wanted;
    return Math.min(wanted, Math.max(0, ID_PROBE - this.idsAnswered));
  }

  /** Reads one object with individual calls (gaps the cache does not hold). */
  async readNode(busName: string, path: string, parentKey: string | undefined, index: number, deadline: Deadline): Promise<AtspiNode> {
    const t = deadline.remaining();
    const prop = (name: string): Promise<unknown> => this.bus.getProperty(busName, path, I.accessible, name, t);
    // One GetAll where the provider is known to answer it; property by property elsewhere (Qt 5 crashes on GetAll).
    const props: Promise<{ name: unknown; count: unknown; id?: unknown }> = this.profile.getAll
      ? this.bus.call(busName, path, 'org.freedesktop.DBus.Properties', 'GetAll', t, 's', [I.accessible]).then(([all]) => {
          const a = (all ?? {}) as Record<string, { value: unknown }>;
          return { name: a['Name']?.value, count: a['ChildCount']?.value, id: a['AccessibleId']?.value };
        })
      : Promise.all([prop('Name'), prop('ChildCount')]).then(([name, count]) => ({ name, count }));
    const [p, role, state, ifaces] = await Promise.all([
      props,
      this.bus.call(busName, path, I.accessible, 'GetRole', t),
      this.bus.call(busName, path, I.accessible, 'GetState', t),
      this.bus.call(busName, path, I.accessible, 'GetInterfaces', t),
    ]);
    const childCount = Number(p.count ?? 0);
    const node = makeNode(
      busName,
      path,
      parentKey,
      index,
      childCount,
      (ifaces[0] as string[]) ?? [],
      str(p.name),
      Number(role[0]),
      (state[0] as number[]) ?? [],
    );
    if (p.id !== undefined) this.learnId(node, str(p.id));
    this.adjust(node);
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

  /** Objects whose children were read in part (a visible part): read again by every read, since scrolling changes them. */
  private readonly partLists = new Set<string>();

  /** Forgets the children read in part by earlier reads: a read that opens asks for them anew. */
  forgetParts(nodes: Map<string, AtspiNode>): void {
    for (const key of this.partLists) {
      const node = nodes.get(key);
      if (node !== undefined) {
        node.children = undefined;
        delete node.childrenCut;
      }
    }
    this.partLists.clear();
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
        let list: Ref[];
        // A container that manages its descendants often does not say how many it has in bulk answers: ask, before deciding how to read them.
        if (node.childCount < 0 && node.states.has(S.managesDescendants))
          node.childCount = Number(await this.bus.getProperty(node.bus, node.path, I.accessible, 'ChildCount', deadline.remaining()));
        if (boundedChildren(node)) {
          // Never enumerated: the visible part (or the first few), read anew each time (docs/compatibility.md#never-harm-an-application).
          const answer = await boundedChildList(this.bus, node, deadline, limit);
          list = answer.refs;
          if (answer.cut !== undefined) node.childrenCut = answer.cut;
          this.partLists.add(key);
        } else {
          const [refs] = await this.bus.call(node.bus, node.path, I.accessible, 'GetChildren', deadline.remaining());
          list = (Array.isArray(refs) ? refs : []).map(asRef).filter((r) => r !== undefined);
        }
        node.children = list.map((r) => keyOf(r.bus, r.path));
        if (node.childrenCut === undefined && this.untouchedSince(key, since)) this.childLists.set(key, node.children);
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
      // An id is asked unless known: a detailed node may have been left unasked (idsToAsk).
      .filter((n): n is AtspiNode => n !== undefined && (scope === 'ids' ? !this.ids.has(n.key) : !n.detailed && this.hasValue(n)));
    await pool(todo, CONCURRENCY, deadline, async (node) => {
      try {
        if (scope === 'ids') {
          this.learnId(node, str(await this.bus.getProperty(node.bus, node.path, I.accessible, 'AccessibleId', deadline.remaining())));
        } else await this.readValue(node, deadline, nodes);
      } catch (error) {
        node.unread.add(scope === 'ids' ? 'automation_id' : 'value');
        problems.note(error, `${scope === 'ids' ? 'automation id' : 'value'} of ${node.role} "${node.name ?? ''}"`);
      }
    });
  }

  /** What a node's value is read from, if anything (docs/compatibility.md#text). */
  private valueSource(node: AtspiNode): 'selected_item' | 'number' | 'text' | 'content' | undefined {
    const text = node.interfaces.has(I.text);
    const editable = node.patterns.includes('value') || node.role === 'edit';
    // A combo box that cannot be typed into shows its selected item (its own selection, or its popup list's).
    if (node.role === 'combo_box' && !editable) return node.interfaces.has(I.selection) || node.childCount > 0 ? 'selected_item' : text ? 'text' : undefined;
    // A cell's text is what it shows (LibreOffice answers 0 as the number of a text cell).
    if (node.interfaces.has(I.value) && !(text && node.role === 'cell') && !this.profile.meaninglessValue.has(node.role)) return 'number';
    if (text && editable) return 'text';
    // A document's or paragraph's text, where the toolkit keeps the text there and not in elements of its own.
    if (text && this.profile.contentText === 'containers' && (CONTENT_ROLES.has(node.role) || node.role === 'document' || node.role === 'paragraph'))
      return 'content';
    return undefined;
  }

  /** Objects whose value or text the answer carries. */
  private hasValue(node: AtspiNode): boolean {
    return this.valueSource(node) !== undefined;
  }

  /**
   * The object's text as it shows, read with the character count the provider reports where it
   * answers "" past the end (Gecko, LibreOffice, Qt), bounded by MAX_VALUE_READ.
   */
  private async readText(node: AtspiNode, deadline: Deadline): Promise<string> {
    let end = MAX_VALUE_READ;
    if (this.profile.textEnd === 'exact') {
      const count = Number(await this.bus.getProperty(node.bus, node.path, I.text, 'CharacterCount', deadline.remaining()));
      if (!Number.isFinite(count) || count <= 0) return '';
      end = Math.min(count, MAX_VALUE_READ);
    }
    const [text] = await this.bus.call(node.bus, node.path, I.text, 'GetText', deadline.remaining(), 'ii', [0, end]);
    return str(text);
  }

  /** The selected item's name of a combo box: its own selection, or its popup list's (Gecko puts the selection on the list). */
  private async selectedItem(node: AtspiNode, nodes: ReadonlyMap<string, AtspiNode>, deadline: Deadline): Promise<string> {
    let holder: { bus: string; path: string } | undefined = node.interfaces.has(I.selection) ? node : undefined;
    if (holder === undefined) {
      const first = node.children?.[0] !== undefined ? nodes.get(node.children[0]) : undefined;
      if (first !== undefined) holder = first.interfaces.has(I.selection) ? first : undefined;
      else {
        const [child] = await this.bus.call(node.bus, node.path, I.accessible, 'GetChildAtIndex', deadline.remaining(), 'i', [0]);
        const ref = asRef(child);
        if (ref !== undefined && ref.path !== NULL_PATH) holder = ref;
      }
    }
    if (holder === undefined) return '';
    const [child] = await this.bus.call(holder.bus, holder.path, I.selection, 'GetSelectedChild', deadline.remaining(), 'i', [0]);
    const ref = asRef(child);
    return ref === undefined || ref.path === NULL_PATH ? '' : str(await this.bus.getProperty(ref.bus, ref.path, I.accessible, 'Name', deadline.remaining()));
  }

  private async readValue(node: AtspiNode, deadline: Deadline, nodes: ReadonlyMap<string, AtspiNode> = this.nodes): Promise<void> {
    switch (this.valueSource(node)) {
      case 'selected_item':
        // A combo box's value is its selected item (UIA's ValuePattern on a combo box says the same).
        node.value = await this.selectedItem(node, nodes, deadline);
        return;
      case 'number':
        node.value = formatNumber(Number(await this.bus.getProperty(node.bus, node.path, I.value, 'CurrentValue', deadline.remaining())));
        return;
      case 'text':
        node.value = await this.readText(node, deadline);
        return;
      case 'content': {
        // A paragraph's text without the marks of its embedded children (they are in the tree), and none when it only repeats the name.
        const text = (await this.readText(node, deadline)).replace(EMBEDDED, '').trim();
        if (text !== '' && text !== (node.name ?? '').trim()) node.value = text;
        else delete node.value;
        return;
      }
      case undefined:
        return;
    }
  }

  /**
   * Reads the details of these nodes concurrently: value or text, automation id and action names,
   * and with `full` the rectangle too (`answer` leaves it: a text answer shows none). What an
   * earlier pass read and no event touched since is kept, each part on its own.
   */
  async details(
    nodes: Map<string, AtspiNode>,
    keys: readonly string[],
    deadline: Deadline,
    problems: Problems,
    scope: DetailScope = 'full',
    detailed?: Set<string>,
  ): Promise<void> {
    if (scope === 'ids' && this.profile.ids === 'unsupported') {
      problems.notes.push(this.noIdsNote());
      return;
    }
    if (scope === 'ids' || scope === 'values') return this.partialDetails(nodes, keys, deadline, scope, problems);
    const wantRect = scope === 'full';
    const needsRect = (n: AtspiNode): boolean => wantRect && n.rectRead !== true && n.interfaces.has(I.component);
    const since = this.eventSeq;
    const todo = keys.map((k) => nodes.get(k)).filter((n): n is AtspiNode => n !== undefined && (!n.detailed || needsRect(n)));
    // Details still valid when the read began count as read, even if an event marks them stale meanwhile.
    if (detailed !== undefined) for (const k of keys) if (nodes.get(k)?.detailed === true && !needsRect(nodes.get(k) as AtspiNode)) detailed.add(k);
    const idless = todo.filter((n) => !n.detailed && !this.knownId(n));
    let askIds = new Set(idless.slice(0, this.idsToAsk(idless.length)));
    const unasked: AtspiNode[] = [];
    const calls: AtspiNode[] = [];
    for (const node of todo) {
      if (needsRect(node) || (!node.detailed && (askIds.has(node) || this.hasValue(node) || node.interfaces.has(I.action)))) calls.push(node);
      else {
        // Nothing to ask (a label, a panel): settled at once, without a round of the pool.
        if (!node.detailed && !this.knownId(node)) unasked.push(node);
        this.settle(node, nodes, since, false, !node.detailed, new Set(), detailed);
      }
    }
    await pool(calls, CONCURRENCY, deadline, (node) => this.detailOne(node, nodes, deadline, problems, since, needsRect(node), askIds, unasked, detailed));
    // The probe saw an id after all: ask the rest too.
    if (unasked.length > 0 && this.idsToAsk(unasked.length) > 0) {
      askIds = new Set(unasked.splice(0, this.idsToAsk(unasked.length)));
      await this.partialDetails(
        nodes,
        [...askIds].map((n) => n.key),
        deadline,
        'ids',
        problems,
      );
    }
    if (unasked.length > 0 && this.profile.ids === 'unsupported') problems.notes.push(this.noIdsNote());
    else if (unasked.length > 0)
      problems.notes.push(
        `automation_id: not asked of ${unasked.length} elements: ${this.profile.label} sets none by itself and this application answered none for the first ${ID_PROBE} asked; element_find by automation_id asks every element`,
      );
  }

  /** One node of a detail pass (see details). */
  private async detailOne(
    node: AtspiNode,
    nodes: ReadonlyMap<string, AtspiNode>,
    deadline: Deadline,
    problems: Problems,
    since: number,
    readRect: boolean,
    askIds: ReadonlySet<AtspiNode>,
    unasked: AtspiNode[],
    detailed: Set<string> | undefined,
  ): Promise<void> {
    const t = (): number => deadline.remaining();
    const readBase = !node.detailed;
    const jobs: Promise<void>[] = [];
    const failed = new Set<string>();
    const guard = (field: 'rect' | 'automation_id' | 'value' | 'patterns', job: () => Promise<void>): void => {
      jobs.push(
        job().catch((error: unknown) => {
          failed.add(field);
          node.unread.add(field);
          problems.note(error, `${field} of ${node.role} "${node.name ?? ''}"`);
        }),
      );
    };
    if (readRect) {
      guard('rect', async () => {
        const [ext] = await this.bus.call(node.bus, node.path, I.component, 'GetExtents', t(), 'u', [0]);
        const [x, y, w, h] = (ext as number[]).map(Number) as [number, number, number, number];
        if (x > -2_000_000_000 && w > 0 && h > 0) node.rect = rect(x, y, w, h);
        else delete node.rect;
      });
    }
    if (readBase) {
      if (askIds.has(node)) {
        guard('automation_id', async () => {
          this.learnId(node, str(await this.bus.getProperty(node.bus, node.path, I.accessible, 'AccessibleId', t())));
        });
      } else if (!this.knownId(node)) unasked.push(node);
      if (this.hasValue(node)) guard('value', () => this.readValue(node, deadline, nodes));
      if (node.interfaces.has(I.action)) {
        guard('patterns', async () => {
          node.actions = await this.actionNames(node, deadline);
        });
      }
    }
    await Promise.all(jobs);
    this.settle(node, nodes, since, readRect, readBase, failed, detailed);
  }

  /** Marks what a detail pass read of one node, and keeps it when no event touched the node meanwhile. */
  private settle(
    node: AtspiNode,
    nodes: ReadonlyMap<string, AtspiNode>,
    since: number,
    readRect: boolean,
    readBase: boolean,
    failed: ReadonlySet<string>,
    detailed: Set<string> | undefined,
  ): void {
    if (readBase) {
      node.patterns = this.patternsOf(node, nodes);
      node.detailed = true;
    }
    if (!node.interfaces.has(I.component) || (readRect && !failed.has('rect'))) node.rectRead = true;
    detailed?.add(node.key);
    if (!this.untouchedSince(node.key, since)) return;
    const d: Detail = this.detailStore.get(node.key) ?? {};
    if (readBase && !failed.has('value') && !failed.has('patterns') && !failed.has('automation_id'))
      d.base = { ...(node.value !== undefined ? { value: node.value } : {}), ...(node.actions !== undefined ? { actions: node.actions } : {}) };
    if (readRect && !failed.has('rect')) d.rect = { rect: node.rect };
    if (d.base !== undefined || d.rect !== undefined) this.detailStore.set(node.key, d);
  }
}
