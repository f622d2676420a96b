import {
  HELPER_METHODS,
  fail,
  type Element,
  type ElementRef,
  type HelperActParams,
  type HelperActResult,
  type HelperMethod,
  type HelperParams,
  type HelperResult,
  type WindowInfo,
} from '../../protocol/index.js';
import type { HelperCaller } from '../core/helperLink/helperSupervisor.js';

/** The window every fake element lives in. */
export const FAKE_WINDOW: WindowInfo = { window: 'w1', title: 'Fixture', app: 'fixture', pid: 4242, process_start: '99', foreground: true };

/** One element the fake helper knows, by automation id. */
export interface FakeElement {
  element: Element;
  /** The state the helper would bind on a card (opaque to the supervisor). */
  shown: NonNullable<ElementRef['shown']>;
  /** States the element shows when read back after any dispatch (an application that selects on focus). */
  afterState?: Element['state'];
}

/** A fake element: role, name, value and states as the helper would report them. */
export function fakeElement(id: string, over: Partial<Element> = {}): FakeElement {
  const element: Element = {
    key: `k:${id}`,
    role: 'button',
    name: id,
    automation_id: id,
    state: { enabled: true },
    patterns: ['invoke', 'value', 'toggle', 'focus', 'scroll_item'],
    ...over,
  };
  return { element, shown: { value_hash: `h:${element.value ?? 'none'}`, enabled: true } };
}

/**
 * A stand-in for the helper process in unit tests of the supervision core: element_act answers
 * from a table of elements, records every dispatch (the thing these tests watch), and a dispatch
 * can be held open to test what a brake answers while a call is in flight.
 */
export class FakeHelper implements HelperCaller {
  readonly elements = new Map<string, FakeElement>();
  /** Every element_act that was not check_only: what was really dispatched. */
  readonly dispatched: HelperActParams[] = [];
  /** Every call, in order, with the lane it was made in (fair lanes, main/core/helperLink/fairLanes.ts). */
  readonly calls: { method: HelperMethod; params: unknown; lane?: string }[] = [];
  /** When set, a dispatch waits for this promise (a slow or hung application). */
  hold: Promise<void> | undefined;
  /** When set, the next dispatch fails as if the helper died. */
  dieOnDispatch = false;

  add(...els: FakeElement[]): this {
    for (const e of els) this.elements.set(e.element.automation_id ?? e.element.key, e);
    return this;
  }

  call<M extends HelperMethod>(method: M, params: HelperParams<M>, options: { lane?: string } = {}): Promise<HelperResult<M>> {
    this.calls.push({ method, params, ...(options.lane !== undefined ? { lane: options.lane } : {}) });
    if (method === 'window_list') return this.list() as Promise<HelperResult<M>>;
    // Checked against the helper's result schema, as the real helper client does (unknown keys stripped).
    if (method === 'window_read')
      return Promise.resolve(HELPER_METHODS.window_read.result.parse(this.read(params as HelperParams<'window_read'>)) as HelperResult<M>);
    if (method === 'element_find')
      return Promise.resolve(HELPER_METHODS.element_find.result.parse(this.find(params as HelperParams<'element_find'>)) as HelperResult<M>);
    if (method !== 'element_act') return Promise.reject(new Error(`the fake helper has no ${method}`));
    return this.act(params as HelperActParams) as Promise<HelperResult<M>>;
  }

  private async list(): Promise<HelperResult<'window_list'>> {
    if (this.hold !== undefined) await this.hold;
    return { windows: [FAKE_WINDOW], limit: { value: 100, ceiling: 500 }, total_known: true, truncated_by: [], notes: [] };
  }

  /** The table's elements as one window's children (flat: depth 1 under the window element), cut at max_nodes. */
  private read(p: HelperParams<'window_read'>): HelperResult<'window_read'> {
    const all = [...this.elements.values()].map((e) => ({ ...structuredClone(e.element), ...(p.identity === true ? { digest: `d:${e.element.key}` } : {}) }));
    const max = p.max_nodes ?? 400;
    const cut = all.length + 1 > max;
    const kept = all.slice(0, Math.max(0, max - 1));
    const root: Element = {
      key: 'k:window',
      role: 'window',
      name: FAKE_WINDOW.title,
      state: {},
      patterns: [],
      ...(p.identity === true ? { digest: 'd:window' } : {}),
    };
    const elements = p.format === 'flat' ? [{ ...root, depth: 0 }, ...kept.map((e) => ({ ...e, depth: 1, parent: root.key }))] : [{ ...root, children: kept }];
    return {
      window: FAKE_WINDOW,
      format: p.format ?? 'tree',
      elements,
      node_count: kept.length + 1,
      limits: { max_nodes: { value: max, ceiling: 5000 } },
      truncated_by: cut ? ['max_nodes'] : [],
      notes: cut ? [`stopped at ${max} elements`] : [],
      read_ms: 1,
      // The helper builds every element's identity (docs/tools.md#target-handles); main only looks it up.
      ...(p.identity === true ? { refs: Object.fromEntries(kept.map((e) => [e.key, this.refOf(e.key)])) } : {}),
    };
  }

  /** The bound reference of a table element, as the helper would record it. */
  private refOf(key: string): ElementRef {
    const e = [...this.elements.values()].find((x) => x.element.key === key);
    if (e === undefined) throw new Error(`no fake element ${key}`);
    return {
      key,
      window: FAKE_WINDOW.window,
      process: { pid: FAKE_WINDOW.pid, process_start: FAKE_WINDOW.process_start },
      digest: `d:${key}`,
      role: e.element.role,
      ancestors: ['window:Fixture'],
      shown: e.shown,
    };
  }

  /** element_find over the table by automation_id or name (exact). */
  private find(p: HelperParams<'element_find'>): HelperResult<'element_find'> {
    const matches = [...this.elements.values()].filter(
      (e) =>
        (p.selector.automation_id === undefined || e.element.automation_id === p.selector.automation_id) &&
        (p.selector.name === undefined || e.element.name === p.selector.name),
    );
    const refs = matches.map((e) => this.refOf(e.element.key));
    return {
      window: FAKE_WINDOW,
      matches: matches.map((e) => ({ ...structuredClone(e.element), digest: `d:${e.element.key}` })),
      match_count: matches.length,
      searched_whole_window: true,
      limit: { value: p.limit ?? 20, ceiling: 200 },
      truncated_by: [],
      notes: [],
      ...(p.refs === true ? { refs } : {}),
    };
  }

  private async act(p: HelperActParams): Promise<HelperActResult> {
    const id = p.element !== undefined ? p.element.key.replace(/^k:/, '') : p.selector?.automation_id;
    const found = id === undefined ? undefined : this.elements.get(id);
    const base: HelperActResult = {
      action: p.action,
      outcome: 'refused',
      action_call_made: false,
      verification: 'not_checked',
      after_read: { status: 'unavailable' },
    };
    // Like the real helper: password text never leaves it, not even echoed.
    if (p.text !== undefined) base.text = found?.element.state.password === true ? '••••••' : p.text;
    if (found === undefined) return { ...base, refusal: { code: 'not_found', detail: 'no such element' } };
    const ref: ElementRef = {
      key: found.element.key,
      window: FAKE_WINDOW.window,
      process: { pid: FAKE_WINDOW.pid, process_start: FAKE_WINDOW.process_start },
      digest: 'd',
      role: found.element.role,
      ancestors: ['window:Fixture'],
      shown: found.shown,
    };
    if (found.element.name !== undefined) ref.name = found.element.name;
    const result: HelperActResult = { ...base, window: FAKE_WINDOW, target: found.element, element_ref: ref };
    if (p.check_only === true) return { ...result, outcome: 'pending' };
    this.dispatched.push(p);
    if (this.hold !== undefined) await this.hold;
    if (this.dieOnDispatch) throw fail('helper_unavailable', 'the helper died while the call was in flight');
    if (p.element?.shown !== undefined && p.element.shown.value_hash !== found.shown.value_hash)
      return { ...result, refusal: { code: 'stale_element', detail: 'the value changed since the card showed it', data: { changed: ['value'] } } };
    let after: Element = p.action === 'set_value' && found.element.state.password !== true ? { ...found.element, value: p.text ?? '' } : found.element;
    if (found.afterState !== undefined) after = { ...after, state: { ...after.state, ...found.afterState } };
    return {
      ...result,
      outcome: 'completed',
      action_call_made: true,
      path: `fake:${p.action}`,
      verification: p.action === 'invoke' ? 'not_checked' : 'verified',
      after,
      after_read: { status: 'full' },
    };
  }
}
