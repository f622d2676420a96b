import { randomBytes } from 'node:crypto';
import type { AgentInfo, Receipt } from '../../../protocol/index.js';
import { ObservationStore } from '../session/observations.js';
import { TargetRegistry } from '../session/targets.js';

/** An element_act that outlived its first answer (pending approval). */
export interface ActFlow {
  /** Settles with the final receipt. */
  done: Promise<Receipt>;
  /** Set once element_act answered `pending`: the final receipt is then journaled on its own. */
  pending?: Receipt;
}

function targetOptions(): { ttlMs?: number } {
  const ttl = Number(process.env['OVERSEER_TARGET_TTL_MS']);
  return Number.isInteger(ttl) && ttl > 0 ? { ttlMs: ttl } : {};
}

/** One connected agent (one MCP connection): its observations, targets and acts in flight. */
export class AgentSession {
  readonly id = `S${randomBytes(6).toString('base64url')}`;
  readonly since = new Date().toISOString();
  readonly observations = new ObservationStore();
  /** Targets live 5 minutes; OVERSEER_TARGET_TTL_MS shortens that for tests of expiry. */
  readonly targets = new TargetRegistry(targetOptions());
  readonly acts = new Map<string, ActFlow>();
  calls = 0;
  /** With progressive tools: whether the agent activated the five tools. */
  activated: boolean;
  client = 'unknown agent';

  constructor(
    readonly transport: 'http' | 'stdio',
    progressiveTools: boolean,
    /** Process ids of the agent host (never read or acted on). */
    readonly hostPids: readonly number[] = [],
  ) {
    this.activated = !progressiveTools;
  }

  /** The agents view of this session. */
  info(pending: number): AgentInfo {
    return { session: this.id, client: this.client, transport: this.transport, since: this.since, calls: this.calls, pending, activated: this.activated };
  }
}
