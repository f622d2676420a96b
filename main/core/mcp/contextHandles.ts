// Context handles (docs/tools.md#context-handles): in the 2026-07-28 era there is no session, so
// what a session carried for an agent — its activated tiers, observations, targets, screenshots,
// pending receipts, questions and active connection — lives in a context the server mints and
// names with an unguessable handle. The agent passes the handle back with each call (the `context`
// argument, or `_meta["overseer/context"]`); a handle counts only for the credential it was minted
// for, and ends with its context (idle expiry, the bridge closing, the supervisor ending it).
import { randomBytes } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorInfo, type ErrorInfo } from '../../../protocol/index.js';
import type { AgentSession } from '../session/agentSession.js';

/** The request and result `_meta` key that carries a context handle. */
export const CONTEXT_META = 'overseer/context';
/** The tool argument that carries a context handle (listed in the 2026-07-28 era only). */
export const CONTEXT_ARG = 'context';
/** Longest handle accepted: a minted one is 25 characters. */
export const MAX_CONTEXT_HANDLE = 64;

/** What a context needs of the supervisor: admission within its bound, and a registered agent session. */
export interface ContextHost {
  /** Whether one more agent may be admitted now. */
  admit(): { ok: true } | { ok: false; why: string };
  /** Creates and registers the agent session of a new context; `ended` runs when the supervisor ends it. */
  open(client: string, ended: () => void): Promise<AgentSession>;
}

/** A context found or made for one call: its session, its handle, and whether this call minted it. */
export interface Context {
  session: AgentSession;
  handle: string;
  minted: boolean;
}

/** The contexts of one listener (the HTTP endpoint, or one bridge connection), by handle. */
export class ContextHandles {
  private readonly byHandle = new Map<string, { session: AgentSession; principal: string }>();

  constructor(private readonly host: ContextHost) {}

  /** The context a handle names for this credential; an unknown, ended or foreign handle is `snapshot_unknown`. */
  find(handle: string, principal: string): Context | ErrorInfo {
    const known = this.byHandle.get(handle);
    if (known === undefined || known.principal !== principal || known.session.ended !== undefined)
      return errorInfo(
        'snapshot_unknown',
        'this context handle is unknown or its context ended (idle expiry, your connection closed, or the supervisor ended it): call again without context to start a new one',
        { handle: 'context' },
      );
    return { session: known.session, handle, minted: false };
  }

  /** A new context for this credential, admitted within the supervisor's bound. */
  async mint(principal: string, client: string): Promise<Context | { refused: string }> {
    const admitted = this.host.admit();
    if (!admitted.ok) return { refused: admitted.why };
    const handle = `ctx_${randomBytes(16).toString('base64url').slice(0, 21)}`;
    const session = await this.host.open(client, () => this.byHandle.delete(handle));
    if (session.ended === undefined) this.byHandle.set(handle, { session, principal });
    return { session, handle, minted: true };
  }

  /** Every live context's session (a bridge ends them when it closes). */
  sessions(): AgentSession[] {
    return [...this.byHandle.values()].map((c) => c.session);
  }

  /** How many contexts are live. */
  get size(): number {
    return this.byHandle.size;
  }
}

/** A context handle a call carries: its `context` argument first, then its request `_meta`. */
export function handleOf(args: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined): unknown {
  return args?.[CONTEXT_ARG] ?? meta?.[CONTEXT_META];
}

/** A call's arguments without the `context` handle, which no tool declares. */
export function withoutHandle(args: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (args === undefined || !(CONTEXT_ARG in args)) return args;
  const rest = { ...args };
  delete rest[CONTEXT_ARG];
  return rest;
}

const CONTEXT_FIELD = {
  type: 'string',
  maxLength: MAX_CONTEXT_HANDLE,
  description: 'Your context handle from an earlier answer (keeps your targets, receipts and tiers); omit it on your first call.',
} as const;

const listedWithHandle = new WeakMap<Tool, Tool>();

/** A tool as the 2026-07-28 era lists it: its arguments also take the `context` handle. */
export function withContextArg(tool: Tool): Tool {
  let listed = listedWithHandle.get(tool);
  if (listed === undefined) {
    listed = { ...tool, inputSchema: { ...tool.inputSchema, properties: { ...tool.inputSchema.properties, [CONTEXT_ARG]: CONTEXT_FIELD } } };
    listedWithHandle.set(tool, listed);
  }
  return listed;
}
