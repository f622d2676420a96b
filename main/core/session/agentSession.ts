import { randomBytes } from 'node:crypto';
import { TIERS, type AgentInfo, type CallScope, type ErrorInfo, type Receipt, type QuestionHandoffAnswer, type Tier } from '../../../protocol/index.js';
import { ConnectionBindings } from './connectionBindings.js';
import { ObservationStore } from './observations.js';
import { ScreenshotStore } from './screenshots.js';
import { TargetRegistry } from './targets.js';

/** Where an element_act stands: what a brake or a departure answers depends on it. */
export type ActPhase = 'checking' | 'asking' | 'held' | 'dispatching' | 'done';

/** An element_act that outlived its first answer (pending approval). */
export interface ActFlow {
  /** Settles with the final receipt. */
  done: Promise<Receipt>;
  /** Set once element_act answered `pending`: the final receipt is then journaled on its own. */
  pending?: Receipt;
  /**
   * The receipt as the flow knows it now (target, window, the decision once made), for
   * action_wait's interim answers: the `pending` copy is frozen at the first answer.
   */
  current: Receipt;
  phase: ActPhase;
}

/** A question or handoff that outlived its first answer (`pending`): action_wait keeps waiting for it. */
export interface QuestionHandoffFlow {
  /** Settles with the final answer. */
  done: Promise<QuestionHandoffAnswer>;
  /** Set once the call answered `pending`: the final answer is then journaled on its own. */
  pending?: QuestionHandoffAnswer;
  /** The tool that began it (computer_ask or computer_ctrl), for the journal. */
  tool: string;
}

/** One tool call in flight: an emergency stop answers it `braked` at once, then waits for `running`. */
export interface InflightCall {
  /** Settles when a brake answers the call; the call's own work may still finish in the background. */
  braked: Promise<ErrorInfo>;
  brake(info: ErrorInfo): void;
  /** The call until its answer is journaled (set by the runner). */
  running?: Promise<unknown>;
}

/** Where and how one agent's helper calls go. */
export interface Via {
  scope: CallScope;
  lane: string;
  connection: string;
}

/** Longest agent name shown to the person. */
export const MAX_AGENT_NAME = 80;

/**
 * The name an agent gives itself, as cards and rules show it: the agent chooses it, so control
 * characters go and length is bounded (it must not push a card's content out of sight).
 */
export function agentName(raw: string | undefined, fallback: string): string {
  const clean = (raw ?? '')
    .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return fallback;
  return clean.length > MAX_AGENT_NAME ? `${clean.slice(0, MAX_AGENT_NAME - 1)}…` : clean;
}

/** Options of a session: how it connects and the clock it keeps time with. */
export interface AgentSessionOptions {
  transport: 'http' | 'stdio';
  /** Progressive exposure (docs/tools.md#progressive-tools): start with no tier active. */
  progressiveTools: boolean;
  /** Process ids of the agent host (never read or acted on). */
  hostPids?: readonly number[];
  /** The grant whose credential opened the session (docs/agents.md#grants): its id and the name the person approved. */
  grant?: { id: string; name: string };
  now?: () => number;
}

/** One connected agent (one MCP connection): its observations, targets and acts in flight. */
export class AgentSession {
  readonly id = `S${randomBytes(6).toString('base64url')}`;
  readonly transport: 'http' | 'stdio';
  readonly hostPids: readonly number[];
  readonly since: string;
  readonly observations = new ObservationStore();
  /** The agent's screenshots, which its screen input is planned on. */
  readonly screenshots = new ScreenshotStore();
  /** Targets live 5 minutes (on the session's clock). */
  readonly targets: TargetRegistry;
  readonly acts = new Map<string, ActFlow>();
  /** The connection this agent's tools act on now (docs/connections.md): local until it activates another. */
  connection = 'local';
  /** Which connection issued each id this agent received. */
  readonly bindings = new ConnectionBindings();
  /** Questions and handoffs of this agent in flight, by receipt id. */
  readonly questionsHandoffs = new Map<string, QuestionHandoffFlow>();
  private readonly inflight = new Set<InflightCall>();
  calls = 0;
  /** Whether this agent started with progressive exposure: it then lists computer_use_activate. */
  readonly progressive: boolean;
  /**
   * The tiers this agent activated: every tier without progressive exposure, none until it asks
   * with it. The screen tier is listed and callable only while the person also offers it.
   */
  readonly tiers: Set<Tier>;
  /** The grant that opened the session; absent for the shared token. */
  readonly grant: { readonly id: string; readonly name: string } | undefined;
  /** The name the agent gave itself (clientInfo, the bridge's hello): only a claim. */
  claimed = 'unknown agent';
  /** Epoch ms of the agent's last request or answer. */
  lastActive: number;
  /** Requests of this agent open right now (calls in flight, an open event stream). */
  private open = 0;
  /** Set when the session ended: nothing of it may run any more. */
  ended: string | undefined;
  private readonly now: () => number;

  constructor(options: AgentSessionOptions) {
    this.transport = options.transport;
    this.hostPids = options.hostPids ?? [];
    this.grant = options.grant;
    this.progressive = options.progressiveTools;
    this.tiers = new Set(options.progressiveTools ? [] : TIERS);
    this.now = options.now ?? Date.now;
    this.targets = new TargetRegistry({ now: this.now });
    this.lastActive = this.now();
    this.since = new Date(this.lastActive).toISOString();
  }

  /**
   * The agent's name on cards, receipts, the journal and rules: its grant's, as the person approved
   * it, whatever name it gives itself; without a grant, the name it gave. Setting it records the claim.
   */
  get client(): string {
    return this.grant?.name ?? this.claimed;
  }

  set client(name: string) {
    this.claimed = name;
  }

  /**
   * Who this agent is, as far as the supervisor can tell agents apart (docs/supervision.md#bounds):
   * its grant (docs/agents.md#grants); else the agent host a bridge's kernel-confirmed parent names;
   * else its transport and the name it gave.
   */
  get identity(): string {
    if (this.grant !== undefined) return `grant:${this.grant.id}`;
    const host = this.hostPids[0];
    return host !== undefined ? `host:${host}` : `${this.transport}:${this.client}`;
  }

  /** What every helper call made for this agent carries: who it is for, and its own host, excluded for it alone. */
  get scope(): CallScope {
    return { agent: this.id, ...(this.hostPids.length > 0 ? { exclude_pids: [...this.hostPids] } : {}) };
  }

  /**
   * How this agent's helper calls go: to its active connection, in its scope, and in its identity's
   * lane (a few at a time, docs/architecture.md#fair-lanes). A tool takes it once, at its start, so a
   * call made before the agent switched connections never goes where it switched to.
   */
  get via(): Via {
    return { scope: this.scope, lane: this.identity, connection: this.connection };
  }

  /** A request of the agent began (returns its end); while any is open the session is not idle. */
  enter(): () => void {
    this.open++;
    this.lastActive = this.now();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.open--;
      this.lastActive = this.now();
    };
  }

  /** True while a request of the agent is open. */
  get busy(): boolean {
    return this.open > 0;
  }

  /** Whether the agent has any tier active (the agents view says when it has not). */
  get activated(): boolean {
    return this.tiers.size > 0;
  }

  /** Milliseconds idle (no open request), or 0 while busy. */
  idleMs(): number {
    return this.open > 0 ? 0 : this.now() - this.lastActive;
  }

  /** Registers a tool call in flight until `end()`. */
  beginCall(): InflightCall & { end(): void } {
    let brake: (info: ErrorInfo) => void = () => {};
    const call: InflightCall = { braked: new Promise<ErrorInfo>((resolve) => (brake = resolve)), brake: (info) => brake(info) };
    this.inflight.add(call);
    return Object.assign(call, { end: () => this.inflight.delete(call) });
  }

  /** Calls in flight right now. */
  get inflightCount(): number {
    return this.inflight.size;
  }

  /** What to wait on until every call in flight now is answered and journaled. */
  callsRunning(): Promise<unknown>[] {
    return [...this.inflight].flatMap((c) => (c.running === undefined ? [] : [c.running]));
  }

  /** Answers every call in flight with this error (emergency stop); returns what to wait on until those answers are journaled. */
  brakeCalls(info: ErrorInfo): Promise<unknown>[] {
    const running: Promise<unknown>[] = [];
    for (const c of this.inflight) {
      c.brake(info);
      if (c.running !== undefined) running.push(c.running);
    }
    return running;
  }

  /** The agents view of this session. */
  info(pending: number, idleLimitMs?: number): AgentInfo {
    const info: AgentInfo = {
      session: this.id,
      client: this.client,
      transport: this.transport,
      since: this.since,
      calls: this.calls,
      pending,
      activated: this.activated,
      last_active: new Date(this.lastActive).toISOString(),
      connection: this.connection,
      ...(this.grant !== undefined ? { grant: this.grant.id } : {}),
      ...(this.grant !== undefined && this.claimed !== this.grant.name && this.claimed !== 'unknown agent' ? { claimed: this.claimed } : {}),
    };
    if (idleLimitMs !== undefined && this.transport === 'http' && this.open === 0) info.expires_at = new Date(this.lastActive + idleLimitMs).toISOString();
    return info;
  }
}
