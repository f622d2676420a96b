import { systemClock, type Clock, type TimerHandle } from '../runtime/clock.js';
import type { AgentSession } from './agentSession.js';

/** Most agent sessions at once; past it, the longest-idle HTTP session with nothing pending makes room, or the new one is refused. */
export const MAX_AGENT_SESSIONS = 64;

/** How the registry reaches one agent's connection. */
export interface AgentConnection {
  /** Drops the connection (its transport closes; nothing more is answered). */
  close(): void;
  /** Resolves when every answer already handed to the transport was written. */
  drain(): Promise<void>;
}

interface Registered {
  session: AgentSession;
  connection: AgentConnection;
}

/** Why a new agent session could not be admitted. */
export type Refusal = { ok: false; why: string };

/** What the registry tells its owner. */
export interface AgentRegistryEvents {
  /** A session ended: `reason` says why (ended by the agent, idle, bridge closed, emergency stop…). */
  ended: (session: AgentSession, reason: string) => void;
  /** Pending approvals of a session (a session with some is never evicted to make room). */
  pendingOf: (session: string) => number;
}

/**
 * The connected agents, bounded (docs/supervision.md#bounds): HTTP sessions that
 * stay idle (no call in flight, no open stream) past the idle limit end by themselves, and a full
 * registry evicts the longest-idle session that has nothing pending before it refuses a new one.
 * Ending a session is the one path every departure takes, so its pending items are withdrawn.
 */
export class AgentRegistry {
  private readonly sessions = new Map<string, Registered>();
  private readonly sweeper: TimerHandle;

  constructor(
    private readonly events: AgentRegistryEvents,
    private readonly idleLimitMs: () => number,
    private readonly clock: Clock = systemClock,
    private readonly max = MAX_AGENT_SESSIONS,
  ) {
    this.sweeper = clock.setInterval(() => this.sweep(), 1000);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Every session, oldest first. */
  list(): AgentSession[] {
    return [...this.sessions.values()].map((r) => r.session);
  }

  get(id: string): AgentSession | undefined {
    return this.sessions.get(id)?.session;
  }

  /** Whether one more session fits, after evicting an idle one if needed. */
  admit(): { ok: true } | Refusal {
    if (this.sessions.size < this.max) return { ok: true };
    let victim: AgentSession | undefined;
    for (const { session } of this.sessions.values()) {
      if (session.transport !== 'http' || session.busy || this.events.pendingOf(session.id) > 0) continue;
      if (victim === undefined || session.idleMs() > victim.idleMs()) victim = session;
    }
    if (victim === undefined) return { ok: false, why: `${this.max} agent sessions are connected and busy; close one or wait` };
    this.end(victim.id, `idle, evicted to make room for a new agent (${this.max} sessions at most)`);
    return { ok: true };
  }

  add(session: AgentSession, connection: AgentConnection): void {
    this.sessions.set(session.id, { session, connection });
  }

  /** Ends a session: withdraws what it left pending (through `ended`) and drops its connection. */
  end(id: string, reason: string): boolean {
    const r = this.sessions.get(id);
    if (r === undefined) return false;
    this.sessions.delete(id);
    r.session.ended = reason;
    this.events.ended(r.session, reason);
    r.connection.close();
    return true;
  }

  /** Ends every session (emergency stop, shutdown). */
  endAll(reason: string): void {
    for (const id of [...this.sessions.keys()]) this.end(id, reason);
  }

  /** Waits until every connection wrote what it was handed. */
  async drainAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((r) => r.connection.drain().catch(() => {})));
  }

  /** Ends HTTP sessions idle past the limit. */
  sweep(): void {
    const limit = this.idleLimitMs();
    for (const { session } of [...this.sessions.values()]) {
      if (session.transport === 'http' && !session.busy && session.idleMs() >= limit) this.end(session.id, `idle for ${Math.round(limit / 1000)} s`);
    }
  }

  stop(): void {
    this.clock.clearInterval(this.sweeper);
  }
}
