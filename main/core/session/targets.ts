import { randomBytes } from 'node:crypto';
import type { ElementRef } from '../../../protocol/index.js';
import { fail } from '../../../protocol/index.js';

/** Options of a TargetRegistry; the defaults are docs/tools.md#target-handles'. */
export interface TargetRegistryOptions {
  /** Identities (handles) held before the oldest are evicted (512). */
  capacity?: number;
  /** Lifetime of a handle from the observation that issued it (5 minutes). */
  ttlMs?: number;
  now?: () => number;
  /** Source of handle randomness (crypto.randomBytes); injectable for collision tests. */
  random?: (bytes: number) => Buffer;
  /** Evicted handles remembered so they answer snapshot_evicted rather than snapshot_unknown (4096). */
  evictedMemory?: number;
}

/** What a handle resolves to for acting. */
export interface ResolvedTarget {
  ref: ElementRef;
  observationId: string;
}

interface Entry {
  handle: string;
  ref: ElementRef;
  observationId: string;
  scopeKey: string;
  issuedAt: number;
  /** Index key for carrying the handle to a newer observation of an unchanged element. */
  carryKey: string;
}

interface ObservationState {
  scopeKey: string;
  handles: number;
  spent: boolean;
  supersededBy?: string;
}

/**
 * What must be identical for an element to keep its handle in a newer observation: its native
 * identity, its digest (which covers role, name, automation id, class and ancestor path), its
 * process and the window's title and geometry. Cheaper than serialising the whole binding.
 */
function carryKeyOf(scopeKey: string, ref: ElementRef): string {
  const r = ref.window_rect;
  return [
    scopeKey,
    ref.key,
    ref.digest,
    ref.window,
    ref.process.pid,
    ref.process.process_start,
    ref.window_title ?? '',
    r === undefined ? '' : `${r.x},${r.y},${r.w},${r.h}`,
  ].join('\0');
}

/**
 * 72 random bits: unguessable (a handle is also only valid in its own agent's registry of at most
 * 512), and short, since every element of a read carries one.
 */
const HANDLE_BYTES = 9;
/** "T" + 9 bytes in base64url (12 characters, no padding). */
const HANDLE = /^T[A-Za-z0-9_-]{12}$/;

/**
 * One agent's opaque target handles (docs/tools.md#target-handles), each bound to an element of an observation.
 *
 * An element re-observed unchanged (the same ref, field for field) in a newer observation of the same
 * scope keeps its handle, now bound to the newer observation: otherwise every handle would change on
 * every read, and a `since` delta would list every element as changed. Handles of spent or expired
 * observations are never carried; those elements get fresh handles.
 */
export class TargetRegistry {
  private readonly capacity: number;
  private readonly ttlMs: number;
  private readonly evictedMemory: number;
  private readonly now: () => number;
  private readonly random: (bytes: number) => Buffer;
  /** Insertion order is age: re-issuing moves a handle to the end. */
  private readonly entries = new Map<string, Entry>();
  private readonly byObservationKey = new Map<string, string>();
  private readonly byCarryKey = new Map<string, string>();
  private readonly observations = new Map<string, ObservationState>();
  private readonly evicted = new Set<string>();

  constructor(options: TargetRegistryOptions = {}) {
    this.capacity = options.capacity ?? 512;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.evictedMemory = options.evictedMemory ?? 4096;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? randomBytes;
  }

  /** Issues (or re-issues for the same observation+element key) a handle bound to this element of this observation. */
  issue(observationId: string, scopeKey: string, ref: ElementRef): string {
    const obsKey = `${observationId}\0${ref.key}`;
    const existing = this.byObservationKey.get(obsKey);
    if (existing !== undefined) return existing;
    const carryKey = carryKeyOf(scopeKey, ref);
    const carried = this.entries.get(this.byCarryKey.get(carryKey) ?? '');
    if (carried !== undefined && this.carriable(carried, observationId)) {
      this.detach(carried);
      carried.observationId = observationId;
      carried.issuedAt = this.now();
      this.attach(carried, obsKey);
      return carried.handle;
    }
    const entry: Entry = { handle: this.freshHandle(), ref, observationId, scopeKey, issuedAt: this.now(), carryKey };
    this.attach(entry, obsKey);
    this.byCarryKey.set(carryKey, entry.handle);
    while (this.entries.size > this.capacity) this.evict(this.entries.values().next().value as Entry);
    return entry.handle;
  }

  /** The observation a handle is bound to now, without checking or spending it (undefined when not held). */
  observationOf(handle: string): string | undefined {
    return this.entries.get(handle)?.observationId;
  }

  /** Resolves a handle for acting: the bound ref, or throws OverseerError snapshot_unknown | snapshot_expired | snapshot_spent | snapshot_superseded | snapshot_evicted. */
  resolve(handle: unknown): ResolvedTarget {
    if (typeof handle !== 'string' || !HANDLE.test(handle)) {
      throw fail('snapshot_unknown', 'This is not a target handle: use the `target` of an element from window_read or element_find.');
    }
    const entry = this.entries.get(handle);
    if (entry === undefined) {
      if (this.evicted.has(handle)) {
        throw fail('snapshot_evicted', `The target fell out of the ${this.capacity} most recent identities; read the window again and use a fresh target.`);
      }
      throw fail('snapshot_unknown', 'This target was never issued to this agent (handles do not carry across agents or restarts); read the window again.');
    }
    const state = this.observations.get(entry.observationId);
    const ageMs = this.now() - entry.issuedAt;
    const data = { observation: entry.observationId, age_ms: ageMs, spent: state?.spent === true, superseded_by: state?.supersededBy };
    if (ageMs >= this.ttlMs) {
      throw fail(
        'snapshot_expired',
        `The target is ${Math.round(ageMs / 1000)} s old, past its ${Math.round(this.ttlMs / 1000)} s lifetime; read the window again.`,
        data,
      );
    }
    if (state?.supersededBy !== undefined) {
      throw fail(
        'snapshot_superseded',
        `Observation ${entry.observationId} was replaced by the newer ${state.supersededBy} of the same window; use that observation's targets.`,
        data,
      );
    }
    if (state?.spent === true) {
      throw fail('snapshot_spent', `A mutating action already used observation ${entry.observationId}; the window may have changed, so read it again.`, data);
    }
    return { ref: entry.ref, observationId: entry.observationId };
  }

  /** A newer observation of the same scope marks older ones superseded (for acting). */
  supersede(scopeKey: string, newObservationId: string): void {
    for (const [id, state] of this.observations) {
      if (id !== newObservationId && state.scopeKey === scopeKey && state.supersededBy === undefined) state.supersededBy = newObservationId;
    }
  }

  /** A mutating action spends its observation: every handle from it then answers snapshot_spent. */
  spend(observationId: string): void {
    const state = this.observations.get(observationId);
    // An observation without handles has nothing to answer; nothing is kept for it.
    if (state !== undefined) state.spent = true;
  }

  /** Number of identities held (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  private carriable(entry: Entry, observationId: string): boolean {
    const state = this.observations.get(entry.observationId);
    return entry.observationId !== observationId && state?.spent !== true && this.now() - entry.issuedAt < this.ttlMs;
  }

  private attach(entry: Entry, obsKey: string): void {
    this.entries.delete(entry.handle);
    this.entries.set(entry.handle, entry);
    this.byObservationKey.set(obsKey, entry.handle);
    let state = this.observations.get(entry.observationId);
    if (state === undefined) {
      state = { scopeKey: entry.scopeKey, handles: 0, spent: false };
      this.observations.set(entry.observationId, state);
    }
    state.handles += 1;
  }

  /** Unbinds an entry from its observation; the observation's state goes with its last handle. */
  private detach(entry: Entry): void {
    const obsKey = `${entry.observationId}\0${entry.ref.key}`;
    if (this.byObservationKey.get(obsKey) === entry.handle) this.byObservationKey.delete(obsKey);
    const state = this.observations.get(entry.observationId);
    if (state !== undefined && --state.handles <= 0) this.observations.delete(entry.observationId);
  }

  private evict(entry: Entry): void {
    this.detach(entry);
    this.entries.delete(entry.handle);
    if (this.byCarryKey.get(entry.carryKey) === entry.handle) this.byCarryKey.delete(entry.carryKey);
    this.evicted.add(entry.handle);
    if (this.evicted.size > this.evictedMemory) this.evicted.delete(this.evicted.values().next().value as string);
  }

  private freshHandle(): string {
    // 128 random bits make a collision practically impossible; checking costs nothing and rules it out.
    for (;;) {
      const handle = `T${this.random(HANDLE_BYTES).toString('base64url')}`;
      if (!HANDLE.test(handle)) throw new Error(`random source gave a malformed handle ${handle}`);
      if (!this.entries.has(handle) && !this.evicted.has(handle)) return handle;
    }
  }
}
