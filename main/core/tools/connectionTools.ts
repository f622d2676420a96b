// The connections tier (docs/tools.md#connections-tier): list, test and activate connections (reads
// and this agent's own switch, journaled and shown in the agents panel), and the two cards no rule
// ever decides — add_connection (exactly the entry that would be added) and remote_exec (the
// connection, its host and the exact command). Nothing here falls back to another connection.
import { randomBytes } from 'node:crypto';
import {
  LOCAL_CONNECTION_NAME,
  MAX_REMOTE_OUTPUT,
  OverseerError,
  errorInfo,
  fail,
  type ActivateConnectionAnswer,
  type AddConnectionAnswer,
  type ConnectionConfig,
  type ConnectionTest,
  type ErrorInfo,
  type ListConnectionsAnswer,
  type AddConnectionApproval,
  type CardBase,
  type PendingApproval,
  type RemoteExecApproval,
  type RemoteExecArgs,
  type RemoteExecResult,
} from '../../../protocol/index.js';
import type { ConnectionManager } from '../connections/manager.js';
import type { ExecOutcome } from '../connections/target.js';
import { parseEntry, refuseSecrets } from '../connections/registry.js';
import { ApprovalQueue, type ApprovalOutcome } from '../supervision/approvals.js';
import { commandRiskHints, riskHints } from '../supervision/riskHints.js';
import type { AgentSession } from '../session/agentSession.js';
import { queueAdmittedCard } from './personQueue.js';
import { callGone, changedSince, firstAnswer, type ActDeps, type Progress } from './supervisedFlow.js';

/** What the connection tools need: the supervised flow's parts, the connections, and who to tell when an agent switches. */
export interface ConnectionToolDeps extends ActDeps {
  connections: ConnectionManager;
  /** An agent's active connection changed (the agents panel shows it). */
  onActiveChanged?: (session: AgentSession) => void;
}

/** remote_exec's default timeout. */
const DEFAULT_EXEC_MS = 30_000;

/** list_connections: every connection, and which one is active for this agent. */
export async function listConnections(deps: ConnectionToolDeps, session: AgentSession): Promise<ListConnectionsAnswer> {
  await deps.connections.maybeRefresh();
  return { connections: deps.connections.list(), active: session.connection };
}

/** test_connection: reaches it and asks its helper who it is (read-only); a failure is typed with what to fix. */
export function testConnection(deps: ConnectionToolDeps, session: AgentSession, name: string, signal: AbortSignal): Promise<ConnectionTest> {
  const refusal = deps.connections.refusal(name);
  if (refusal !== undefined) throw new OverseerError(refusal);
  return deps.connections.test(name, signal);
}

/** activate_connection / use_local: this agent's tools act there from now on (a call already running keeps its own). */
export async function activateConnection(deps: ConnectionToolDeps, session: AgentSession, name: string): Promise<ActivateConnectionAnswer> {
  await deps.connections.maybeRefresh();
  if (!deps.connections.has(name)) throw fail('not_found', `there is no connection "${name}": list_connections names them`, { name });
  const refusal = deps.connections.refusal(name);
  if (refusal !== undefined) throw new OverseerError(refusal);
  const previous = session.connection;
  session.connection = name;
  if (previous !== name) deps.onActiveChanged?.(session);
  return { active: deps.connections.ref(name), previous };
}

/** What a card is answered when it cannot reach the person at all (a brake, its agent gone). */
function cannotAsk(deps: ConnectionToolDeps, session: AgentSession): ErrorInfo | undefined {
  if (deps.brakes.refusing)
    return errorInfo('braked', `the ${deps.brakes.state === 'emergency' ? 'emergency stop' : 'stop'} is engaged: nothing new reaches the person`, {
      brake: deps.brakes.state,
    });
  if (session.ended !== undefined) return errorInfo('withdrawn', `the agent went away (${session.ended})`);
  return undefined;
}

/** The error of a card that did not end in approval. */
function notApproved(outcome: ApprovalOutcome): ErrorInfo {
  const d = outcome.decision;
  const code = d.verdict === 'denied' ? 'denied' : d.verdict === 'expired' ? 'expired' : d.verdict === 'withdrawn' ? 'withdrawn' : 'braked';
  return errorInfo(code, d.note ?? `the card was ${d.verdict}`, { decision: d });
}

/** What every card for this agent carries, its times set from the approval expiry: the caller adds its kind and what it asks. */
function cardBase(deps: ConnectionToolDeps, session: AgentSession): CardBase {
  const created = deps.clock.now();
  return {
    approval_id: ApprovalQueue.newId(),
    receipt_id: `R${randomBytes(9).toString('base64url')}`,
    session: session.id,
    agent: session.client,
    password: false,
    ancestor_path: [],
    risk_hints: [],
    created_at: new Date(created).toISOString(),
    expires_at: new Date(created + deps.settings().approval_expiry_s * 1000).toISOString(),
  };
}

/**
 * Queues a card (no rule subject: no session rule ever decides it) and waits for the person, up to
 * the card's expiry, sending progress meanwhile; an emergency stop answers at once. Throws the typed
 * refusal unless approved.
 */
async function askPerson(
  deps: ConnectionToolDeps,
  session: AgentSession,
  item: PendingApproval,
  journal: Record<string, unknown>,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
  signal?: AbortSignal,
): Promise<void> {
  const now = cannotAsk(deps, session);
  if (now !== undefined) throw new OverseerError(now);
  // The call left (its connection closed, or the agent cancelled it): its card is withdrawn at once.
  const onAbort = (): void => {
    const gone = callGone(signal?.reason);
    if (!deps.approvals.withdraw(item.approval_id, gone.note, gone.reason)) deps.holds.withdraw(item.approval_id, gone.note, gone.reason);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const flow = queueAdmittedCard(deps, session, item, { journal, gate: () => cannotAsk(deps, session) });
    const waitMs = Date.parse(item.expires_at) - Date.parse(item.created_at) + 1000;
    const outcome = await firstAnswer<ApprovalOutcome | ErrorInfo>(deps, flow, braked, progress, waitMs, (early) =>
      early.kind === 'braked' ? early.info : errorInfo('expired', 'nobody answered the card in time'),
    );
    if (!('decision' in outcome)) throw new OverseerError(outcome);
    if (outcome.decision.verdict !== 'approved') throw new OverseerError(notApproved(outcome));
    // Approved while paused: held like every decided action until Resume (a Stop ends it braked).
    const hold = await deps.holds.hold({ ...item, decision: outcome.decision });
    if (hold.kind === 'refused') throw new OverseerError(hold.refusal);
    // Approved, but a brake engaged or the agent left since: nothing runs.
    const late = cannotAsk(deps, session);
    if (late !== undefined) throw new OverseerError(late);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs a card's call; a typed error it ends in carries the card's receipt id, so the timeline's entry
 * and the person's recent decisions can tell which card it answered.
 */
async function withReceiptId<T>(item: PendingApproval, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof OverseerError)) throw error;
    throw new OverseerError({ ...error.info, data: { ...error.info.data, receipt_id: item.receipt_id } });
  }
}

/**
 * What an agent may not put in an add_connection entry, refused before its schema so the agent is
 * told why: secret fields (registry.ts) and an ssh_config file, whose directives ssh runs on this
 * machine (docs/connections.md#what-an-agent-may-add).
 */
export function refuseAgentEntry(raw: unknown): void {
  refuseSecrets(raw);
  if (raw !== null && typeof raw === 'object' && 'ssh_config' in raw)
    throw fail(
      'invalid_argument',
      "an agent cannot name an ssh_config: ssh would run the commands such a file names (Match exec, ProxyCommand…) on the supervisor's machine. Leave it out (ssh reads the person's own ~/.ssh/config), or ask the person to add the connection with its ssh_config in Settings → Connections",
      { reason: 'person_only', field: 'ssh_config' },
    );
}

/** add_connection: a card showing exactly the entry that would be added; approved, it is added enabled. */
export async function addConnection(
  deps: ConnectionToolDeps,
  session: AgentSession,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<AddConnectionAnswer> {
  const { output: _output, ...fields } = args;
  refuseAgentEntry(fields);
  const entry: ConnectionConfig = parseEntry({ ...fields, enabled: true });
  await deps.connections.maybeRefresh();
  if (deps.connections.has(entry.name))
    throw fail('invalid_argument', `a connection named "${entry.name}" exists already`, { reason: 'name_taken', name: entry.name });
  const item: AddConnectionApproval = {
    ...cardBase(deps, session),
    kind: 'add_connection',
    action: 'add_connection',
    add_connection: entry,
    risk_hints: riskHints([entry.name]),
  };
  return withReceiptId(item, async () => {
    await askPerson(deps, session, item, { add_connection: entry }, progress, braked, signal);
    const added = await deps.connections.add(entry);
    const info = deps.connections.list().find((c) => c.name === added.name);
    if (info === undefined) throw fail('internal', `the connection "${added.name}" was added but is not listed`);
    return { added: info, receipt_id: item.receipt_id };
  });
}

/**
 * The answer of a remote_exec a brake ended: `braked`, saying how long it ran and whether its
 * processes on the remote were ended (`ended`) or may still run (`unknown`), with what it printed.
 */
function stoppedByBrake(brake: ErrorInfo, where: string, ranMs: number, stopped: 'ended' | 'unknown', out?: ExecOutcome): OverseerError {
  const ran = `${(ranMs / 1000).toFixed(1)} s`;
  const detail =
    stopped === 'ended'
      ? `${brake.detail} on ${where} after ${ran}: its processes there were ended`
      : `${brake.detail} here after ${ran}; whether it still runs on ${where} is not known`;
  return new OverseerError({
    ...brake,
    detail,
    data: {
      ...brake.data,
      outcome: stopped === 'ended' ? 'stopped' : 'unknown',
      ran_ms: Math.round(ranMs),
      ...(out !== undefined ? { stdout: out.stdout, stderr: out.stderr, stdout_truncated: out.stdout_truncated, stderr_truncated: out.stderr_truncated } : {}),
    },
  });
}

/**
 * remote_exec: a card showing the connection, its host and the exact command; approved, it runs on
 * the agent's active connection (never local). The command ran or it did not: a transport that broke
 * while it ran answers connection_unavailable with outcome "unknown", and it is never run again.
 */
export async function remoteExec(
  deps: ConnectionToolDeps,
  session: AgentSession,
  args: RemoteExecArgs,
  signal: AbortSignal,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<RemoteExecResult> {
  // Fixed when the call begins: the card shows it, and the command runs there whatever the agent activates meanwhile.
  const name = session.connection;
  if (name === LOCAL_CONNECTION_NAME)
    throw fail('invalid_argument', 'remote_exec runs only on a remote connection, never on local: activate_connection one first', { reason: 'local' });
  const refusal = deps.connections.refusal(name);
  if (refusal !== undefined) throw new OverseerError(refusal);
  // The desktop the card names: the command runs on this incarnation of the name or nowhere.
  const tag = deps.connections.tagOf(name) ?? name;
  const connection = deps.connections.ref(name);
  const timeoutMs = args.timeout_ms ?? DEFAULT_EXEC_MS;
  const item: RemoteExecApproval = {
    ...cardBase(deps, session),
    kind: 'remote_exec',
    action: 'remote_exec',
    connection,
    remote_exec: { command: args.command, timeout_ms: timeoutMs },
    risk_hints: commandRiskHints(args.command),
  };
  return withReceiptId(item, async () => {
    await askPerson(deps, session, item, { command: args.command, timeout_ms: timeoutMs }, progress, braked, signal);
    const again = deps.connections.refusal(name) ?? changedSince({ connectionTag: (n) => deps.connections.tagOf(n) }, name, tag);
    if (again !== undefined) throw new OverseerError(again);
    // A brake ends the command on the remote, not only the wait for it: Stop and the emergency stop
    // (which also ends it through its connection, before the connection is closed).
    const run = new AbortController();
    let brake: ErrorInfo | undefined;
    const stopFor = (info: ErrorInfo): void => {
      brake ??= info;
      run.abort(new Error(info.detail));
    };
    const unsubscribe = deps.brakes.onChange((state) => {
      if (state === 'stopped' || state === 'emergency')
        stopFor(errorInfo('braked', `the ${state === 'emergency' ? 'emergency stop' : 'stop'} ended the command`, { brake: state }));
    });
    void braked.then(stopFor);
    const onLeave = (): void => run.abort(signal.reason);
    signal.addEventListener('abort', onLeave, { once: true });
    const started = deps.clock.now();
    let out;
    try {
      out = await deps.connections.exec(name, tag, args.command, { timeoutMs, maxBytes: MAX_REMOTE_OUTPUT, signal: run.signal });
    } catch (error) {
      // Refused before it was sent: it did not run.
      if (error instanceof OverseerError && error.info.data?.['reason'] === 'changed') throw error;
      if (brake !== undefined) throw stoppedByBrake(brake, connection.where, deps.clock.now() - started, 'unknown');
      const info = error instanceof OverseerError ? error.info : errorInfo('internal', 'the command could not be run');
      // Whether the command ran is not known: the agent is told so, and nothing retries it.
      throw new OverseerError({ ...info, data: { ...info.data, outcome: 'unknown', connection: name } });
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onLeave);
    }
    if (brake !== undefined && out.stopped !== undefined) throw stoppedByBrake(brake, connection.where, out.duration_ms, out.stopped, out);
    return {
      ok: out.exit_code === 0,
      connection,
      exit_code: out.exit_code,
      stdout: out.stdout,
      stderr: out.stderr,
      stdout_truncated: out.stdout_truncated,
      stderr_truncated: out.stderr_truncated,
      duration_ms: out.duration_ms,
      ...(out.timed_out === true ? { timed_out: true } : {}),
      receipt_id: item.receipt_id,
    };
  });
}
