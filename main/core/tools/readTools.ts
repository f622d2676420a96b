import {
  FIND_TIMEOUT,
  READ_LIMITS,
  fail,
  type Element,
  type ElementRef,
  type ElementFindAnswer,
  type ElementFindArgs,
  type WindowInfo,
  type WindowListAnswer,
  type WindowListArgs,
  type WindowReadAnswer,
  type WindowReadArgs,
} from '../../../protocol/index.js';
import { phase } from '../runtime/callProfile.js';
import type { HelperRouter } from '../connections/manager.js';
import { observationScope } from '../session/canonical.js';
import type { AgentSession } from '../session/agentSession.js';

/** What the read tools need from the supervisor. */
export interface ReadDeps {
  /** Every call names its connection (the agent's active one when the tool began). */
  helper: HelperRouter;
  settings: () => { read_timeout_ms: number; read_max_nodes: number };
}

/** window_list through the helper. */
export async function windowList(deps: ReadDeps, session: AgentSession, args: WindowListArgs, signal: AbortSignal): Promise<WindowListAnswer> {
  return deps.helper.call('window_list', args.limit === undefined ? {} : { limit: args.limit }, { signal, timeoutMs: 10_000, ...session.via });
}

/** Visits every element of a tree or flat list. */
function eachElement(elements: readonly Element[], visit: (e: Element) => void): void {
  for (const e of elements) {
    visit(e);
    if (e.children !== undefined) eachElement(e.children, visit);
  }
}

/** Scope prefix of the observations element_find records to bind its targets: never a window_read answer. */
const FIND_SCOPE = 'find:';

/** Window scope for superseding: a newer observation of the same window replaces older ones for acting. */
const windowScope = (w: WindowInfo): string => `${w.window}|${w.pid}|${w.process_start}`;

/**
 * window_read: snapshot retrieval without touching the desktop; otherwise a bounded read through
 * the helper, recorded as an observation (deltas against `since`), with targets when asked.
 */
export async function windowRead(deps: ReadDeps, session: AgentSession, args: WindowReadArgs, signal: AbortSignal): Promise<WindowReadAnswer> {
  if (args.snapshot !== undefined) {
    const obs = session.observations.get(args.snapshot);
    // A find's observation holds only its matches and none of a read's budgets: it is no snapshot to return.
    if (obs?.scope.startsWith(FIND_SCOPE) === true)
      throw fail('snapshot_unknown', `observation ${args.snapshot} was never issued to this agent by window_read`);
    if (obs === undefined) {
      const status = session.observations.status(args.snapshot);
      throw fail(
        status === 'evicted' ? 'snapshot_evicted' : 'snapshot_unknown',
        status === 'evicted'
          ? `observation ${args.snapshot} fell out of the 64 retained; read again`
          : `observation ${args.snapshot} was never issued to this agent`,
      );
    }
    return {
      ...(obs.meta as Omit<WindowReadAnswer, 'window' | 'observation' | 'mode' | 'format' | 'elements'>),
      window: obs.window,
      observation: args.snapshot,
      mode: 'full',
      format: obs.format,
      elements: obs.elements,
    };
  }
  const format = args.format ?? 'tree';
  const wantTargets = args.targets ?? args.window !== undefined;
  // The text answer shows no rectangles: only JSON asks every element for one (docs/performance.md#what-a-read-asks).
  const rects = args.output === 'json';
  const via = session.via;
  const helperCalled = phase('helper');
  const read = await deps.helper.call(
    'window_read',
    {
      ...(args.window !== undefined ? { window: args.window } : {}),
      format,
      identity: wantTargets,
      rects,
      tokens_of: args.output === 'json' ? 'json' : 'text',
      max_nodes: args.max_nodes ?? deps.settings().read_max_nodes,
      timeout_ms: args.timeout_ms ?? deps.settings().read_timeout_ms,
      ...(args.max_depth !== undefined ? { max_depth: args.max_depth } : {}),
      ...(args.max_children_per_node !== undefined ? { max_children_per_node: args.max_children_per_node } : {}),
      ...(args.max_text_chars !== undefined ? { max_text_chars: args.max_text_chars } : {}),
      ...(args.max_tokens !== undefined ? { max_tokens: args.max_tokens } : {}),
    },
    { signal, timeoutMs: Math.min(args.timeout_ms ?? READ_LIMITS.timeout_ms.default, READ_LIMITS.timeout_ms.ceiling) + 5000, ...via },
  );
  helperCalled();
  const id = session.observations.allocate();
  // Bound to the connection the read went to, whatever the agent activated meanwhile.
  session.bindings.note('observation', id, via.connection);
  const scopeKey = windowScope(read.window);
  if (wantTargets) {
    // Identity comes from the helper as it built it (uncut names, whole ancestor path), never rebuilt here.
    eachElement(read.elements, (e) => {
      const ref = read.refs?.[e.key];
      if (ref !== undefined) e.target = session.targets.issue(id, scopeKey, ref);
      delete e.digest;
    });
    session.targets.supersede(scopeKey, id);
  }
  const { since: _since, snapshot: _snapshot, targets: _targets, output: _output, ...query } = args;
  const meta = { node_count: read.node_count, limits: read.limits, truncated_by: read.truncated_by, notes: read.notes, read_ms: read.read_ms };
  const observation = {
    scope: observationScope({ ...query, format, targets: wantTargets, rects }, read.window.window),
    window: read.window,
    format,
    elements: read.elements,
    truncated: read.truncated_by.some((t) => t !== 'max_text'),
    meta,
  };
  if (args.since !== undefined) {
    const d = session.observations.diff(args.since, observation, id);
    session.bindings.note('observation', d.observation, via.connection);
    if (d.mode === 'delta') return { ...meta, window: read.window, observation: d.observation, mode: 'delta', format, delta: d.delta };
    return { ...meta, window: read.window, observation: d.observation, mode: 'full', format, elements: read.elements, reset_reason: d.reset_reason };
  }
  session.observations.record(observation, id);
  return { ...meta, window: read.window, observation: id, mode: 'full', format, elements: read.elements };
}

/**
 * Gives elements a selector found their target handles, bound to a find observation of their window
 * (element_find's matches, an ambiguous element_act's candidates): `refs[i]` is `elements[i]`'s identity.
 */
export function bindTargets(
  session: AgentSession,
  connection: string,
  selector: unknown,
  window: WindowInfo,
  elements: Element[],
  refs: readonly ElementRef[],
): void {
  if (refs.length === 0) return;
  const id = session.observations.allocate();
  session.bindings.note('observation', id, connection);
  const scopeKey = windowScope(window);
  session.observations.record({ scope: `${FIND_SCOPE}${JSON.stringify(selector)}`, window, format: 'flat', elements, truncated: true, meta: {} }, id);
  elements.forEach((e, i) => {
    const ref = refs[i];
    if (ref !== undefined) e.target = session.targets.issue(id, scopeKey, ref);
  });
}

/** element_find through the helper; matches carry targets (bound to a find observation) when a window is given. */
export async function elementFind(deps: ReadDeps, session: AgentSession, args: ElementFindArgs, signal: AbortSignal): Promise<ElementFindAnswer> {
  const { output: _output, ...params } = args;
  const wantTargets = args.window !== undefined;
  const via = session.via;
  const found = await deps.helper.call(
    'element_find',
    { ...params, refs: wantTargets },
    { signal, timeoutMs: Math.min(args.timeout_ms ?? 0, FIND_TIMEOUT.ceiling) + READ_LIMITS.timeout_ms.default + 5000, ...via },
  );
  const { refs, ...answer } = found;
  if (wantTargets && refs !== undefined) bindTargets(session, via.connection, args.selector, found.window, answer.matches, refs);
  for (const m of answer.matches) delete m.digest;
  return answer;
}
