import {
  FIND_LIMIT,
  FIND_TIMEOUT,
  READ_LIMITS,
  applyLimit,
  type Element,
  type LimitEcho,
  type HelperFindParams,
  type Selector,
  type Truncation,
} from '../../protocol/index.js';
import type { Backend, NativeNode, TreeSource, WindowHandle } from './backend.js';
import { Deadline } from './deadline.js';
import { matchNode } from './selectors.js';
import { openSource } from './source.js';
import { bindingOf, toElement } from './shape.js';
import { walk } from './walk.js';

/** The most elements a find scans in one window. */
export const FIND_SCAN_NODES = 50_000;

/** One scan of a window for a selector. */
export interface Scan {
  window: WindowHandle;
  /** Still open: the caller owns it and finishes it once, after its last read. */
  source: TreeSource;
  /** Matching nodes in document order. */
  matches: NativeNode[];
  unreadable: { node: NativeNode; fields: string[] }[];
  complete: boolean;
  truncated: Set<Truncation>;
  notes: string[];
}

/** Keys in document (pre-)order, restricted to `keys`. */
export function documentOrder(source: TreeSource, keys: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const stack = [source.window.rootKey];
  while (stack.length > 0) {
    const key = stack.pop() as string;
    if (!keys.has(key)) continue;
    out.push(key);
    const kids = source.node(key)?.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as string);
  }
  return out;
}

/** Scans the whole window (up to FIND_SCAN_NODES) and tests every element against the selector; the caller finishes the scan's source. */
export async function scan(backend: Backend, windowId: string | undefined, selector: Selector, deadline: Deadline): Promise<Scan> {
  const window = await backend.resolveWindow(windowId, deadline);
  const source = await openSource(backend, window, deadline);
  try {
    return await scanSource(window, source, selector, deadline);
  } catch (error) {
    source.finish();
    throw error;
  }
}

async function scanSource(window: WindowHandle, source: TreeSource, selector: Selector, deadline: Deadline): Promise<Scan> {
  const walked = await walk(source, { maxNodes: FIND_SCAN_NODES, maxDepth: READ_LIMITS.max_depth.ceiling, maxChildren: FIND_SCAN_NODES }, deadline);
  const ordered = documentOrder(source, new Set(walked.keys))
    .map((k) => source.node(k))
    .filter((n): n is NativeNode => n !== undefined);
  const structural: Selector = { ...selector };
  delete structural.automation_id;
  delete structural.value_contains;
  const hasStructural = structural.role !== undefined || structural.name !== undefined || structural.name_contains !== undefined;
  let candidates = hasStructural ? ordered.filter((n) => matchNode(n, structural) !== 'no') : ordered;
  if (selector.automation_id !== undefined)
    await source.details(
      candidates.map((n) => n.key),
      deadline,
      'ids',
    );
  if (selector.value_contains !== undefined)
    await source.details(
      candidates.map((n) => n.key),
      deadline,
      'values',
    );
  if (deadline.expired() && (selector.automation_id !== undefined || selector.value_contains !== undefined)) walked.truncated.add('timeout');
  const matches: NativeNode[] = [];
  const unreadable: Scan['unreadable'] = [];
  for (const node of candidates) {
    const m = matchNode(node, selector);
    if (m === 'yes') matches.push(node);
    else if (m !== 'no') unreadable.push({ node, fields: m });
  }
  candidates = [];
  const truncated = new Set([...walked.truncated, ...source.truncated]);
  return { window, source, matches, unreadable, complete: truncated.size === 0, truncated, notes: [...new Set([...walked.notes, ...source.notes])] };
}

/** Why a scan could not decide, for `reason`. */
export function undecidedReason(s: Scan): string {
  if (s.unreadable.length > 0) return `${s.unreadable.length} element(s) did not answer a field the selector names`;
  return `the scan was cut (${[...s.truncated].join(', ')}) before the whole window was searched`;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** element_find: found, not found after the whole window, or undecided with a reason. Never confused. */
export async function findElements(backend: Backend, p: HelperFindParams, signal: AbortSignal) {
  const limit = applyLimit(FIND_LIMIT, p.limit);
  const wait = applyLimit(FIND_TIMEOUT, p.timeout_ms);
  const started = Date.now();
  const overall = new Deadline(wait.value, signal);
  let s: Scan;
  let lastWalk = 0;
  for (;;) {
    const t0 = Date.now();
    const deadline = new Deadline(wait.value === 0 ? READ_LIMITS.timeout_ms.default : Math.max(overall.remaining(), 250), signal);
    s = await scan(backend, p.window, p.selector, deadline);
    lastWalk = Date.now() - t0;
    if (s.matches.length > 0 || wait.value === 0 || overall.expired()) break;
    await sleep(Math.min(100, overall.remaining()));
    if (overall.expired()) break;
    // Looking again: this look is not the answer.
    s.source.finish();
  }
  try {
    return await answerOf(p, s, limit, wait, started, lastWalk, signal);
  } finally {
    s.source.finish();
  }
}

/** The element_find answer from the last scan, read while its source is still open. */
async function answerOf(p: HelperFindParams, s: Scan, limit: LimitEcho, wait: LimitEcho, started: number, lastWalk: number, signal: AbortSignal) {
  let picked = s.matches;
  const notes = [...s.notes];
  if (p.selector.nth !== undefined) {
    const one = s.matches[p.selector.nth];
    picked = one === undefined ? [] : [one];
    if (one === undefined && s.matches.length > 0) notes.push(`nth ${p.selector.nth} is beyond the ${s.matches.length} matches`);
  }
  const shown = picked.slice(0, limit.value);
  const truncated = new Set(s.truncated);
  if (picked.length > limit.value) {
    truncated.add('limit');
    notes.push(`limit: ${picked.length} matches, ${limit.value} shown`);
  }
  await s.source.details(
    shown.map((n) => n.key),
    new Deadline(2000, signal),
  );
  const matches: Element[] = shown.map((n) => toElement(s.source, n, { maxTextChars: READ_LIMITS.max_text_chars.default, identity: true }));
  const refs = p.refs === true ? shown.map((node) => bindingOf(s.window, s.source, node)) : undefined;
  const decided = s.complete && s.unreadable.length === 0;
  const answer = {
    window: s.window.info,
    matches,
    match_count: s.matches.length,
    searched_whole_window: decided,
    limit,
    truncated_by: [...truncated],
    notes,
    ...(decided ? {} : { reason: undecidedReason(s) }),
    ...(s.unreadable.length > 0
      ? {
          unreadable_candidates: s.unreadable
            .slice(0, 20)
            .map((u) => ({ key: u.node.key, role: u.node.role, ...(u.node.name ? { name: u.node.name } : {}), unread: u.fields })),
        }
      : {}),
    ...(refs !== undefined ? { refs } : {}),
    ...(wait.value > 0 ? { stopped_before_timeout_ms: Math.max(0, wait.value - (Date.now() - started)), last_walk_ms: lastWalk } : {}),
  };
  return answer;
}
