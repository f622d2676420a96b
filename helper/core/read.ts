import {
  ElementRef,
  READ_LIMITS,
  applyLimit,
  type Element,
  type HelperReadParams,
  type HelperReadResult,
  type LimitEcho,
  type ReadLimitName,
} from '../../protocol/index.js';
import type { Backend, TreeSource, WindowHandle } from './backend.js';
import { Deadline } from './deadline.js';
import { bindingOf, shape } from './shape.js';
import { openSource } from './source.js';
import { walk, type WalkResult } from './walk.js';

/** Applies every reader limit: defaults, ceilings, echoes. */
export function readLimits(p: { [K in ReadLimitName]?: number | undefined }): Record<ReadLimitName, LimitEcho> {
  const out = {} as Record<ReadLimitName, LimitEcho>;
  for (const name of Object.keys(READ_LIMITS) as ReadLimitName[]) out[name] = applyLimit(READ_LIMITS[name], p[name]);
  return out;
}

/** Nodes the detail pass could not reach in time are marked, never silently incomplete. */
export function markUndetailed(source: TreeSource, keys: readonly string[], result: WalkResult): void {
  let missed = 0;
  for (const key of keys) {
    const node = source.node(key);
    if (node === undefined || source.isDetailed(key)) continue;
    node.unread.add('rect');
    node.unread.add('value');
    node.unread.add('automation_id');
    missed++;
  }
  if (missed > 0) {
    result.truncated.add('timeout');
    result.notes.push(`timeout: ${missed} elements have no rect, value or automation_id (see unread)`);
  }
}

/**
 * The bound reference of every element answered (tree or flat), by key, built by bindingOf as
 * element_find and element_act build it. One a target could not carry (a name past ElementRef's
 * bounds) is left out: that element gets no target rather than breaking the whole read.
 */
function refsOf(window: WindowHandle, source: TreeSource, elements: readonly Element[]): Record<string, ElementRef> {
  const refs: Record<string, ElementRef> = {};
  const visit = (els: readonly Element[]): void => {
    for (const e of els) {
      const node = source.node(e.key);
      if (node !== undefined) {
        const ref = bindingOf(window, source, node);
        if (ElementRef.safeParse(ref).success) refs[e.key] = ref;
      }
      if (e.children !== undefined) visit(e.children);
    }
  };
  visit(elements);
  return refs;
}

/** window_read: one window as a bounded tree or flat list; every cut named. */
export async function readWindow(backend: Backend, p: HelperReadParams, signal: AbortSignal): Promise<HelperReadResult> {
  const started = performance.now();
  const limits = readLimits(p);
  const deadline = new Deadline(limits.timeout_ms.value, signal);
  const window = await backend.resolveWindow(p.window, deadline);
  const source = await openSource(backend, window, deadline);
  try {
    const result = await walk(
      source,
      { maxNodes: limits.max_nodes.value, maxDepth: limits.max_depth.value, maxChildren: limits.max_children_per_node.value },
      deadline,
    );
    await source.details(result.keys, deadline);
    markUndetailed(source, result.keys, result);
    const format = p.format ?? 'tree';
    const shaped = shape(source, result.keys, format, {
      maxTextChars: limits.max_text_chars.value,
      identity: p.identity === true,
      maxTokens: p.for_ui === true ? Number.POSITIVE_INFINITY : limits.max_tokens.value,
    });
    const truncated = new Set([...result.truncated, ...source.truncated, ...shaped.truncated]);
    for (const [name, echo] of Object.entries(limits))
      if (echo.requested !== undefined) result.notes.push(`${name}: ${echo.requested} was clamped to its ceiling ${echo.ceiling}`);
    return {
      window: window.info,
      format,
      elements: shaped.elements,
      node_count: shaped.nodeCount,
      limits,
      truncated_by: [...truncated],
      notes: [...new Set([...result.notes, ...shaped.notes])],
      read_ms: Math.round(performance.now() - started),
      ...(p.identity === true ? { refs: refsOf(window, source, shaped.elements) } : {}),
    };
  } finally {
    source.finish();
  }
}
