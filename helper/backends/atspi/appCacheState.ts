// What one application's cache knows, and how the application's events change it: the loaded
// structure, the objects read one by one and their children lists, the details a pass kept, the
// automation ids, and the counter that tells a pass in flight whether an event touched what it read.
// Events patch states, names and roles in place, mark details stale, and spoil the structure where
// it must be read again; AppCache (appCache.ts) loads and reads on top of this.
import type { Pattern, Rect } from '../../../protocol/index.js';
import { patternsOf, type AtspiNode } from './atspiNode.js';
import { classify, type EventEffect } from './events.js';
import { keyOf } from './refs.js';
import { S, STATE_NUMBERS, mapRole, mapState } from './roles.js';
import { UNKNOWN_PROFILE, type ToolkitProfile } from './toolkits.js';

/** Objects whose last event is remembered (for passes in flight); an application that keeps making new ones must not grow the helper. */
const TOUCHED_MAX = 50_000;

/**
 * Details of one object read by the detail pass, kept until an event says they may have changed:
 * the answer's details (value, actions) and the rectangle, each dropped on its own.
 */
export interface Detail {
  base?: { value?: string; actions?: string[] };
  /** The rectangle as read; `rect` undefined when the object had none on screen. */
  rect?: { rect: Rect | undefined };
}

/** Roles GTK 4.8 names by joining their own name and their label's ("7 7"). */
const LABELLED_ROLES = new Set(['button', 'toggle_button', 'check_box', 'radio_button', 'menu_item', 'tab_item', 'link', 'split_button']);

/** A state or name change that arrived while the structure was being read, applied again to the result. */
type Patch = { key: string; state: { name: string; on: boolean } } | { key: string; name: string } | { key: string; role: number };

/**
 * The state of one application's cache, and the event patches that keep it current. Structure read
 * while an event arrives is used for that answer only (`eventDuringLoad`); states, names and roles
 * that change meanwhile are applied again to the result (`replayPatches`).
 */
export class AppCacheState {
  /** The latest loaded view; each tree source pins the map it opened with. */
  nodes = new Map<string, AtspiNode>();
  /** Whether the loaded structure is current, as far as the events seen say. */
  protected fresh = false;
  /** True from the first moment of a structural read (before `loading` is set) to its end. */
  protected reading = false;
  protected eventDuringLoad = false;
  protected patchesDuringLoad: Patch[] = [];
  /** The application's toolkit and what it does differently (toolkits.ts), once read. */
  protected profile: ToolkitProfile = UNKNOWN_PROFILE;
  /** Event counter; details read before an event that touched their object are not kept. */
  protected eventSeq = 0;
  private globalTouch = 0;
  private readonly touched = new Map<string, number>();
  /** Objects read one by one (gaps the structure does not hold), kept across loads until an event names them. */
  protected readonly gapNodes = new Map<string, AtspiNode>();
  protected readonly childLists = new Map<string, string[]>();
  protected readonly detailStore = new Map<string, Detail>();
  /** Accessible ids are fixed for an object's life; kept until the object is removed. */
  protected readonly ids = new Map<string, string>();

  constructor(readonly busName: string) {}

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
  protected untouchedSince(key: string, since: number): boolean {
    return this.globalTouch <= since && (this.touched.get(key) ?? 0) <= since;
  }

  /** Applies a StateChanged event to the cached object (the event carries the new value). */
  protected patchState(key: string, name: string, on: boolean): void {
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
  protected patchRole(key: string, roleNumber: number): void {
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
  protected patchName(key: string, name: string): void {
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
  protected adjust(node: AtspiNode): void {
    this.adjustName(node, node.name ?? '');
    this.adjustState(node);
    if (this.profile.meaninglessValue.has(node.role)) node.patterns = node.patterns.filter((p) => p !== 'range_value');
  }

  /** The node's patterns (atspiNode.ts), less what its toolkit's provider offers without meaning. */
  protected patternsOf(node: AtspiNode, nodes: ReadonlyMap<string, AtspiNode>): Pattern[] {
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

  /** Puts kept id and details back on a freshly loaded node. */
  protected restore(node: AtspiNode, nodes: ReadonlyMap<string, AtspiNode>): void {
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

  /** Applies again the states, names and roles that changed while the structure was read: whichever the structure holds, these are current. */
  protected replayPatches(): void {
    for (const patch of this.patchesDuringLoad) {
      if ('state' in patch) this.patchState(patch.key, patch.state.name, patch.state.on);
      else if ('role' in patch) this.patchRole(patch.key, patch.role);
      else this.patchName(patch.key, patch.name);
    }
    this.patchesDuringLoad = [];
  }
}
