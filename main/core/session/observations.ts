import type { Element, WindowInfo } from '../../../protocol/index.js';
import { computeDelta, type Delta, deltaLarger, type Flattened, flatten } from './delta.js';

/** A complete window_read answer as the supervisor produced it (docs/tools.md#window_read). */
export interface Observation {
  /** Canonical JSON of the query (see observationScope): only an identical query gets a delta. */
  scope: string;
  window: WindowInfo;
  format: 'tree' | 'flat';
  elements: Element[];
  /** True when any cut applied: a cut read may hide elements, so it never yields or bases a delta. */
  truncated: boolean;
  /** Non-array metadata of the answer (limits, notes, read_ms…); always sent current, never diffed. */
  meta: Record<string, unknown>;
}

/** Why a repeated query answered in full rather than with a delta. */
export const RESET_REASONS = [
  'base_unknown',
  'base_evicted',
  'base_truncated',
  'truncated',
  'scope_changed',
  'base_missing_keys',
  'base_duplicate_keys',
  'missing_keys',
  'duplicate_keys',
  'delta_larger',
] as const;
/** One of RESET_REASONS. */
export type ResetReason = (typeof RESET_REASONS)[number];

/** The answer shape for a `since` query; `observation` names the new complete state either way. */
export type DeltaResult = { observation: string; mode: 'delta'; delta: Delta } | { observation: string; mode: 'full'; reset_reason: ResetReason };

/** Where an observation id stands in one agent's store. */
export type ObservationStatus = 'retained' | 'evicted' | 'unknown';

interface Entry {
  obs: Observation;
  /** Computed on first diff and kept, so a chain of deltas flattens each observation once. */
  flat?: Flattened;
}

const ID = /^O[1-9a-z][0-9a-z]*$/;
const MAX_PENDING = 256;

/**
 * One agent's retained observations (docs/tools.md#observations-and-deltas: the last 64), with deltas between repeated queries.
 * Stored observations are kept by reference: callers must not mutate them after recording.
 */
export class ObservationStore {
  readonly capacity: number;
  private readonly entries = new Map<string, Entry>();
  /** Allocated ids not yet recorded (bounded: an abandoned read must not leak). */
  private readonly pending = new Set<string>();
  private counter = 0;

  constructor(options: { capacity?: number } = {}) {
    this.capacity = options.capacity ?? 64;
    if (!Number.isInteger(this.capacity) || this.capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${this.capacity}`);
  }

  /** Reserves the next id, for callers that must name the observation (issue targets) before recording it. */
  allocate(): string {
    this.counter += 1;
    const id = `O${this.counter.toString(36)}`;
    this.pending.add(id);
    if (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.values().next().value as string);
    return id;
  }

  /** Records a full observation under a fresh id (or one from `allocate`); returns its id. */
  record(obs: Observation, id?: string): string {
    const useId = id ?? this.allocate();
    if (!this.pending.delete(useId)) throw new Error(`observation id ${useId} was not allocated by this store or is already recorded`);
    this.entries.set(useId, { obs });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return useId;
  }

  /** The retained observation, or undefined (unknown or evicted: say which via `status(id)`). */
  get(id: string): Observation | undefined {
    return this.entries.get(id)?.obs;
  }

  /** Whether an id is retained, was issued here and has since been evicted, or was never issued here. */
  status(id: string): ObservationStatus {
    if (this.entries.has(id)) return 'retained';
    if (this.pending.has(id)) return 'unknown';
    // Ids come from a counter, so "issued here" is a range check: no set of evicted ids to keep.
    if (typeof id !== 'string' || !ID.test(id) || id.length > 12) return 'unknown';
    const n = parseInt(id.slice(1), 36);
    return n >= 1 && n <= this.counter ? 'evicted' : 'unknown';
  }

  /**
   * Records `next` (under `id` if given) and answers a repeated query with since=baseId: a delta
   * when it is exact and smaller than the full answer, otherwise the reason for a full answer.
   */
  diff(baseId: string, next: Observation, id?: string): DeltaResult {
    const baseStatus = this.status(baseId);
    // Taken before recording: recording may evict the base.
    const base = this.entries.get(baseId);
    const observation = this.record(next, id);
    const full = (reset_reason: ResetReason): DeltaResult => ({ observation, mode: 'full', reset_reason });
    if (base === undefined) return full(baseStatus === 'evicted' ? 'base_evicted' : 'base_unknown');
    if (base.obs.truncated) return full('base_truncated');
    if (next.truncated) return full('truncated');
    if (!sameScope(base.obs, next)) return full('scope_changed');
    base.flat ??= flatten(base.obs.elements, base.obs.format);
    if (base.flat.problem !== undefined) return full(`base_${base.flat.problem}`);
    const flat = flatten(next.elements, next.format);
    const entry = this.entries.get(observation);
    if (entry !== undefined) entry.flat = flat;
    if (flat.problem !== undefined) return full(flat.problem);
    const delta = computeDelta(base.flat, flat);
    if (deltaLarger(delta, flat, next.elements)) return full('delta_larger');
    return { observation, mode: 'delta', delta };
  }
}

/** Same query, same format, and the same window of the same process (a recycled window id is not the same scope). */
function sameScope(a: Observation, b: Observation): boolean {
  return (
    a.scope === b.scope &&
    a.format === b.format &&
    a.window.window === b.window.window &&
    a.window.pid === b.window.pid &&
    a.window.process_start === b.window.process_start
  );
}
