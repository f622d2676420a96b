import {
  ElementRef,
  READ_LIMITS,
  applyLimit,
  type Element,
  type HelperReadParams,
  type HelperReadResult,
  type LimitEcho,
  type ReadLimitName,
  type ReadProfile,
} from '../../protocol/index.js';
import type { Backend, BackendStats, TreeSource, WindowHandle } from './backend.js';
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
export function markUndetailed(source: TreeSource, keys: readonly string[], result: WalkResult, rects = true): void {
  let missed = 0;
  for (const key of keys) {
    const node = source.node(key);
    if (node === undefined || source.isDetailed(key)) continue;
    if (rects) node.unread.add('rect');
    node.unread.add('value');
    node.unread.add('automation_id');
    missed++;
  }
  if (missed > 0) {
    result.truncated.add('timeout');
    result.notes.push(`timeout: ${missed} elements have no ${rects ? 'rect, ' : ''}value or automation_id (see unread)`);
  }
}

/** Laps of one read, and the backend's counters across it (docs/performance.md#profile). */
class Profiler {
  private readonly phases: Record<string, number> = {};
  private last = performance.now();
  private readonly before: BackendStats | undefined;
  private readonly cpu = process.cpuUsage();

  constructor(private readonly backend: Backend) {
    this.before = backend.stats?.();
  }

  lap(phase: string): void {
    const now = performance.now();
    this.phases[phase] = Math.round((now - this.last) * 100) / 100;
    this.last = now;
  }

  result(): ReadProfile {
    const after = this.backend.stats?.();
    const byMember: Record<string, number> = {};
    for (const [member, n] of Object.entries(after?.callsByMember ?? {})) {
      const d = n - (this.before?.callsByMember[member] ?? 0);
      if (d > 0) byMember[member] = d;
    }
    const diff = (f: 'calls' | 'loadsReused' | 'loadsReloaded' | 'nodesLoaded' | 'loadMs'): number => (after?.[f] ?? 0) - (this.before?.[f] ?? 0);
    const cpu = process.cpuUsage(this.cpu);
    return {
      phases_ms: this.phases,
      calls: diff('calls'),
      calls_by_member: byMember,
      max_in_flight: after?.maxInFlight ?? 0,
      loads_reused: diff('loadsReused'),
      loads_reloaded: diff('loadsReloaded'),
      nodes_loaded: diff('nodesLoaded'),
      load_ms: Math.round(diff('loadMs') * 100) / 100,
      cpu_ms: Math.round((cpu.user + cpu.system) / 10) / 100,
    };
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
  const profiler = p.profile === true ? new Profiler(backend) : undefined;
  const limits = readLimits(p);
  const rects = p.rects !== false;
  const deadline = new Deadline(limits.timeout_ms.value, signal);
  const window = await backend.resolveWindow(p.window, deadline);
  profiler?.lap('resolve');
  const source = await openSource(backend, window, deadline);
  profiler?.lap('open');
  try {
    const result = await walk(
      source,
      { maxNodes: limits.max_nodes.value, maxDepth: limits.max_depth.value, maxChildren: limits.max_children_per_node.value },
      deadline,
    );
    profiler?.lap('walk');
    await source.details(result.keys, deadline, rects ? 'full' : 'answer');
    markUndetailed(source, result.keys, result, rects);
    profiler?.lap('details');
    const format = p.format ?? 'tree';
    const shaped = shape(source, result.keys, format, {
      maxTextChars: limits.max_text_chars.value,
      identity: p.identity === true,
      rects,
      maxTokens: p.for_ui === true ? Number.POSITIVE_INFINITY : limits.max_tokens.value,
      tokensOf: p.tokens_of ?? 'json',
      depth: result.depth,
    });
    profiler?.lap('shape');
    const truncated = new Set([...result.truncated, ...source.truncated, ...shaped.truncated]);
    for (const [name, echo] of Object.entries(limits))
      if (echo.requested !== undefined) result.notes.push(`${name}: ${echo.requested} was clamped to its ceiling ${echo.ceiling}`);
    const refs = p.identity === true ? refsOf(window, source, shaped.elements) : undefined;
    profiler?.lap('refs');
    return {
      window: window.info,
      format,
      elements: shaped.elements,
      node_count: shaped.nodeCount,
      limits,
      truncated_by: [...truncated],
      // The source's own notes again: the detail pass adds some after the walk took its copy.
      notes: [...new Set([...result.notes, ...source.notes, ...shaped.notes])],
      read_ms: Math.round(performance.now() - started),
      ...(refs !== undefined ? { refs } : {}),
      ...(profiler !== undefined ? { profile: profiler.result() } : {}),
    };
  } finally {
    source.finish();
  }
}
