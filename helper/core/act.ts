import { setTimeout as sleep } from 'node:timers/promises';
import {
  MASKED_TEXT,
  OverseerError,
  errorInfo,
  type Action,
  type Element,
  type ElementField,
  type ElementRef,
  type Selector,
  type WindowInfo,
  type ErrorInfo,
  type HelperActParams,
  type HelperActResult,
} from '../../protocol/index.js';
import { DispatchError, supports, type Backend, type NativeNode, type TreeSource, type WindowHandle } from './backend.js';
import { Deadline } from './deadline.js';
import { documentOrder, scan, undecidedReason, type Scan } from './find.js';
import { ancestorPath, bindingOf, digestOf, toElement } from './shape.js';
import { setValueRoute } from './setValue.js';
import { shownDifferences, shownStateOf } from './shown.js';
import { backendSource, openSource } from './source.js';
import { walk } from './walk.js';

/**
 * Budget of one element_act in the helper (resolve, dispatch, read back). A typed value's read-back
 * has its own TYPED_READ_BACK_MS once the keys are sent (typing under load can spend most of this),
 * well within the 30 s the supervisor gives a decided act.
 */
const ACT_BUDGET_MS = 10_000;
/** Read-back schedule: toolkits apply some actions on their next idle. */
const SETTLE_MS = [0, 40, 100, 200, 400];
/**
 * Typed input reaches the application through the window system and a browser's content process
 * after the keys were sent: its read-back goes on longer (docs/tools.md#set-value-by-typing).
 */
const TYPED_SETTLE_MS = [...SETTLE_MS, 700, 1000, 1500, 2000];
/**
 * After that schedule, a typed value still arriving (changed since the last read, or holding the
 * first part of the text) is read again every TYPED_ARRIVING_MS until it is whole or the budget
 * ends: a loaded Firefox showed "Gra" of "Grace" 2 s after the keys, and all of it later
 * (measured), which is no mismatch.
 */
const TYPED_ARRIVING_MS = 500;
const TYPED_READ_BACK_MS = 6000;
/** Most time spent reading the element back; a frozen application must not hold the receipt. */
const READ_BACK_MS = 1500;
const SHAPE = { maxTextChars: 2000, identity: true };
/** Most candidates an ambiguous refusal lists (docs/tools.md#ambiguous-selectors), and their longest name or value. */
export const MAX_CANDIDATES = 10;
const CANDIDATE_SHAPE = { maxTextChars: 200, identity: false };

interface Resolved {
  window: WindowHandle;
  /** Still open: act finishes it once, after its last read. */
  source: TreeSource;
  node: NativeNode;
  rebound: boolean;
}

class Refusal extends Error {
  constructor(
    readonly info: ErrorInfo,
    /** An ambiguous selector's candidates as bound identities (the supervisor issues targets from them) and their window. */
    readonly candidates?: { window: WindowInfo; refs: ElementRef[] },
  ) {
    super(info.detail);
  }
}

const refuse = (code: ErrorInfo['code'], detail: string, data?: Record<string, unknown>): Refusal => new Refusal(errorInfo(code, detail, data));

/** True when the node's parent chain is known up to the window root, so its ancestor path is whole. */
function reachesRoot(source: TreeSource, key: string): boolean {
  const seen = new Set<string>();
  for (let cur: string | undefined = key; cur !== undefined && !seen.has(cur); cur = source.node(cur)?.parent) {
    if (cur === source.window.rootKey) return true;
    seen.add(cur);
  }
  return false;
}

/** Runs `use` on a source it owns until it throws; on a throw the source is finished before the error goes on. */
async function finishOnThrow<T>(source: TreeSource, use: () => Promise<T>): Promise<T> {
  try {
    return await use();
  } catch (error) {
    source.finish();
    throw error;
  }
}

/** Finds the node a bound reference names, after re-checking process, window and digest. */
async function resolveRef(backend: Backend, ref: ElementRef, rebind: boolean, deadline: Deadline): Promise<Resolved> {
  await backend.checkProcess(ref.process, deadline);
  const window = await backend.resolveWindow(ref.window, deadline);
  if (window.process.pid !== ref.process.pid || window.process.process_start !== ref.process.process_start)
    throw refuse('stale_window', `window ${ref.window} now belongs to another process`);
  const source = await openSource(backend, window, deadline);
  return finishOnThrow(source, () => resolveIn(backend, ref, rebind, window, source, deadline));
}

async function resolveIn(backend: Backend, ref: ElementRef, rebind: boolean, window: WindowHandle, source: TreeSource, deadline: Deadline): Promise<Resolved> {
  let node = source.node(ref.key) ?? (await source.fetch(ref.key, deadline));
  // A node read alone (fetch) may lack the ancestors its digest covers: walk before judging it changed.
  if ((node === undefined || !reachesRoot(source, node.key)) && source.node(window.rootKey) !== undefined) {
    await walk(source, { maxNodes: 50_000, maxDepth: 256, maxChildren: 50_000 }, deadline);
    node = source.node(ref.key) ?? node;
  }
  if (node !== undefined) {
    await source.details([node.key], deadline);
    const digest = digestOf(node, ancestorPath(source, node.key));
    if (digest === ref.digest) return { window, source, node, rebound: false };
    if (!rebind)
      throw refuse('stale_element', 'the element changed since it was observed (role, name, automation id, class or ancestors differ)', {
        key: ref.key,
        now: { role: node.role, name: node.name },
      });
  } else if (!rebind) throw refuse('stale_element', 'the element observed is gone', { key: ref.key });
  return rebindRef(backend, ref, window, source, deadline);
}

/** The element must still show the state the person approved (docs/supervision.md#approval-binding). */
function checkShown(ref: ElementRef, node: NativeNode): void {
  if (ref.shown === undefined) return;
  const changed = shownDifferences(ref.shown, shownStateOf(node));
  if (changed.length === 0) return;
  const what = changed.map((c) => (c === 'value' ? 'value or text' : c)).join(', ');
  throw refuse('stale_element', `the element's ${what} changed since the approval card showed it; nothing was done`, { key: ref.key, changed });
}

/** One bounded rescan for a replacement with the same meaning (docs/tools.md#rebind); refuses on any doubt. */
async function rebindRef(backend: Backend, ref: ElementRef, window: WindowHandle, source: TreeSource, deadline: Deadline): Promise<Resolved> {
  if (ref.window_title !== undefined && ref.window_title !== window.info.title)
    throw refuse('stale_window', 'rebind refused: the window title changed', { was: ref.window_title, now: window.info.title });
  const wr = ref.window_rect;
  const nr = window.info.rect;
  if (wr !== undefined && nr !== undefined && (wr.x !== nr.x || wr.y !== nr.y || wr.w !== nr.w || wr.h !== nr.h))
    throw refuse('stale_window', 'rebind refused: the window moved or was resized');
  const walked = await walk(source, { maxNodes: 50_000, maxDepth: 256, maxChildren: 50_000 }, deadline);
  if (!walked.complete) throw refuse('incomplete_scan', 'rebind refused: the rescan was cut', { truncated_by: [...walked.truncated] });
  const keys = documentOrder(source, new Set(walked.keys));
  const sameShape = keys
    .map((k) => source.node(k))
    .filter((n): n is NativeNode => n !== undefined && n.role === ref.role && (n.name ?? '') === (ref.name ?? ''));
  await source.details(
    sameShape.map((n) => n.key),
    deadline,
  );
  const ancestors = JSON.stringify(ref.ancestors ?? []);
  const candidates = sameShape.filter(
    (n) =>
      (ref.automation_id === undefined || n.automationId === ref.automation_id) &&
      (n.className ?? undefined) === ref.class &&
      JSON.stringify(ancestorPath(source, n.key)) === ancestors,
  );
  if (candidates.length !== 1)
    throw refuse(
      candidates.length === 0 ? 'stale_element' : 'ambiguous',
      candidates.length === 0 ? 'rebind found no element with the same meaning' : `rebind found ${candidates.length} elements with the same meaning`,
      { match_count: candidates.length },
    );
  return { window, source, node: candidates[0] as NativeNode, rebound: true };
}

async function resolveSelector(backend: Backend, p: HelperActParams, deadline: Deadline): Promise<Resolved> {
  const selector = p.selector;
  if (selector === undefined) throw refuse('invalid_argument', 'no selector');
  const s = await scan(backend, p.window, selector, deadline);
  return finishOnThrow(s.source, () => pick(s, selector, deadline));
}

/**
 * An ambiguous selector's refusal: how many matched, and the first MAX_CANDIDATES in document order,
 * each with its nth (selector + nth picks it) and what tells them apart (role, name, automation_id,
 * rect, states); never a pick. Their details are read within a short budget of their own.
 */
async function ambiguous(s: Scan, deadline: Deadline): Promise<Refusal> {
  const shown = s.matches.slice(0, MAX_CANDIDATES);
  try {
    await s.source.details(
      shown.map((n) => n.key),
      deadline.slice(2000),
    );
  } catch {
    // A candidate whose details did not come lists what it has, its unread fields named.
  }
  const candidates = shown.map((n, nth) => ({ nth, ...toElement(s.source, n, CANDIDATE_SHAPE) }));
  return new Refusal(
    errorInfo('ambiguous', `${s.matches.length} elements match; add nth or a narrower selector`, {
      match_count: s.matches.length,
      candidates,
      truncated: s.matches.length > shown.length,
    }),
    { window: s.window.info, refs: shown.map((n) => bindingOf(s.window, s.source, n)) },
  );
}

/** What the agent can do instead when an undecided scan found one match: act on the target a read or a find gives it. */
function insteadOf(s: Scan): string {
  if (s.matches.length !== 1) return '';
  const why = s.truncated.has('visible_part')
    ? 'only the visible part of a container was read, so another match could hide out of view'
    : 'another match could hide in what was not searched';
  return `; one element matched, but ${why}: act on the target element_find or window_read gives for it`;
}

/** The one element a scan's matches name, or a refusal (not found, ambiguous, undecided). */
async function pick(s: Scan, selector: Selector, deadline: Deadline): Promise<Resolved> {
  const decided = s.complete && s.unreadable.length === 0;
  if (selector.nth !== undefined) {
    if (!decided) throw refuse('incomplete_scan', `${undecidedReason(s)}; nth cannot be trusted`, { truncated_by: [...s.truncated] });
    const node = s.matches[selector.nth];
    if (node === undefined)
      throw refuse('not_found', `nth ${selector.nth} is beyond the ${s.matches.length} matches`, {
        match_count: s.matches.length,
        searched_whole_window: true,
      });
    return { window: s.window, source: s.source, node, rebound: false };
  }
  if (s.matches.length > 1) throw await ambiguous(s, deadline);
  if (!decided)
    throw refuse(s.unreadable.length > 0 ? 'unreadable' : 'incomplete_scan', `${undecidedReason(s)}${insteadOf(s)}`, {
      truncated_by: [...s.truncated],
      match_count: s.matches.length,
    });
  const node = s.matches[0];
  if (node === undefined) throw refuse('not_found', 'no element matches the selector', { searched_whole_window: true, match_count: 0 });
  return { window: s.window, source: s.source, node, rebound: false };
}

/** Whether the element after the call shows the action's expected effect. */
function verify(action: Action, before: NativeNode, after: NativeNode, text: string | undefined): boolean | undefined {
  switch (action) {
    case 'set_value': {
      if (before.state?.password === true) return undefined; // toolkits read back the mask characters, not the text
      // Compared the way it was sent: the same rule chose the route the backend called.
      const route = setValueRoute(before.patterns, text);
      if (route.via === 'text') return after.value === route.text;
      return after.value !== undefined && after.value.trim() !== '' && Number(after.value) === route.number;
    }
    case 'toggle':
      return after.state?.checked !== undefined && after.state.checked !== before.state?.checked;
    case 'expand':
      return after.state?.expanded === true;
    case 'collapse':
      return after.state?.expanded === false;
    case 'select':
      return after.state?.selected === true || after.state?.checked === true;
    case 'focus':
      return after.state?.focused === true;
    case 'scroll_into_view':
      return after.state?.offscreen === false;
    case 'invoke':
      return undefined;
  }
}

/** The combo box an item belongs to (item → menu/list → combo box, or item → combo box as in Win32): selecting it must change the combo's value. */
function comboAncestor(source: TreeSource, node: NativeNode): NativeNode | undefined {
  const container = node.parent === undefined ? undefined : source.node(node.parent);
  if (container?.role === 'combo_box') return container;
  const combo = container?.parent === undefined ? undefined : source.node(container.parent);
  return combo?.role === 'combo_box' && (container?.role === 'menu' || container?.role === 'list') ? combo : undefined;
}

interface ReadBackResult {
  /** The element as read back, shaped before its source was finished. */
  after?: Element;
  unread?: ElementField[];
  /** Its value as the application gave it (not cut for the answer). */
  value?: string | undefined;
  verified?: boolean | undefined;
  /** A typed value was still arriving when the budget ended. */
  arriving?: boolean;
}

/**
 * Re-reads the element until the expected effect shows or the settle schedule ends; a typed value
 * still arriving then goes on being read (TYPED_ARRIVING_MS) until it is whole or `deadline` ends.
 */
async function readBack(
  backend: Backend,
  window: WindowHandle,
  key: string,
  comboKey: string | undefined,
  action: Action,
  before: NativeNode,
  text: string | undefined,
  deadline: Deadline,
  typed: boolean,
): Promise<ReadBackResult> {
  let last: ReadBackResult = {};
  let previous: string | undefined;
  const read = async (): Promise<boolean> => {
    previous = last.value;
    const source = await openSource(backend, window, deadline);
    try {
      last = await readOnce(source, key, comboKey, action, before, text, deadline);
    } finally {
      source.finish();
    }
    return last.verified === true || (last.after !== undefined && last.verified === undefined);
  };
  let waited = 0;
  for (const at of typed ? TYPED_SETTLE_MS : SETTLE_MS) {
    if (at > waited) await sleep(at - waited);
    waited = at;
    if (deadline.expired() || (await read())) return last;
  }
  while (typed && text !== undefined && stillArriving(text, before.value, previous, last.value)) {
    if (deadline.aborted) break;
    if (deadline.remaining() < TYPED_ARRIVING_MS) return { ...last, arriving: true };
    await sleep(TYPED_ARRIVING_MS);
    if (await read()) break;
  }
  return last;
}

/**
 * Whether a typed value is still on its way: it moved off what the field held before, and it changed
 * since the read before or holds the first part of the text (the rest of the keys not yet taken).
 */
export function stillArriving(text: string, before: string | undefined, previous: string | undefined, value: string | undefined): boolean {
  if (value === undefined || value === before) return false;
  return value !== previous || (value.length < text.length && text.startsWith(value));
}

/** One read-back from an open source: the element shaped, and whether it shows the effect. */
async function readOnce(
  source: TreeSource,
  key: string,
  comboKey: string | undefined,
  action: Action,
  before: NativeNode,
  text: string | undefined,
  deadline: Deadline,
): Promise<ReadBackResult> {
  const after = source.node(key) ?? (await source.fetch(key, deadline));
  if (after === undefined) return {};
  const combo = comboKey === undefined ? undefined : (source.node(comboKey) ?? (await source.fetch(comboKey, deadline)));
  if (combo !== undefined) await source.details([combo.key], deadline);
  else await source.details([after.key], deadline);
  const shaped = { after: toElement(source, after, SHAPE), unread: [...after.unread], value: after.value };
  return { ...shaped, verified: combo !== undefined ? combo.value === after.name : verify(action, before, after, text) };
}

/** Refused before the element is known: it may be a password field, so its text is not echoed. */
function quietRefusal(base: HelperActResult, error: unknown): HelperActResult {
  const { text: _text, ...quiet } = base;
  if (error instanceof Refusal)
    return {
      ...quiet,
      refusal: error.info,
      ...(error.candidates !== undefined ? { window: error.candidates.window, candidate_refs: error.candidates.refs } : {}),
    };
  if (error instanceof OverseerError) return { ...quiet, refusal: error.info };
  throw error;
}

/** element_act in the helper: resolve, re-check, dispatch through the semantic pattern, read back. */
export async function act(backend: Backend, p: HelperActParams, signal: AbortSignal): Promise<HelperActResult> {
  const deadline = new Deadline(ACT_BUDGET_MS, signal);
  const base: HelperActResult = {
    action: p.action,
    outcome: 'refused',
    action_call_made: false,
    verification: 'not_checked',
    after_read: { status: 'unavailable' },
  };
  if (p.text !== undefined) base.text = p.text;
  let r: Resolved;
  try {
    r = p.element !== undefined ? await resolveRef(backend, p.element, p.rebind === true, deadline) : await resolveSelector(backend, p, deadline);
  } catch (error) {
    return quietRefusal(base, error);
  }
  const { node, source } = r;
  let result: HelperActResult;
  let before: NativeNode;
  let comboKey: string | undefined;
  // The resolving read ends once the call is made; read-back opens fresh reads.
  try {
    try {
      await source.details([node.key], deadline);
      if (p.element !== undefined) checkShown(p.element, node);
    } catch (error) {
      return quietRefusal(base, error);
    }
    const password = node.state?.password === true;
    if (password && p.text !== undefined) base.text = MASKED_TEXT;
    const target: Element = toElement(source, node, SHAPE);
    result = {
      ...base,
      window: r.window.info,
      target,
      element_ref: { ...bindingOf(r.window, source, node), shown: shownStateOf(node) },
      ...(r.rebound ? { rebound: true } : {}),
    };
    if (node.state?.enabled === false) return { ...result, refusal: errorInfo('not_enabled', `the ${node.role} "${node.name ?? ''}" is disabled`) };
    if (!supports(node, p.action))
      return {
        ...result,
        refusal: errorInfo('pattern_unsupported', `the ${node.role} "${node.name ?? ''}" does not support ${p.action}`, {
          supported: node.patterns,
          ...(node.actions ? { actions: node.actions } : {}),
        }),
      };
    if (p.action === 'set_value') {
      // Before a person is asked or anything is called: text this element cannot take is refused here.
      try {
        setValueRoute(node.patterns, p.text);
      } catch (error) {
        if (error instanceof OverseerError) return { ...result, refusal: error.info };
        throw error;
      }
    }
    try {
      // How it will run, where not through the element's own interface: the card says so before anyone decides.
      const plan = await backend.plan?.(backendSource(source), node, p.action, p.text);
      if (plan !== undefined) result.method = plan.summary;
    } catch (error) {
      if (error instanceof OverseerError) return { ...result, refusal: error.info };
      throw error;
    }
    if (p.check_only === true) return { ...result, outcome: 'pending' };
    before = { ...node, state: { ...node.state } };
    comboKey = p.action === 'select' ? comboAncestor(source, node)?.key : undefined;
    try {
      const d = await backend.dispatch(backendSource(source), node, p.action, p.text, deadline);
      result.path = d.path;
      result.action_call_made = d.noop !== true;
      if (!d.ok) return { ...result, outcome: 'failed', error: errorInfo('internal', `${d.path} answered false: the application did not perform it`) };
      if (d.detail !== undefined) result.verification_detail = d.detail;
    } catch (error) {
      if (error instanceof OverseerError) return { ...result, refusal: error.info };
      if (error instanceof DispatchError)
        return {
          ...result,
          outcome: error.outcome,
          action_call_made: error.callMade,
          error: errorInfo(error.code ?? (error.outcome === 'unknown' ? 'timeout' : 'internal'), error.message, error.data),
        };
      throw error;
    }
  } finally {
    source.finish();
  }
  result.outcome = 'completed';
  try {
    const typed = result.method !== undefined;
    const back = await readBack(
      backend,
      r.window,
      node.key,
      comboKey,
      p.action,
      before,
      p.text,
      typed ? new Deadline(TYPED_READ_BACK_MS, signal) : deadline.slice(READ_BACK_MS),
      typed,
    );
    if (back.after !== undefined) {
      result.after = back.after;
      const unread = back.unread ?? [];
      result.after_read = unread.length > 0 ? { status: 'partial', unread } : { status: 'full' };
      if (back.verified !== undefined) result.verification = back.verified ? 'verified' : 'mismatch';
      else if (before.state?.password === true && p.action === 'set_value')
        result.verification_detail = 'a password field cannot be read back; the text was not compared';
      if (back.arriving === true)
        result.verification_detail = `the text was still arriving when the read-back ended (${TYPED_READ_BACK_MS / 1000} s): the application may yet show all of it`;
    } else {
      result.after_read = { status: 'unavailable' };
      result.verification_detail = 'the element is gone after the call';
    }
  } catch {
    result.after_read = { status: 'unavailable' };
  }
  return result;
}
