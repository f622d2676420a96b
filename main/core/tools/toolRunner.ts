import { createHash } from 'node:crypto';
import { type z } from 'zod';
import {
  MASKED_TEXT,
  CONNECTION_TOOL_ARGS,
  SCREEN_INPUT_TOOLS,
  SCREEN_TOOL_ARGS,
  type ConnectionRef,
  type ConnectionToolName,
  type RemoteExecArgs,
  type RemoteExecResult,
  type ExecEnd,
  execEndWords,
  ActionWaitArgs,
  ComputerAskArgs,
  ComputerCtrlArgs,
  ElementActArgs,
  ElementFindArgs,
  OverseerError,
  WindowListArgs,
  WindowReadArgs,
  errorInfo,
  inactiveTier,
  invalidArgument,
  isTalkAnswer,
  type CtrlState,
  tierOf,
  type ErrorInfo,
  type TalkAnswer,
  type TalkToolName,
  type Receipt,
  type ReceiptEntry,
  type ScreenToolName,
  type ScreenshotArgs,
  type ToolName,
  type WaitArgs,
} from '../../../protocol/index.js';
import { phase } from '../callProfile.js';
import type { Journal } from '../journal/index.js';
import { actionWait, elementAct, type ActDeps, type Progress } from './actTool.js';
import type { AgentSession } from './agentSession.js';
import { elementFind, windowList, windowRead, type ReadDeps } from './readTools.js';
import { renderError, renderFind, renderReceipt, renderWindowList, renderWindowRead } from './render.js';
import { renderCapabilities, renderCursor, renderScreenshot } from './renderScreen.js';
import { capabilities, cursorPosition, screenInput, screenshot, wait } from './screenTools.js';
import { HandoffGate } from '../supervision/handoff.js';
import { renderCtrlState, renderTalk } from './renderTalk.js';
import { computerAsk, computerCtrl, talkWait, type PersonState, type TalkDeps } from './talkTools.js';
import type { ConnectionManager } from '../connections/manager.js';
import {
  activateConnection,
  addConnection,
  listConnections,
  refuseAgentEntry,
  remoteExec,
  testConnection,
  type ConnectionToolDeps,
} from './connectionTools.js';
import { checkBindings } from './bindingCheck.js';
import { renderActivated, renderAdded, renderConnectionList, renderConnectionTest, renderRemoteExec } from './renderConnections.js';

/** The argument schema of each tool. */
export const TOOL_ARGS = {
  window_list: WindowListArgs,
  window_read: WindowReadArgs,
  element_find: ElementFindArgs,
  element_act: ElementActArgs,
  action_wait: ActionWaitArgs,
} as const satisfies Record<ToolName, z.ZodType>;

/** The argument schema of each tool that talks to the person (listed whether or not a tier is active). */
export const TALK_TOOL_ARGS = {
  computer_ask: ComputerAskArgs,
  computer_ctrl: ComputerCtrlArgs,
} as const satisfies Record<TalkToolName, z.ZodType>;

/** Whether a tool talks to the person (computer_ask, computer_ctrl). */
export function isTalkTool(tool: string): tool is TalkToolName {
  return Object.hasOwn(TALK_TOOL_ARGS, tool);
}

/**
 * A tool's answer for the MCP layer: the text the agent reads (compact, or JSON with
 * `output: "json"`) and, on success, the structured answer (the tool's TOOL_ANSWERS schema).
 */
export type ToolResult =
  | { isError: false; text: string; structured: Record<string, unknown>; images?: { data: string; mimeType: string }[] }
  | { isError: true; text: string; error: ErrorInfo };

/** Every tool an agent can call: the accessibility tools, the screen tier, the connections tier, and the tools that talk to the person. */
export type AnyToolName = ToolName | ScreenToolName | TalkToolName | ConnectionToolName;

function isConnectionTool(tool: string): tool is ConnectionToolName {
  return Object.hasOwn(CONNECTION_TOOL_ARGS, tool);
}

/** The arguments schema of a tool, if it is one. */
function argsOf(tool: string): z.ZodType | undefined {
  if (Object.hasOwn(TOOL_ARGS, tool)) return TOOL_ARGS[tool as ToolName];
  if (Object.hasOwn(SCREEN_TOOL_ARGS, tool)) return SCREEN_TOOL_ARGS[tool as ScreenToolName];
  if (isTalkTool(tool)) return TALK_TOOL_ARGS[tool];
  if (Object.hasOwn(CONNECTION_TOOL_ARGS, tool)) return CONNECTION_TOOL_ARGS[tool as ConnectionToolName];
  return undefined;
}

function isScreenTool(tool: string): tool is ScreenToolName {
  return Object.hasOwn(SCREEN_TOOL_ARGS, tool);
}

/** Tools whose answer is a receipt. */
function answersReceipt(tool: string): boolean {
  return tool === 'element_act' || tool === 'action_wait' || (isScreenTool(tool) && SCREEN_INPUT_TOOLS.has(tool));
}

/** A screenshot's answer, with its image beside the structured answer. */
interface WithImage {
  answer: unknown;
  image: { data: string; mimeType: string };
}

/** What the journal keeps of a screenshot: its id, size and hash. */
function screenshotSummary(shot: WithImage): Record<string, unknown> {
  const a = shot.answer as { screenshot: string; width: number; height: number; masked: unknown[] };
  const bytes = Math.floor((shot.image.data.length * 3) / 4) - (shot.image.data.endsWith('==') ? 2 : shot.image.data.endsWith('=') ? 1 : 0);
  return {
    id: a.screenshot,
    width: a.width,
    height: a.height,
    masked: a.masked.length,
    mime: shot.image.mimeType,
    bytes,
    sha256: createHash('sha256').update(Buffer.from(shot.image.data, 'base64')).digest('hex'),
  };
}

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
  act: ActDeps;
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
  private readonly talk: TalkDeps;
  private readonly conn: ConnectionToolDeps | undefined;

  constructor(private readonly deps: RunnerDeps) {
    this.conn =
      deps.connections === undefined
        ? undefined
        : { ...deps.act, connections: deps.connections, ...(deps.onActiveChanged !== undefined ? { onActiveChanged: deps.onActiveChanged } : {}) };
    this.talk = {
      ...deps.act,
      handoffs: deps.act.handoffs ?? new HandoffGate(deps.act.clock),
      person: deps.person ?? (() => ({ ui_attached: 0, watching: false })),
      screenOffered: () => this.screenTools,
      journalTalkFinal: (session, tool, answer) => this.journalTalkFinal(session, tool, answer),
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
    const schema = argsOf(tool);
    try {
      if (schema === undefined)
        throw new OverseerError(
          errorInfo('invalid_argument', `unknown tool "${String(tool).slice(0, 100)}"`, {
            tools: [...Object.keys(TOOL_ARGS), ...Object.keys(SCREEN_TOOL_ARGS), ...Object.keys(TALK_TOOL_ARGS), ...Object.keys(CONNECTION_TOOL_ARGS)],
          }),
        );
      if (isScreenTool(tool) && this.deps.screenTools?.() !== true)
        throw new OverseerError(
          errorInfo('invalid_argument', `${tool}: the screen tier is turned off in the supervisor's settings`, {
            reason: 'tier_not_offered',
            tier: 'screen',
            setting: 'screen_tools',
          }),
        );
      // Every tool stays callable by name; one of a tier the agent has not activated says how (docs/tools.md#progressive-tools).
      const tier = tierOf(tool);
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
      // An entry an agent may not add is refused saying why, before the schema calls its field unknown.
      if (tool === 'add_connection') refuseAgentEntry(rawArgs);
      const parsed = schema.safeParse(rawArgs ?? {});
      if (!parsed.success) throw new OverseerError(invalidArgument(parsed.error, tool));
      const data = parsed.data as { output?: 'text' | 'json' };
      output = data.output ?? 'text';
      validated();
      // Ids of another connection answer wrong_connection, and an unusable active connection
      // connection_unavailable, before any helper call (docs/connections.md#ids-are-bound-to-their-connection).
      if (tier === 'accessibility' || tier === 'screen') checkBindings(session, parsed.data as Record<string, unknown>, this.deps.connections);
      const ran = phase('tool');
      answer = isScreenTool(tool)
        ? await this.executeScreen(session, tool, parsed.data as Record<string, unknown>, signal, progress, braked)
        : isTalkTool(tool)
          ? await this.executeTalk(session, tool, parsed.data, progress, braked)
          : isConnectionTool(tool)
            ? await this.executeConnection(session, tool, parsed.data as Record<string, unknown>, signal, progress, braked)
            : await this.execute(session, tool as ToolName, parsed.data, signal, progress, braked);
      if (tool === 'capabilities') answer = { ...(answer as object), active_connection: where };
      ran();
    } catch (e) {
      if (e instanceof OverseerError) error = e.info;
      else {
        this.deps.log(`[tools] ${tool} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        error = errorInfo('internal', `internal error in ${tool}; it was logged`);
      }
    }
    // A switch of connections is recorded where it leads: the timeline then reads "activate_connection on vm1", not on the one it left.
    const recordedWhere = (tool === 'activate_connection' || tool === 'use_local') && error === undefined ? this.where(session.connection) : where;
    return this.record(session, tool, rawArgs, Date.now() - started, output, answer, error, recordedWhere);
  }

  /** Where a connection goes, as the journal and the timeline name it. */
  private where(name: string): ConnectionRef {
    return this.deps.connections?.ref(name) ?? { name, kind: 'local', where: 'this desktop' };
  }

  private executeConnection(
    session: AgentSession,
    tool: ConnectionToolName,
    args: Record<string, unknown>,
    signal: AbortSignal,
    progress: Progress | undefined,
    braked: Promise<ErrorInfo>,
  ): Promise<unknown> {
    const deps = this.conn;
    if (deps === undefined) return Promise.reject(new OverseerError(errorInfo('invalid_argument', `${tool}: this supervisor has no connections`)));
    switch (tool) {
      case 'list_connections':
        return listConnections(deps, session);
      case 'test_connection':
        return answeredByBrake(testConnection(deps, session, args['name'] as string, signal), braked);
      case 'activate_connection':
        return activateConnection(deps, session, args['name'] as string);
      case 'use_local':
        return activateConnection(deps, session, 'local');
      case 'add_connection':
        return addConnection(deps, session, args, signal, progress, braked);
      case 'remote_exec':
        return remoteExec(deps, session, args as RemoteExecArgs, signal, progress, braked);
    }
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
    const talk = isTalkAnswer(answer) ? answer : undefined;
    const receipt = answersReceipt(tool) && talk === undefined ? (answer as Receipt | undefined) : undefined;
    const shot = tool === 'screenshot' && answer !== undefined ? (answer as WithImage) : undefined;
    const exec = tool === 'remote_exec' && answer !== undefined ? execEnd(answer as RemoteExecResult) : undefined;
    // A command's outcome is `ok` only for exit 0; an exit code, a signal or a timeout is `failed` (its answer says ok: false).
    const outcome = error !== undefined ? 'error' : (receipt?.outcome ?? talk?.outcome ?? (exec !== undefined && !execEndWords(exec).ok ? 'failed' : 'ok'));
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
        ...(talk !== undefined ? { answer: talk } : {}),
        // A screenshot is journaled by its hash and size, never its pixels.
        ...(shot !== undefined ? { screenshot: screenshotSummary(shot) } : {}),
        // A command's end is journaled whole but its output by size (it is the agent's to read, bounded).
        ...(tool === 'remote_exec' && answer !== undefined ? { remote_exec: execSummary(answer as RemoteExecResult) } : {}),
        duration_ms: durationMs,
      }))().then(
      (record) => ({ ok: true as const, record }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    // The answer is rendered while the journal writes and flushes (the journal starts its write
    // first); it leaves only once the record is on disk, and not at all when it could not be.
    await Promise.resolve();
    const rendered = error === undefined ? this.renderAnswer(tool, output, answer, shot) : undefined;
    const appended = await appending;
    journaled();
    if (!appended.ok) {
      const e = appended.e;
      this.deps.log(`[tools] journal append failed: ${e instanceof Error ? e.message : String(e)}`);
      const info = errorInfo('internal', 'the call could not be journaled, so its answer is withheld', receipt !== undefined ? { receipt } : undefined);
      return { isError: true, text: renderError(info), error: info };
    }
    const entry = this.entry(appended.record.seq, appended.record.at, session, tool, durationMs, outcome, { receipt, error, talk, exec });
    // A remote_exec or add_connection card's call names its card's receipt id, in its answer or its error.
    entry.receipt_id ??= cardReceiptId(answer) ?? cardReceiptId(error?.data);
    this.deps.onReceipt({ ...entry, connection: where });
    if (error !== undefined) return { isError: true, text: output === 'json' ? JSON.stringify({ error }) : renderError(error), error };
    if (rendered?.ok !== true) throw rendered?.e;
    return rendered.result;
  }

  /** A successful answer as the agent gets it; a renderer's bug is kept to be thrown once the call is journaled. */
  private renderAnswer(
    tool: string,
    output: 'text' | 'json',
    answer: unknown,
    shot: WithImage | undefined,
  ): { ok: true; result: ToolResult } | { ok: false; e: unknown } {
    const rendered = phase('render');
    try {
      if (shot !== undefined)
        return {
          ok: true,
          result: {
            isError: false,
            text: output === 'json' ? JSON.stringify(shot.answer) : renderScreenshot(shot.answer as never),
            structured: shot.answer as Record<string, unknown>,
            images: [shot.image],
          },
        };
      const text = output === 'json' ? JSON.stringify(answer) : this.render(tool as AnyToolName, answer);
      return { ok: true, result: { isError: false, text, structured: answer as Record<string, unknown> } };
    } catch (e) {
      return { ok: false, e };
    } finally {
      rendered();
    }
  }

  private executeScreen(
    session: AgentSession,
    tool: ScreenToolName,
    args: Record<string, unknown>,
    signal: AbortSignal,
    progress: Progress | undefined,
    braked: Promise<ErrorInfo>,
  ): Promise<unknown> {
    switch (tool) {
      case 'capabilities':
        return answeredByBrake(capabilities(this.deps.act, session, signal), braked);
      case 'screenshot':
        return answeredByBrake(screenshot(this.deps.act, session, args as ScreenshotArgs, signal), braked);
      case 'cursor_position':
        return answeredByBrake(cursorPosition(this.deps.act, session, signal), braked);
      case 'wait':
        return answeredByBrake(wait(args as WaitArgs, signal), braked);
      default:
        return screenInput(this.deps.act, session, tool, args, signal, progress, braked);
    }
  }

  private executeTalk(session: AgentSession, tool: TalkToolName, args: unknown, progress: Progress | undefined, braked: Promise<ErrorInfo>): Promise<unknown> {
    if (tool === 'computer_ask') return computerAsk(this.talk, session, args as ComputerAskArgs, progress, braked);
    return computerCtrl(this.talk, session, args as ComputerCtrlArgs, progress, braked);
  }

  /** The final answer of a question or handoff that answered `pending` first: journaled on its own and shown in the timeline. */
  private async journalTalkFinal(session: AgentSession, tool: string, answer: TalkAnswer): Promise<void> {
    const where = this.where(session.connection);
    const record = await this.deps.journal.append({
      kind: 'tool_call',
      session: session.id,
      agent: session.client,
      tool,
      connection: where,
      phase: 'final',
      args: {},
      outcome: answer.outcome,
      answer,
      duration_ms: 0,
    });
    const ended = { receipt: undefined, error: undefined, talk: answer, exec: undefined };
    this.deps.onReceipt({ ...this.entry(record.seq, record.at, session, tool, 0, answer.outcome, ended), connection: where });
  }

  private execute(
    session: AgentSession,
    tool: ToolName,
    args: unknown,
    signal: AbortSignal,
    progress: Progress | undefined,
    braked: Promise<ErrorInfo>,
  ): Promise<unknown> {
    switch (tool) {
      case 'window_list':
        return answeredByBrake(windowList(this.deps.read, session, args as WindowListArgs, signal), braked);
      case 'window_read':
        return answeredByBrake(windowRead(this.deps.read, session, args as WindowReadArgs, signal), braked);
      case 'element_find':
        return answeredByBrake(elementFind(this.deps.read, session, args as ElementFindArgs, signal), braked);
      case 'element_act':
        return elementAct(this.deps.act, session, args as ElementActArgs, signal, progress, braked);
      case 'action_wait':
        return (
          talkWait(this.talk, session, args as ActionWaitArgs, progress, braked) ?? actionWait(this.deps.act, session, args as ActionWaitArgs, progress, braked)
        );
    }
  }

  private render(tool: AnyToolName, answer: unknown): string {
    if (isTalkAnswer(answer)) return renderTalk(answer);
    if (isConnectionTool(tool)) {
      if (tool === 'list_connections') return renderConnectionList(answer as never);
      if (tool === 'test_connection') return renderConnectionTest(answer as never);
      if (tool === 'add_connection') return renderAdded(answer as never);
      if (tool === 'remote_exec') return renderRemoteExec(answer as never);
      return renderActivated(answer as never);
    }
    if (tool === 'computer_ctrl') return renderCtrlState(answer as CtrlState);
    if (tool === 'computer_ask') throw new Error('computer_ask answered something that is not a question');
    if (isScreenTool(tool)) {
      if (tool === 'capabilities') return renderCapabilities(answer as never);
      if (tool === 'cursor_position') return renderCursor(answer as never);
      if (tool === 'wait') return `waited ${(answer as { waited_ms: number }).waited_ms} ms`;
      return renderReceipt(answer as Receipt);
    }
    switch (tool) {
      case 'window_list':
        return renderWindowList(answer as Parameters<typeof renderWindowList>[0]);
      case 'window_read':
        return renderWindowRead(answer as Parameters<typeof renderWindowRead>[0]);
      case 'element_find':
        return renderFind(answer as Parameters<typeof renderFind>[0]);
      case 'element_act':
      case 'action_wait':
        return renderReceipt(answer as Receipt);
    }
  }

  private entry(
    seq: number,
    at: string,
    session: AgentSession,
    tool: string,
    durationMs: number,
    outcome: string,
    ended: { receipt: Receipt | undefined; error: ErrorInfo | undefined; talk: TalkAnswer | undefined; exec: ExecEnd | undefined },
  ): ReceiptEntry {
    const { receipt, error, talk, exec } = ended;
    const summary =
      error !== undefined
        ? `${error.code}: ${error.detail}`
        : talk !== undefined
          ? talkSummary(talk)
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
    if (talk !== undefined) e.receipt_id = talk.receipt_id;
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

/** How a remote_exec ended, as its receipt shows it. */
function execEnd(r: RemoteExecResult): ExecEnd {
  return { exit_code: r.exit_code, duration_ms: r.duration_ms, ...(r.timed_out === true ? { timed_out: true } : {}) };
}

/** What the journal keeps of a remote_exec's end: exit, sizes and flags (the output itself is the agent's). */
function execSummary(r: RemoteExecResult): Record<string, unknown> {
  return {
    exit_code: r.exit_code,
    stdout_bytes: Buffer.byteLength(r.stdout),
    stderr_bytes: Buffer.byteLength(r.stderr),
    stdout_truncated: r.stdout_truncated,
    stderr_truncated: r.stderr_truncated,
    duration_ms: r.duration_ms,
    ...(r.timed_out === true ? { timed_out: true } : {}),
  };
}

/** A question's or handoff's answer as the timeline says it. */
function talkSummary(a: TalkAnswer): string {
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
