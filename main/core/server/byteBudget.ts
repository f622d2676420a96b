// How much of what agents sent the supervisor holds at once (docs/security.md#nothing-an-agent-sends-can-take-the-supervisor-down):
// every request body and bridge message counts from the moment it is read until its call is
// answered. One agent's thousand 8 MiB calls would otherwise hold gigabytes; past the budget HTTP
// answers busy and a bridge stops being read until its calls are answered.

/** Bytes of agents' requests held at once, all transports together. */
export const REQUEST_BYTES_BUDGET = 64 * 1024 * 1024;

/** A shared count of bytes held, with a limit and a way to learn when room is made. */
export class ByteBudget {
  private used = 0;
  private readonly waiting = new Set<() => void>();

  constructor(readonly limit: number = REQUEST_BYTES_BUDGET) {}

  /** Takes `n` bytes if they fit; false (nothing taken) when they do not. */
  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  /** Takes `n` bytes already read, whether they fit or not (a bridge message cannot be unread); true while within the limit. */
  force(n: number): boolean {
    this.used += n;
    return this.used <= this.limit;
  }

  /** Gives `n` bytes back; whoever waits for room is told once it is within the limit. */
  release(n: number): void {
    this.used = Math.max(0, this.used - n);
    if (this.used > this.limit) return;
    for (const wake of [...this.waiting]) wake();
  }

  /** Calls `wake` each time room is made, until the returned function is called. */
  onRoom(wake: () => void): () => void {
    this.waiting.add(wake);
    return () => this.waiting.delete(wake);
  }

  get inUse(): number {
    return this.used;
  }

  get full(): boolean {
    return this.used > this.limit;
  }
}
