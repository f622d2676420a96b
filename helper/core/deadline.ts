/** A wall-clock budget shared by every call of one operation; aborting cancels it early. */
export class Deadline {
  readonly at: number;

  constructor(
    readonly budgetMs: number,
    // Read when asked, never listened to: the many slices of one request add nothing to its signal.
    private readonly signal?: AbortSignal,
  ) {
    this.at = Date.now() + budgetMs;
  }

  /** Milliseconds left (0 when expired or cancelled). */
  remaining(): number {
    return this.aborted ? 0 : Math.max(0, this.at - Date.now());
  }

  expired(): boolean {
    return this.remaining() <= 0;
  }

  /** True when the request was cancelled by its caller. */
  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  /** The caller's cancellation, for backends whose calls can be aborted in flight (an HTTP request). */
  get abortSignal(): AbortSignal | undefined {
    return this.signal;
  }

  /** A child deadline capped at `ms` but never beyond this one. */
  slice(ms: number): Deadline {
    return new Deadline(Math.min(ms, this.remaining()), this.signal);
  }
}
