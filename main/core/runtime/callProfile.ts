import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * OVERSEER_PROF=1: every tool call's phases are timed (wall clock) and logged as one
 * `[prof] {json}` line, which bench/supervisor.ts reads to say where the supervisor's overhead
 * goes. Off (the default), no profile is ever made and every function here returns at once.
 */
export const PROFILING = process.env['OVERSEER_PROF'] === '1';

/** One call's timings: milliseconds spent in each named phase (phases may nest: helper holds helper_parse). */
export interface CallProfile {
  transport: string;
  tool?: string;
  /** When the profile began (performance.now()). */
  t0: number;
  phases: Record<string, number>;
  /** Logs the profile; called once, when its answer has been written. */
  done: ((line: string) => void) | undefined;
}

const store = PROFILING ? new AsyncLocalStorage<CallProfile>() : undefined;
const noop = (): void => {};

/**
 * Runs `fn` with a profile of its own (from now until profileFinisher's function runs), which
 * `log` gets as a `[prof]` line when it timed a tool call. Nested, the outer profile is kept.
 */
export function profiled<T>(transport: string, log: (line: string) => void, fn: () => T): T {
  if (store === undefined || store.getStore() !== undefined) return fn();
  return store.run({ transport, t0: performance.now(), phases: {}, done: log }, fn);
}

/** A function that ends the running call's profile and logs it (once; a request that ran no tool logs nothing). */
export function profileFinisher(): () => void {
  const profile = store?.getStore();
  if (profile === undefined) return noop;
  return () => {
    const log = profile.done;
    profile.done = undefined;
    if (log === undefined || profile.tool === undefined) return;
    log(`[prof] ${JSON.stringify({ transport: profile.transport, tool: profile.tool, total: performance.now() - profile.t0, ...profile.phases })}`);
  };
}

/** Starts timing a phase of the running call; the returned function ends it. */
export function phase(name: string): () => void {
  const profile = store?.getStore();
  if (profile === undefined) return noop;
  const start = performance.now();
  return () => {
    profile.phases[name] = (profile.phases[name] ?? 0) + performance.now() - start;
  };
}

/** Names the tool of the running call. */
export function profileTool(tool: string): void {
  const profile = store?.getStore();
  if (profile !== undefined) profile.tool = tool;
}
