import { AsyncLocalStorage } from 'node:async_hooks';
import { CallScope, SCOPE_PARAM, fail } from '../../protocol/index.js';

const current = new AsyncLocalStorage<CallScope>();

/**
 * Takes a call's scope off its params (docs/architecture.md#call-scope): the params go on to their
 * own schema without it; a malformed scope is refused like any bad param.
 */
export function splitScope(params: unknown): { params: unknown; scope: CallScope | undefined } {
  if (params === null || typeof params !== 'object' || Array.isArray(params) || !Object.hasOwn(params, SCOPE_PARAM)) return { params, scope: undefined };
  const { [SCOPE_PARAM]: raw, ...rest } = params as Record<string, unknown>;
  const parsed = CallScope.safeParse(raw);
  if (!parsed.success) throw fail('invalid_argument', `${SCOPE_PARAM}: ${parsed.error.issues.map((i) => i.message).join('; ')}`.slice(0, 500));
  return { params: rest, scope: parsed.data };
}

/** Runs one call inside its scope: everything it awaits sees the same scope. */
export function withScope<T>(scope: CallScope | undefined, run: () => Promise<T>): Promise<T> {
  return scope === undefined ? run() : current.run(scope, run);
}

/** The scope of the call being served, if it has one (the supervisor's own calls have none). */
export function callScope(): CallScope | undefined {
  return current.getStore();
}

/** Processes excluded for the agent the current call serves (its MCP host), beside everyone's exclusions. */
export function scopedPids(): readonly number[] {
  return current.getStore()?.exclude_pids ?? [];
}
