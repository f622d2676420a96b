import { rect } from '../../../protocol/index.js';
import type { DetailScope } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import { AppCacheState, type Detail } from './appCacheState.js';
import { I, makeNode, type AtspiNode } from './atspiNode.js';
import { DBusReplyError, type A11yBus } from './dbus.js';
import { CACHE_ITEMS_SIGNATURE, cacheItemNodes } from './cacheItems.js';
import { actionNames, hasValue, readValue } from './detailReads.js';
import { pool, str, type Problems } from './readSupport.js';
import { boundedChildList, boundedChildren } from './children.js';
import { NULL_PATH, ROOT_PATH, asRef, keyOf, refOf, type Ref } from './refs.js';
import { S } from './roles.js';
import { toolkitProfile, type ToolkitProfile } from './toolkits.js';

/** Calls in flight at once towards one application. */
const CONCURRENCY = 64;
/**
 * Automation ids asked of an application whose toolkit sets none by itself before the rest are
 * left unasked when every one was empty (docs/performance.md#what-a-read-asks).
 */
const ID_PROBE = 32;
/** How long the barrier a window's resolution made stands for the tree source opened right after it. */
const PROOF_MS = 100;

/**
 * Everything known about one application's tree, loaded and read (appCacheState.ts holds it and
 * applies the application's events to it). The structure (Cache.GetItems) is reloaded after
 * any event; objects read one by one (MANAGES_DESCENDANTS children, lazy GTK4 caches), children
 * lists and details are kept per object and dropped when an event names that object (or, for
 * positions, on any layout event). A D-Bus round trip to the application before reuse proves no
 * event was missed (its signals are ordered before the reply); anything read while an event
 * arrived is used for that answer only. Never serves stale data.
 */
export class AppCache extends AppCacheState {
  private loading: Promise<void> | undefined;
  /** The event counter when a barrier or a load last proved the cache current, and when. */
  private proven = { seq: -1, at: 0 };
  /** Loads that reused the cache after a barrier, and that read the structure again. */
  readonly loads = { reused: 0, reloaded: 0, nodes: 0, ms: 0 };
  private profileRead = false;
  /** Set when the application answered Cache.GetItems with nothing though it has windows: it is walked (Qt 5). */
  bulkEmpty = false;
  /** Automation ids answered so far (empty or not), and whether any was not empty. */
  private idsAnswered = 0;
  private idSeen = false;
  /** False once the application turned out not to publish Cache.GetItems. */
  private bulk = process.env['OVERSEER_ATSPI_NO_BULK'] !== '1';

  constructor(
    private readonly bus: A11yBus,
    busName: string,
  ) {
    super(busName);
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
    this.replayPatches();
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
      .filter((n): n is AtspiNode => n !== undefined && (scope === 'ids' ? !this.ids.has(n.key) : !n.detailed && hasValue(this.profile, n)));
    await pool(todo, CONCURRENCY, deadline, async (node) => {
      try {
        if (scope === 'ids') {
          this.learnId(node, str(await this.bus.getProperty(node.bus, node.path, I.accessible, 'AccessibleId', deadline.remaining())));
        } else await readValue(this.bus, this.profile, node, deadline, nodes);
      } catch (error) {
        node.unread.add(scope === 'ids' ? 'automation_id' : 'value');
        problems.note(error, `${scope === 'ids' ? 'automation id' : 'value'} of ${node.role} "${node.name ?? ''}"`);
      }
    });
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
      if (needsRect(node) || (!node.detailed && (askIds.has(node) || hasValue(this.profile, node) || node.interfaces.has(I.action)))) calls.push(node);
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
      if (hasValue(this.profile, node)) guard('value', () => readValue(this.bus, this.profile, node, deadline, nodes));
      if (node.interfaces.has(I.action)) {
        guard('patterns', async () => {
          node.actions = await actionNames(this.bus, node, deadline);
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
