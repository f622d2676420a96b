import {
  MASKED_TEXT,
  type ConnectionRef,
  type ExecEnd,
  execEndWords,
  OverseerError,
  errorInfo,
  inactiveTier,
  tierOffered,
  invalidArgument,
  isQuestionHandoffAnswer,
  type ErrorInfo,
  type QuestionHandoffAnswer,
  type Receipt,
  type ReceiptEntry,
} from '../../../protocol/index.js';
import { phase } from '../runtime/callProfile.js';
import type { Journal } from '../journal/index.js';
import type { ActDeps, Progress } from './actTool.js';
import type { ActAim } from './supervisedFlow.js';
import type { AgentSession } from '../session/agentSession.js';
import type { ReadDeps } from './readTools.js';
import { renderError } from './render.js';
import { HandoffGate } from '../supervision/handoff.js';
import type { PersonState, QuestionHandoffDeps } from './questionsHandoffs.js';
import type { ConnectionManager } from '../connections/manager.js';
import type { ConnectionToolDeps } from './connectionTools.js';
import { checkBindings } from './bindingCheck.js';
import { ALL_SPECS, specOf } from './specs/registry.js';
import type { ToolContext, ToolImage, ToolSpec } from './specs/toolSpec.js';

export type { AnyToolName } from './specs/toolSpec.js';

/**
 * A tool's answer for the MCP layer: the text the agent reads (compact, or JSON with
 * `output: "json"`) and, on success, the structured answer (the tool's answer schema).
 */
export type ToolResult =
  { isError: false; text: string; structured: Record<string, unknown>; images?: ToolImage[] } | { isError: true; text: string; error: ErrorInfo };

/** Longest string of an agent's arguments written to the journal. */
const MAX_JOURNAL_STRING = 500;
/** Most items of an array, and keys of an object, of an agent's arguments written to the journal. */
const MAX_JOURNAL_ITEMS = 50;
/** The key that says how many keys of an object were left out. */
export const MORE_KEYS = '…';

/** Arguments as journaled: long strings cut, long lists and objects shortened with counts; set_value text only when the target is known not to be a password field. */
export function journalArgs(raw: unknown, textSafe: boolean): unknown {
  const cut = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.length > MAX_JOURNAL_STRING ? `${v.slice(0, MAX_JOURNAL_STRING)}…(${v.length} chars)` : v;
    if (v === null || typeof v !== 'object') return v;
    // Deeper levels are summarized, never kept: a hostile nesting must not reach the journal's encoder.
    if (depth > 6) return Array.isArray(v) ? `[array of ${v.length}, nested deeper than 6]` : '{object nested deeper than 6}';
    if (Array.isArray(v)) {
      const kept = v.slice(0, MAX_JOURNAL_ITEMS).map((x) => cut(x, depth + 1));
      return v.length > MAX_JOURNAL_ITEMS ? [...kept, `…(${v.length - MAX_JOURNAL_ITEMS} more items)`] : kept;
    }
    const out: Record<string, unknown> = {};
    let keys = 0;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (++keys > MAX_JOURNAL_ITEMS) continue;
      const x = (v as Record<string, unknown>)[k];
      const value = k === 'text' && depth === 0 && !textSafe ? '[withheld: not known to be a non-password field]' : cut(x, depth + 1);
      // Defined, not assigned: a key "__proto__" stays a key.
      Object.defineProperty(out, k.length > MAX_JOURNAL_STRING ? `${k.slice(0, MAX_JOURNAL_STRING)}…(${k.length} chars)` : k, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (keys > MAX_JOURNAL_ITEMS) out[MORE_KEYS] = `(${keys - MAX_JOURNAL_ITEMS} more keys)`;
    return out;
  };
  return cut(raw, 0);
}

/** Deepest nesting of an agent's arguments that is parsed at all (the contract needs 4). */
export const MAX_ARGUMENT_DEPTH = 32;

/** True when a JSON value nests deeper than `max` (checked without recursion, so no depth overflows the stack). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  let visited = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    if (++visited > 100_000) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A read answered `braked` the moment an emergency stop answers the calls in flight. */
function answeredByBrake<T>(work: Promise<T>, braked: Promise<ErrorInfo>): Promise<T> {
  return Promise.race([
    work,
    braked.then((info): never => {
      throw new OverseerError(info);
    }),
  ]);
}

/** What the runner needs. */
export interface RunnerDeps {
  read: ReadDeps;
  /** What changing actions need; the runner journals their late final receipts itself. */
  act: Omit<ActDeps, 'journalFinal'>;
  journal: Journal;
  onReceipt: (entry: ReceiptEntry) => void;
  log: (line: string) => void;
  /** Whether the person offers agents the screen tier (settings). */
  screenTools?: () => boolean;
  /** Whether a person is watching (computer_ctrl); nobody, when not given. */
  person?: () => PersonState;
  /** Whether the emergency stop is engaged: every call answers `braked` until re-arm (docs/supervision.md#emergency-stop). */
  emergency?: () => boolean;
  /** The connections (docs/connections.md): without them, only local exists and the connections tier refuses. */
  connections?: ConnectionManager;
  /** An agent's active connection changed (the agents panel shows it). */
  onActiveChanged?: (session: AgentSession) => void;
}

/**
 * Runs one agent tool call: validates its arguments (typed invalid_argument, never a crash), runs
 * it, journals it (fsynced) before the answer leaves, and renders the answer as compact text or JSON.
 */
export class ToolRunner {
  private readonly act: ActDeps;
  private readonly questionsHandoffs: QuestionHandoffDeps;
  private readonly conn: ConnectionToolDeps | undefined;

  constructor(private readonly deps: RunnerDeps) {
    this.act = { ...deps.act, journalFinal: (session, receipt, aim) => this.journalActFinal(session, receipt, aim) };
    this.conn =
      deps.connections === undefined
        ? undefined
        : { ...this.act, connections: deps.connections, ...(deps.onActiveChanged !== undefined ? { onActiveChanged: deps.onActiveChanged } : {}) };
    this.questionsHandoffs = {
      ...this.act,
      handoffs: deps.act.handoffs ?? new HandoffGate(deps.act.clock),
      person: deps.person ?? (() => ({ ui_attached: 0, watching: false })),
      screenOffered: () => this.screenTools,
      journalQuestionHandoffFinal: (session, tool, answer) => this.journalQuestionHandoffFinal(session, tool, answer),
    };
  }

  /** Whether agents are offered the screen tier now. */
  get screenTools(): boolean {
    return this.deps.screenTools?.() ?? false;
  }

  /** Runs one call, registered in flight so an emergency stop can answer it and wait until its answer is journaled. */
  run(session: AgentSession, tool: string, rawArgs: unknown, signal: AbortSignal, progress?: Progress): Promise<ToolResult> {
    const call = session.beginCall();
    const running = this.runCall(session, tool, rawArgs, signal, progress, call.braked).finally(() => call.end());
    call.running = running;
    return running;
  }

  private async runCall(
    session: AgentSession,
    tool: string,
    rawArgs: unknown,
    signal: AbortSignal,
    progress: Progress | undefined,
    braked: Promise<ErrorInfo>,
  ): Promise<ToolResult> {
    const started = Date.now();
    session.calls++;
    // Where this call acts, fixed when it begins (cards, receipts and its journal record name it).
    const where = this.where(session.connection);
    let answer: unknown;
    let error: ErrorInfo | undefined;
    // Asked for JSON, a program gets its errors as JSON too, even when the other arguments are invalid.
    let output: 'text' | 'json' = (rawArgs as { output?: unknown } | null | undefined)?.output === 'json' ? 'json' : 'text';
    const spec = specOf(tool);
    try {
      if (spec === undefined)
        throw new OverseerError(
          errorInfo('invalid_argument', `unknown tool "${String(tool).slice(0, 100)}"`, {
            tools: ALL_SPECS.map((s) => s.name),
          }),
        );
      if (spec.tier !== 'always' && !tierOffered(spec.tier, this.screenTools))
        throw new OverseerError(
          errorInfo('invalid_argument', `${tool}: the screen tier is turned off in the supervisor's settings`, {
            reason: 'tier_not_offered',
            tier: 'screen',
            setting: 'screen_tools',
          }),
        );
      // Every tool stays callable by name; one of a tier the agent has not activated says how (docs/tools.md#progressive-tools).
      const tier = spec.tier === 'always' ? undefined : spec.tier;
      if (tier !== undefined && !session.tiers.has(tier)) throw new OverseerError(inactiveTier(tool, tier));
      if (this.deps.emergency?.() === true)
        throw new OverseerError(
          errorInfo('braked', 'the emergency stop is engaged: every call is answered braked until a person re-arms Overseer; your session stays open', {
            brake: 'emergency',
          }),
        );
      const validated = phase('args');
      const tooDeep = nestedDeeperThan(rawArgs, MAX_ARGUMENT_DEPTH);
      if (tooDeep)
        throw new OverseerError(
          errorInfo('invalid_argument', `${tool}: the arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels`, {
            issues: [{ path: '(root)', message: `nested deeper than ${MAX_ARGUMENT_DEPTH} levels` }],
          }),
        );
      spec.refuseBeforeParse?.(rawArgs);
      const parsed = spec.args.safeParse(rawArgs ?? {});
      if (!parsed.success) throw new OverseerError(invalidArgument(parsed.error, tool));
      const data = parsed.data as { output?: 'text' | 'json' };
      output = data.output ?? 'text';
      validated();
      // Ids of another connection answer wrong_connection, and an unusable active connection
      // connection_unavailable, before any helper call (docs/connections.md#ids-are-bound-to-their-connection).
      if (tier === 'accessibility' || tier === 'screen') checkBindings(session, parsed.data as Record<string, unknown>, this.deps.connections);
      const ran = phase('tool');
      answer = await spec.run(this.context(spec, session, where, signal, progress, braked), parsed.data);
      ran();
    } catch (e) {
      if (e instanceof OverseerError) error = e.info;
      else {
        this.deps.log(`[tools] ${tool} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        error = errorInfo('internal', `internal error in ${tool}; it was logged`);
      }
    }
    // A switch of connections is recorded where it leads: the timeline then reads "activate_connection on vm1", not on the one it left.
    const recordedWhere = spec?.switchesConnection === true && error === undefined ? this.where(session.connection) : where;
    return this.record(session, tool, rawArgs, Date.now() - started, output, answer, error, recordedWhere);
  }

  /** What one call's run gets. */
  private context(
    spec: ToolSpec,
    session: AgentSession,
    where: ConnectionRef,
    signal: AbortSignal,
    progress: Progress | undefined,
    braked: Promise<ErrorInfo>,
  ): ToolContext {
    const conn = this.conn;
    return {
      session,
      where,
      signal,
      progress,
      braked,
      read: this.deps.read,
      act: this.act,
      questionsHandoffs: this.questionsHandoffs,
      connections: () => {
        if (conn === undefined) throw new OverseerError(errorInfo('invalid_argument', `${spec.name}: this supervisor has no connections`));
        return conn;
      },
      untilBraked: (work) => answeredByBrake(work, braked),
    };
  }

  /** Where a connection goes, as the journal and the timeline name it. */
  private where(name: string): ConnectionRef {
    return this.deps.connections?.ref(name) ?? { name, kind: 'local', where: 'this desktop' };
  }

  /** Journals a call refused before it reached a tool (a malformed tools/call) and answers its error. */
  async refuse(session: AgentSession, tool: string, rawArgs: unknown, error: ErrorInfo): Promise<ToolResult> {
    session.calls++;
    return this.record(session, tool, rawArgs, 0, 'text', undefined, error);
  }

  /** Journals one call (fsynced) and only then renders its answer: a call that cannot be journaled is not answered. */
  private async record(
    session: AgentSession,
    tool: string,
    rawArgs: unknown,
    durationMs: number,
    output: 'text' | 'json',
    answer: unknown,
    error: ErrorInfo | undefined,
    where: ConnectionRef = this.where(session.connection),
  ): Promise<ToolResult> {
    const spec = specOf(tool);
    const personAnswer = isQuestionHandoffAnswer(answer) ? answer : undefined;
    const receipt = spec?.receipt === true && personAnswer === undefined ? (answer as Receipt | undefined) : undefined;
    const exec = answer !== undefined ? spec?.exec?.(answer) : undefined;
    // A command's outcome is `ok` only for exit 0; an exit code, a signal or a timeout is `failed` (its answer says ok: false).
    const outcome =
      error !== undefined ? 'error' : (receipt?.outcome ?? personAnswer?.outcome ?? (exec !== undefined && !execEndWords(exec).ok ? 'failed' : 'ok'));
    // Text is journaled only when the element it went to is known and is not a password field.
    const textSafe =
      receipt?.target !== undefined
        ? receipt.target.state.password !== true
        : receipt?.screen?.element !== undefined && receipt.screen.element.password !== true && receipt.text !== undefined && receipt.text !== MASKED_TEXT;
    const journaled = phase('journal');
    // Async, so a record that cannot even be built is a failed append like any other.
    const appending = (async () =>
      this.deps.journal.append({
        kind: 'tool_call',
        session: session.id,
        agent: session.client,
        tool: String(tool).slice(0, 100),
        connection: where,
        args: journalArgs(rawArgs, textSafe),
        outcome,
        ...(error !== undefined ? { error } : {}),
        ...(receipt !== undefined ? { receipt } : {}),
        // A question and its answer, a handoff and the person's note: journaled whole (they are bounded).
        ...(personAnswer !== undefined ? { answer: personAnswer } : {}),
        // What a tool journals of its answer beyond these (a screenshot's hash and size, a command's end).
        ...(answer !== undefined ? spec?.journal?.(answer) : {}),
        duration_ms: durationMs,
      }))().then(
      (record) => ({ ok: true as const, record }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    // The answer is rendered while the journal writes and flushes (the journal starts its write
    // first); it leaves only once the record is on disk, and not at all when it could not be.
    await Promise.resolve();
    const rendered = error === undefined && spec !== undefined ? this.renderAnswer(spec, output, answer) : undefined;
    const appended = await appending;
    journaled();
    if (!appended.ok) {
      const e = appended.e;
      this.deps.log(`[tools] journal append failed: ${e instanceof Error ? e.message : String(e)}`);
      const info = errorInfo('internal', 'the call could not be journaled, so its answer is withheld', receipt !== undefined ? { receipt } : undefined);
      return { isError: true, text: renderError(info), error: info };
    }
    const entry = this.entry(appended.record.seq, appended.record.at, session, tool, durationMs, outcome, { receipt, error, personAnswer, exec });
    // A remote_exec or add_connection card's call names its card's receipt id, in its answer or its error.
    entry.receipt_id ??= cardReceiptId(answer) ?? cardReceiptId(error?.data);
    this.deps.onReceipt({ ...entry, connection: where });
    if (error !== undefined) return { isError: true, text: output === 'json' ? JSON.stringify({ error }) : renderError(error), error };
    if (rendered?.ok !== true) throw rendered?.e;
    return rendered.result;
  }

  /** A successful answer as the agent gets it; a renderer's bug is kept to be thrown once the call is journaled. */
  private renderAnswer(spec: ToolSpec, output: 'text' | 'json', ran: unknown): { ok: true; result: ToolResult } | { ok: false; e: unknown } {
    const rendered = phase('render');
    try {
      const { answer, image } = spec.image?.(ran) ?? { answer: ran, image: undefined };
      const text = output === 'json' ? JSON.stringify(answer) : spec.render(answer);
      return {
        ok: true,
        result: { isError: false, text, structured: answer as Record<string, unknown>, ...(image !== undefined ? { images: [image] } : {}) },
      };
    } catch (e) {
      return { ok: false, e };
    } finally {
      rendered();
    }
  }

  /** The final answer of a question or handoff that answered `pending` first: journaled on its own and shown in the timeline. */
  private journalQuestionHandoffFinal(session: AgentSession, tool: string, answer: QuestionHandoffAnswer): Promise<void> {
    return this.journalLate(
      session,
      tool,
      this.where(session.connection),
      { answer },
      { receipt: undefined, error: undefined, personAnswer: answer, exec: undefined },
    );
  }

  /** The final receipt of an action that answered `pending` first, by the tool that made it, on the connection it acted on. */
  private journalActFinal(session: AgentSession, receipt: Receipt, aim: ActAim): Promise<void> {
    return this.journalLate(
      session,
      aim.tool,
      this.where(aim.connection),
      { receipt },
      { receipt, error: undefined, personAnswer: undefined, exec: undefined },
    );
  }

  /**
   * A final answer no agent call was waiting for any more (the call was answered `pending`): its
   * own journal record (phase `final`), then its row in the timeline, saying it came late.
   */
  private async journalLate(
    session: AgentSession,
    tool: string,
    where: ConnectionRef,
    final: { receipt: Receipt } | { answer: QuestionHandoffAnswer },
    ended: Parameters<ToolRunner['entry']>[6],
  ): Promise<void> {
    const outcome = 'receipt' in final ? final.receipt.outcome : final.answer.outcome;
    const record = await this.deps.journal.append({
      kind: 'tool_call',
      session: session.id,
      agent: session.client,
      tool,
      connection: where,
      phase: 'final',
      args: {},
      outcome,
      ...final,
      duration_ms: 0,
    });
    const entry = this.entry(record.seq, record.at, session, tool, 0, outcome, ended);
    this.deps.onReceipt({ ...entry, summary: `${entry.summary} (after the agent was answered)`, connection: where });
  }

  private entry(
    seq: number,
    at: string,
    session: AgentSession,
    tool: string,
    durationMs: number,
    outcome: string,
    ended: { receipt: Receipt | undefined; error: ErrorInfo | undefined; personAnswer: QuestionHandoffAnswer | undefined; exec: ExecEnd | undefined },
  ): ReceiptEntry {
    const { receipt, error, personAnswer, exec } = ended;
    const summary =
      error !== undefined
        ? `${error.code}: ${error.detail}`
        : personAnswer !== undefined
          ? questionHandoffSummary(personAnswer)
          : receipt !== undefined
            ? `${receipt.action} ${receipt.target?.role ?? ''} "${receipt.target?.name ?? ''}" → ${receipt.outcome}${receipt.changed_state !== undefined ? `; it also changed ${receipt.changed_state.join(', ')}` : ''}`
            : exec !== undefined
              ? `${tool} ${execEndWords(exec).text}`
              : `${tool} ok`;
    const e: ReceiptEntry = {
      seq,
      at,
      session: session.id,
      agent: session.client,
      tool,
      outcome,
      duration_ms: durationMs,
      summary,
    };
    if (exec !== undefined) e.remote_exec = exec;
    if (personAnswer !== undefined) e.receipt_id = personAnswer.receipt_id;
    if (receipt?.decision !== undefined) e.decision = receipt.decision.verdict;
    if (receipt !== undefined) e.verification = receipt.verification;
    if (receipt?.path !== undefined) e.path = receipt.path;
    if (receipt?.screen?.after_sha256 !== undefined) e.picture = true;
    if (receipt !== undefined) {
      e.receipt = receipt;
      e.receipt_id = receipt.receipt_id;
    }
    if (error !== undefined) e.error = error;
    return e;
  }
}

/** A question's or handoff's answer as the timeline says it. */
function questionHandoffSummary(a: QuestionHandoffAnswer): string {
  const what = a.kind === 'question' ? 'question' : 'handoff';
  if (a.outcome === 'refused') return `${what} → ${a.refusal?.code ?? 'refused'}${a.refusal !== undefined ? ` — ${a.refusal.detail}` : ''}`;
  if (a.outcome === 'pending') return `${what} → pending`;
  if (a.kind === 'handoff') return `handoff → control given back${a.note !== undefined ? `: ${a.note}` : ''}`;
  if (a.outcome === 'declined') return `question → declined${a.note !== undefined ? `: ${a.note}` : ''}`;
  return `question → answered: ${a.answer ?? ''}`;
}

/** The receipt id a connection tool's card put in its answer or error data, if any. */
function cardReceiptId(value: unknown): string | undefined {
  const id = (value as { receipt_id?: unknown } | null | undefined)?.receipt_id;
  return typeof id === 'string' ? id : undefined;
}
