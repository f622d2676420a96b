// What server/ needs of the supervisor, declared here where it is used: the composition root
// (main/core/supervisor.ts) implements these, so the transports never import the class that
// composes them.
import type { BrakeState, HelperHealth } from '../../../protocol/index.js';
import type { Clock } from '../runtime/clock.js';
import type { AgentConnection } from '../session/agentRegistry.js';
import type { AgentSession } from '../session/agentSession.js';
import type { SettingsStore } from '../settings/settingsStore.js';
import type { ToolRunner } from '../tools/toolRunner.js';
import type { UiHub } from '../ui/uiHub.js';
import type { ByteBudget } from './byteBudget.js';
import type { GrantHost } from './oauthHttp.js';

/**
 * What an agent transport (MCP over HTTP, the bridge socket) needs: admit a session, run its calls,
 * end it; and the grants that tell agents apart, with the person's consent to a new one.
 */
export interface SessionHost extends GrantHost {
  /** Whether a new agent may connect now: never past the bound. */
  admit(): { ok: true } | { ok: false; why: string };
  /** Registers an agent's session and how to reach its connection. */
  addSession(session: AgentSession, connection: AgentConnection): Promise<void>;
  /** Ends an agent's session: what it left pending is withdrawn. */
  endSession(id: string, reason: string): void;
  /** Tells the UI who is connected (a session was named or changed its tiers). */
  emitAgents(): void;
  /** Runs every tool call of every session. */
  readonly runner: ToolRunner;
  /** The person's settings: whether a new session starts with progressive tools. */
  readonly settings: Pick<SettingsStore, 'settings'>;
  /** The supervisor's clock (a session's idle time). */
  readonly clock: Pick<Clock, 'now'>;
  /** Bytes of agents' requests held at once, over every transport. */
  readonly requestBytes: ByteBudget;
}

/** What the HTTP server needs beside its agents: the person's UI channel, and the health `/health` reports. */
export interface ServerHost extends SessionHost {
  /** The UI channel a WebSocket at `/ui` attaches to. */
  readonly ui: Pick<UiHub, 'attach' | 'detach' | 'resync' | 'receive'>;
  /** The local helper's health. */
  readonly helper: { readonly health: Pick<HelperHealth, 'state'> };
  /** The brake's state. */
  readonly brakes: { readonly state: BrakeState };
}
