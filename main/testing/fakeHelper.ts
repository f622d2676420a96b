import { fail, type Element, type ElementRef, type HelperActParams, type HelperActResult, type HelperMethod, type HelperParams, type HelperResult, type WindowInfo } from '../../protocol/index.js';
import type { HelperCaller } from '../core/helperSupervisor.js';

/** The window every fake element lives in. */
export const FAKE_WINDOW: WindowInfo = { window: 'w1', title: 'Fixture', app: 'fixture', pid: 4242, process_start: '99', foreground: true };

/** One element the fake helper knows, by automation id. */
export interface FakeElement {
  element: Element;
  /** The state the helper would bind on a card (opaque to the supervisor). */
  shown: NonNullable<ElementRef['shown']>;
}

/** A fake element: role, name, value and states as the helper would report them. */
export function fakeElement(id: string, over: Partial<Element> = {}): FakeElement {
  const element: Element = { key: `k:${id}`, role: 'button', name: id, automation_id: id, state: { enabled: true }, patterns: ['invoke', 'value', 'toggle', 'focus', 'scroll_item'], ...over };
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
  /** Every call, in order. */
  readonly calls: { method: HelperMethod; params: unknown }[] = [];
  /** When set, a dispatch waits for this promise (a slow or hung application). */
  hold: Promise<void> | undefined;
  /** When set, the next dispatch fails as if the helper died. */
  dieOnDispatch = false;

  add(...els: FakeElement[]): this {
    for (const e of els) this.elements.set(e.element.automation_id ?? e.element.key, e);
    return this;
  }

  call<M extends HelperMethod>(method: M, params: HelperParams<M>): Promise<HelperResult<M>> {
    this.calls.push({ method, params });
    if (method === 'window_list') return this.list() as Promise<HelperResult<M>>;
    if (method !== 'element_act') return Promise.reject(new Error(`the fake helper has no ${method}`));
    return this.act(params as HelperActParams) as Promise<HelperResult<M>>;
  }

  private async list(): Promise<HelperResult<'window_list'>> {
    if (this.hold !== undefined) await this.hold;
    return { windows: [FAKE_WINDOW], limit: { value: 100, ceiling: 500 }, total_known: true, truncated_by: [], notes: [] };
  }

  private async act(p: HelperActParams): Promise<HelperActResult> {
    const id = p.element !== undefined ? p.element.key.replace(/^k:/, '') : p.selector?.automation_id;
    const found = id === undefined ? undefined : this.elements.get(id);
    const base: HelperActResult = { action: p.action, outcome: 'refused', action_call_made: false, verification: 'not_checked', after_read: { status: 'unavailable' } };
    // Like the real helper: password text never leaves it, not even echoed.
    if (p.text !== undefined) base.text = found?.element.state.password === true ? '••••••' : p.text;
    if (found === undefined) return { ...base, refusal: { code: 'not_found', detail: 'no such element' } };
    const ref: ElementRef = { key: found.element.key, window: FAKE_WINDOW.window, process: { pid: FAKE_WINDOW.pid, process_start: FAKE_WINDOW.process_start }, digest: 'd', role: found.element.role, ancestors: ['window:Fixture'], shown: found.shown };
    if (found.element.name !== undefined) ref.name = found.element.name;
    const result: HelperActResult = { ...base, window: FAKE_WINDOW, target: found.element, element_ref: ref };
    if (p.check_only === true) return { ...result, outcome: 'pending' };
    this.dispatched.push(p);
    if (this.hold !== undefined) await this.hold;
    if (this.dieOnDispatch) throw fail('helper_unavailable', 'the helper died while the call was in flight');
    if (p.element?.shown !== undefined && p.element.shown.value_hash !== found.shown.value_hash) return { ...result, refusal: { code: 'stale_element', detail: 'the value changed since the card showed it', data: { changed: ['value'] } } };
    const after: Element = p.action === 'set_value' && found.element.state.password !== true ? { ...found.element, value: p.text ?? '' } : found.element;
    return { ...result, outcome: 'completed', action_call_made: true, path: `fake:${p.action}`, verification: p.action === 'invoke' ? 'not_checked' : 'verified', after, after_read: { status: 'full' } };
  }
}
