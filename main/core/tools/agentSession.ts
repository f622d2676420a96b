import { randomBytes } from 'node:crypto';
import type { AgentInfo, ErrorInfo, Receipt } from '../../../protocol/index.js';
import { ObservationStore } from '../session/observations.js';
import { TargetRegistry } from '../session/targets.js';

/** Where an element_act stands: what a brake or a departure answers depends on it. */
export type ActPhase = 'checking' | 'asking' | 'held' | 'dispatching' | 'done';

/** An element_act that outlived its first answer (pending approval). */
export interface ActFlow {
  /** Settles with the final receipt. */
  done: Promise<Receipt>;
  /** Set once element_act answered `pending`: the final receipt is then journaled on its own. */
  pending?: Receipt;
  phase: ActPhase;
}

/** One tool call in flight: an emergency stop answers it `braked` at once. */
export interface InflightCall {
  tool: string;
  /** Settles when a brake answers the call; the call's own work may still finish in the background. */
  braked: Promise<ErrorInfo>;
  brake(info: ErrorInfo): void;
}

/** Options of a session: how it connects and the clock it keeps time with. */
export interface AgentSessionOptions {
  transport: 'http' | 'stdio';
  progressiveTools: boolean;
  /** Process ids of the agent host (never read or acted on). */
  hostPids?: readonly number[];
  now?: () => number;
}

/** One connected agent (one MCP connection): its observations, targets and acts in flight. */
export class AgentSession {
  readonly id = `S${randomBytes(6).toString('base64url')}`;
  readonly transport: 'http' | 'stdio';
  readonly hostPids: readonly number[];
  readonly since: string;
  readonly observations = new ObservationStore();
  /** Targets live 5 minutes (on the session's clock). */
  readonly targets: TargetRegistry;
  readonly acts = new Map<string, ActFlow>();
  /** Calls answered but maybe still running, for the emergency stop to wait on. */
  readonly runs = new Set<Promise<unknown>>();
  private readonly inflight = new Set<InflightCall>();
  calls = 0;
  /** With progressive tools: whether the agent activated the five tools. */
  activated: boolean;
  client = 'unknown agent';
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
    this.activated = !options.progressiveTools;
    this.now = options.now ?? Date.now;
    this.targets = new TargetRegistry({ now: this.now });
    this.lastActive = this.now();
    this.since = new Date(this.lastActive).toISOString();
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

  /** Milliseconds idle (no open request), or 0 while busy. */
  idleMs(): number {
    return this.open > 0 ? 0 : this.now() - this.lastActive;
  }

  /** Registers a tool call in flight until `end()`. */
  beginCall(tool: string): InflightCall & { end(): void } {
    let brake: (info: ErrorInfo) => void = () => {};
    const braked = new Promise<ErrorInfo>((resolve) => (brake = resolve));
    const call = { tool, braked, brake: (info: ErrorInfo) => brake(info) };
    this.inflight.add(call);
    return { ...call, end: () => this.inflight.delete(call) };
  }

  /** Answers every call in flight with this error (emergency stop). */
  brakeCalls(info: ErrorInfo): number {
    const n = this.inflight.size;
    for (const c of this.inflight) c.brake(info);
    return n;
  }

  /** The agents view of this session. */
  info(pending: number, idleLimitMs?: number): AgentInfo {
    const info: AgentInfo = { session: this.id, client: this.client, transport: this.transport, since: this.since, calls: this.calls, pending, activated: this.activated, last_active: new Date(this.lastActive).toISOString() };
    if (idleLimitMs !== undefined && this.transport === 'http' && this.open === 0) info.expires_at = new Date(this.lastActive + idleLimitMs).toISOString();
    return info;
  }
}
