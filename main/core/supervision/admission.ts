// Who may add to the person's queue (docs/supervision.md#bounds). Every card waiting for a person,
// and every approved action the pause holds, counts against its agent session, its agent identity
// and the whole queue. A flood from one agent, or from many sessions of one, is refused at its share
// instead of burying the card the person is reading or exhausting the supervisor.

/** The queue's bounds. */
export const QUEUE_BOUNDS = {
  /** Items of one agent session. */
  perSession: 16,
  /** Items of one agent identity, whatever number of sessions it opens. */
  perIdentity: 16,
  /** From this many items in all, each identity is held to its fair share. */
  fairFrom: 32,
  /** The queue's size: past it an identity that already has `minShare` items is refused. */
  global: 64,
  /** What every identity may have even when the queue is full (until `hard`). */
  minShare: 2,
  /** Never more than this many items in all. */
  hard: 128,
} as const;

/** Why an item was refused, for the agent (`data.reason`) and the person. */
export type QueueRefusal = {
  reason: 'session_limit' | 'identity_limit' | 'fair_share' | 'queue_full';
  detail: string;
  limit: number;
  waiting: number;
};

/** An admitted item: release it once, when it stops waiting (decided, held no more, withdrawn). */
export type Admitted = { ok: true; release: () => void };

/**
 * Counts what waits for the person by session and by identity. An identity is what the supervisor
 * can tell apart: the agent host a bridge's kernel-confirmed parent names, else the transport and
 * the name the agent gave — a name an agent chooses, so many names still meet the hard bound.
 */
export class QueueAdmission {
  private readonly bySession = new Map<string, number>();
  private readonly byIdentity = new Map<string, number>();
  private total = 0;

  constructor(private readonly bounds: typeof QUEUE_BOUNDS = QUEUE_BOUNDS) {}

  /** Admits one more item of this session and identity, or says why not. */
  admit(session: string, identity: string): Admitted | ({ ok: false } & QueueRefusal) {
    const b = this.bounds;
    const mine = this.bySession.get(session) ?? 0;
    const ours = this.byIdentity.get(identity) ?? 0;
    const refuse = (reason: QueueRefusal['reason'], limit: number, waiting: number, detail: string): { ok: false } & QueueRefusal => ({
      ok: false,
      reason,
      limit,
      waiting,
      detail,
    });
    if (mine >= b.perSession)
      return refuse(
        'session_limit',
        b.perSession,
        mine,
        `${mine} actions of this agent already wait for a person; wait for their decisions (action_wait) before asking for more`,
      );
    if (ours >= b.perIdentity)
      return refuse(
        'identity_limit',
        b.perIdentity,
        ours,
        `${ours} actions of this agent's sessions already wait for a person; wait for their decisions (action_wait) before asking for more`,
      );
    if (this.total >= b.hard) return refuse('queue_full', b.hard, this.total, `the person's queue is full (${this.total} actions wait); try again later`);
    const holders = this.byIdentity.size + (ours === 0 ? 1 : 0);
    const share = Math.max(b.minShare, Math.floor(b.global / holders));
    if (this.total >= b.fairFrom && ours >= share)
      return refuse(
        'fair_share',
        share,
        ours,
        `the person's queue is busy (${this.total} actions of ${holders} agents wait) and this agent already has ${ours}, its fair share; wait for their decisions (action_wait)`,
      );
    if (this.total >= b.global && ours >= b.minShare)
      return refuse('queue_full', b.global, this.total, `the person's queue is full (${this.total} actions wait); wait for this agent's ${ours} to be decided`);
    this.bySession.set(session, mine + 1);
    this.byIdentity.set(identity, ours + 1);
    this.total++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.decrement(this.bySession, session);
        this.decrement(this.byIdentity, identity);
        this.total--;
      },
    };
  }

  /** Items counted now (all sessions). */
  get size(): number {
    return this.total;
  }

  private decrement(map: Map<string, number>, key: string): void {
    const n = (map.get(key) ?? 0) - 1;
    if (n <= 0) map.delete(key);
    else map.set(key, n);
  }
}
