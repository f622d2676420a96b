import {
  fail,
  type Action,
  type ElementField,
  type ElementState,
  type Exclusions,
  type Pattern,
  type ProcessIdentity,
  type Rect,
  type Role,
  type Truncation,
  type WindowInfo,
} from '../../protocol/index.js';
import { supports, type ActionPlan, type Backend, type DispatchResult, type NativeNode, type TreeSource, type WindowHandle } from '../core/backend.js';
import type { Deadline } from '../core/deadline.js';
import { setValueRoute } from '../core/setValue.js';

/** One element of the fake window as a test writes it; its key in the tree is its native identity. */
export interface FakeElement {
  role: Role;
  name?: string;
  automationId?: string;
  className?: string;
  value?: string;
  state?: ElementState;
  patterns?: Pattern[];
  actions?: string[];
  rect?: Rect;
  /** Child keys in order. */
  children?: string[];
  /** Fields the provider fails to answer for this element. */
  unread?: ElementField[];
}

/** One dispatch the fake received, in order. */
export interface DispatchCall {
  key: string;
  action: Action;
  text: string | undefined;
}

/** What the fake's dispatch answers: a result (`ok: false` = the provider said it did not do it), or an error it throws. */
export type DispatchAnswer = { ok: boolean; noop?: boolean; detail?: string } | { throws: Error };

/** When a dispatched action's effect shows in the tree: during the call, on the Nth read after it, or never. */
export type EffectTiming = 'immediately' | 'never' | { onRead: number };

/** A change the application makes when it performs a call. */
export type Effect = (backend: FakeBackend, call: DispatchCall) => void;

/**
 * How a fresh read learns the tree: `at_once` knows every element when it opens (UIA bulk cache,
 * Win32, AT-SPI Cache.GetItems); `lazy` knows only the root and reads children as a walk asks and
 * single elements by key with their parent's key only (AT-SPI without a cache).
 */
export type ReadMode = 'at_once' | 'lazy';

/** The effect an application usually shows for each action. */
export const usualEffect: Effect = (b, { key, action, text }) => {
  const state = b.elements.get(key)?.state ?? {};
  if (action === 'set_value') b.set(key, { value: text ?? '' });
  else if (action === 'toggle') b.set(key, { state: { checked: state.checked !== true } });
  else if (action === 'expand' || action === 'collapse') b.set(key, { state: { expanded: action === 'expand' } });
  else if (action === 'select') b.set(key, { state: { selected: true } });
  else if (action === 'focus') b.set(key, { state: { focused: true } });
  else if (action === 'scroll_into_view') b.set(key, { state: { offscreen: false } });
};

/**
 * An in-memory Backend over one window for unit tests of the core: a test mutates the tree,
 * states, values, process identity and window info between calls, and sees every dispatch in
 * `calls`. Dispatch answers `answer` and applies `effect` (default: the usual one) per `timing`.
 * Reports itself as `atspi` because the protocol knows only real backends' names.
 */
export class FakeBackend implements Backend {
  readonly name = 'atspi';
  readonly capabilities: readonly string[] = [];
  /** The live tree by native key; reads snapshot it, tests change it (or use set/insert/remove/replace). */
  readonly elements = new Map<string, FakeElement>();
  /** The window as the desktop shows it now (title, rect, owning process). */
  window: WindowInfo;
  /** False once the window closed: resolving it answers window_gone. */
  windowOpen = true;
  /** Processes running now; any other identity is stale_process. */
  running: ProcessIdentity[];
  /** How each fresh read learns the tree. */
  readMode: ReadMode = 'at_once';
  /** False when the provider cannot read an element by its key (only walking reaches it). */
  fetchable = true;
  /** Cuts every read meets (a provider error, a timeout). */
  cuts: Truncation[] = [];
  /** What every dispatch answers until changed. */
  answer: DispatchAnswer = { ok: true };
  /** What the application does when a call succeeds (not on a noop or a failure). */
  effect: Effect = usualEffect;
  timing: EffectTiming = 'immediately';
  /** Set: set_value is typed, and the card says this (as a backend's plan does for a field without EditableText). */
  typedPlan: string | undefined;
  /** Called at each fresh read after a dispatch, with its number (1 = the first read-back): an application still taking keys. */
  onRead: ((backend: FakeBackend, read: number) => void) | undefined;
  /** Every dispatch received, in order: "nothing was dispatched" is `calls.length === 0`. */
  readonly calls: DispatchCall[] = [];
  /** Trees opened since the last dispatch: the read-backs. */
  readsSinceDispatch = 0;
  /** Trees opened and finished so far: every read the core opens, it finishes once. */
  opened = 0;
  finished = 0;
  /** Reads of a tree after its finish() (and second finishes), by method: the core must never make one. */
  readonly usedAfterFinish: string[] = [];
  private due: { read: number; apply: () => void } | undefined;

  constructor(
    readonly rootKey: string,
    elements: Record<string, FakeElement>,
    window: WindowInfo,
  ) {
    for (const [key, el] of Object.entries(elements)) this.elements.set(key, el);
    this.window = window;
    this.running = [{ pid: window.pid, process_start: window.process_start }];
  }

  /** Changes an element in place; a `state` patch merges into its current state. */
  set(key: string, patch: Partial<FakeElement>): void {
    const el = this.get(key);
    const state = patch.state === undefined ? el.state : { ...el.state, ...patch.state };
    Object.assign(el, patch, state === undefined ? {} : { state });
  }

  /** Adds an element under a parent (at the end, or at `index`). */
  insert(parent: string, key: string, el: FakeElement, index?: number): void {
    const kids = (this.get(parent).children ??= []);
    kids.splice(index ?? kids.length, 0, key);
    this.elements.set(key, el);
  }

  /** Removes an element and everything under it. */
  remove(key: string): void {
    const parent = this.parentOf(key);
    if (parent !== undefined) this.set(parent, { children: (this.get(parent).children ?? []).filter((k) => k !== key) });
    for (const child of this.elements.get(key)?.children ?? []) this.remove(child);
    this.elements.delete(key);
  }

  /** The provider re-created an element: the same element (optionally changed) under a new native key, in the same place. */
  replace(key: string, newKey: string, patch: Partial<FakeElement> = {}): void {
    const parent = this.parentOf(key);
    const el = this.get(key);
    if (parent !== undefined) this.set(parent, { children: (this.get(parent).children ?? []).map((k) => (k === key ? newKey : k)) });
    this.elements.delete(key);
    this.elements.set(newKey, { ...el, ...patch });
  }

  /** The key of the element's parent, if it has one. */
  parentOf(key: string): string | undefined {
    for (const [k, el] of this.elements) if (el.children?.includes(key) === true) return k;
    return undefined;
  }

  private get(key: string): FakeElement {
    const el = this.elements.get(key);
    if (el === undefined) throw new Error(`fake backend: no element ${key}`);
    return el;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  setExclusions(_exclusions: Exclusions): void {}

  listWindows(): Promise<{ windows: WindowInfo[]; truncated: Truncation[]; notes: string[] }> {
    return Promise.resolve({ windows: this.windowOpen ? [{ ...this.window }] : [], truncated: [], notes: [] });
  }

  resolveWindow(id: string | undefined): Promise<WindowHandle> {
    if (!this.windowOpen || (id !== undefined && id !== this.window.window))
      return Promise.reject(fail('window_gone', `window ${id ?? '(foreground)'} is gone`));
    return Promise.resolve({
      info: { ...this.window, ...(this.window.rect ? { rect: { ...this.window.rect } } : {}) },
      rootKey: this.rootKey,
      process: { pid: this.window.pid, process_start: this.window.process_start },
    });
  }

  open(window: WindowHandle): Promise<TreeSource> {
    this.readsSinceDispatch++;
    if (this.due !== undefined && this.readsSinceDispatch >= this.due.read) {
      this.due.apply();
      this.due = undefined;
    }
    this.onRead?.(this, this.readsSinceDispatch);
    this.opened++;
    return Promise.resolve(new FakeTreeSource(this, window));
  }

  plan(_source: TreeSource, _node: NativeNode, action: Action): Promise<ActionPlan | undefined> {
    return Promise.resolve(action === 'set_value' && this.typedPlan !== undefined ? { summary: this.typedPlan } : undefined);
  }

  checkProcess(process: ProcessIdentity): Promise<void> {
    if (this.running.some((p) => p.pid === process.pid && p.process_start === process.process_start)) return Promise.resolve();
    return Promise.reject(fail('stale_process', `process ${process.pid} has exited or its pid was recycled`, { pid: process.pid }));
  }

  /** Records the call, then answers `answer` and schedules `effect` per `timing` (real backends refuse unsupported patterns too). */
  dispatch(_source: TreeSource, node: NativeNode, action: Action, text: string | undefined): Promise<DispatchResult> {
    const call = { key: node.key, action, text };
    this.calls.push(call);
    this.readsSinceDispatch = 0;
    this.due = undefined;
    if (!supports(node, action)) return Promise.reject(fail('pattern_unsupported', `${node.key} does not support ${action}`));
    if (action === 'set_value') {
      try {
        setValueRoute(node.patterns, text);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    const answer = this.answer;
    if ('throws' in answer) return Promise.reject(answer.throws);
    if (answer.ok && answer.noop !== true) {
      const apply = (): void => this.effect(this, call);
      if (this.timing === 'immediately') apply();
      else if (this.timing !== 'never') this.due = { read: this.timing.onRead, apply };
    }
    return Promise.resolve({
      path: `fake:${action}`,
      ok: answer.ok,
      ...(answer.noop === true ? { noop: true } : {}),
      ...(answer.detail !== undefined ? { detail: answer.detail } : {}),
    });
  }
}

/** One read of the fake window: a snapshot of each element taken when this read first reaches it. */
class FakeTreeSource implements TreeSource {
  readonly truncated: Set<Truncation>;
  readonly notes: string[] = [];
  private readonly nodes = new Map<string, NativeNode>();
  private done = false;

  constructor(
    private readonly backend: FakeBackend,
    readonly window: WindowHandle,
  ) {
    this.truncated = new Set(backend.cuts);
    if (backend.cuts.length > 0) this.notes.push(`fake cuts: ${backend.cuts.join(', ')}`);
    const lazy = backend.readMode === 'lazy';
    const stack: [string, string | undefined][] = [[window.rootKey, undefined]];
    while (stack.length > 0) {
      const [key, parent] = stack.pop() as [string, string | undefined];
      const node = this.read(key, parent, !lazy);
      if (node !== undefined && !lazy) for (const c of node.children ?? []) stack.push([c, key]);
    }
  }

  private read(key: string, parent: string | undefined, withChildren: boolean): NativeNode | undefined {
    const el = this.backend.elements.get(key);
    if (el === undefined) return undefined;
    const kids = el.children ?? [];
    const node: NativeNode = {
      key,
      parent,
      children: withChildren || kids.length === 0 ? [...kids] : undefined,
      childCount: kids.length,
      role: el.role,
      state: { ...el.state },
      patterns: [...(el.patterns ?? [])],
      detailed: true,
      unread: new Set(el.unread),
      ...(el.name !== undefined ? { name: el.name } : {}),
      ...(el.automationId !== undefined ? { automationId: el.automationId } : {}),
      ...(el.className !== undefined ? { className: el.className } : {}),
      ...(el.value !== undefined ? { value: el.value } : {}),
      ...(el.actions !== undefined ? { actions: [...el.actions] } : {}),
      ...(el.rect !== undefined ? { rect: { ...el.rect } } : {}),
    };
    this.nodes.set(key, node);
    return node;
  }

  /** Records a read after finish() instead of throwing, so a test sees every misuse. */
  private use(what: string): void {
    if (this.done) this.backend.usedAfterFinish.push(what);
  }

  node(key: string): NativeNode | undefined {
    this.use('node');
    return this.nodes.get(key);
  }

  expand(keys: readonly string[], _deadline: Deadline, limit: number): Promise<void> {
    this.use('expand');
    for (const key of keys) {
      const node = this.nodes.get(key);
      if (node === undefined) continue;
      node.children ??= [...(this.backend.elements.get(key)?.children ?? [])];
      for (const child of node.children.slice(0, limit)) if (!this.nodes.has(child)) this.read(child, key, false);
    }
    return Promise.resolve();
  }

  /** Snapshots already hold every detail. */
  details(): Promise<void> {
    this.use('details');
    return Promise.resolve();
  }

  /** Reads one element by key with its parent's key, as AT-SPI's Parent property gives it (its ancestors stay unread). */
  fetch(key: string): Promise<NativeNode | undefined> {
    this.use('fetch');
    if (!this.backend.fetchable) return Promise.resolve(undefined);
    return Promise.resolve(this.nodes.get(key) ?? this.read(key, this.backend.parentOf(key), false));
  }

  isDetailed(key: string): boolean {
    this.use('isDetailed');
    return this.nodes.has(key);
  }

  finish(): void {
    this.use('finish');
    this.done = true;
    this.backend.finished++;
  }
}
