// Who gets the screen tier's capture slots (docs/architecture.md#screen-work-off-the-rpc-loop): a
// lane per agent (the call's $scope) and one for the person (calls that carry no scope: the Screen
// view). A few jobs run at once; agents take turns, round robin, so one agent's flood waits behind
// its own calls, never in front of another's; the person's lane has a slot of its own. Past the
// bounds a call is refused at once, typed (`timeout`, reason `busy`), and a call that waited too
// long is refused the same way: a busy helper says so instead of going silent.
import { fail, type OverseerError } from '../../protocol/errors.js';

/** How often busy refusals are logged at most. */
const BUSY_LOG_MS = 10_000;

/** The lane of calls made for no agent: the person's Screen view, the supervisor's own. */
export const PERSON_LANE = '';

/** The bounds of the queue. */
export interface QueueLimits {
  /** Agents' jobs running at once, all agents together (each holds at most one raw frame). */
  running: number;
  /** Jobs one agent may have waiting and running together. */
  perAgent: number;
  /** Agents' jobs waiting, all agents together. */
  waiting: number;
  /** The person's jobs waiting and running together; one runs at a time, on a slot no agent uses. */
  person: number;
  /** Longest a job waits for its slot before it is refused. */
  waitMs: number;
}

/** The bounds the helper runs with, beside its encoder workers (`running` is their count plus one, see ScreenService). */
export const QUEUE_LIMITS: Omit<QueueLimits, 'running'> = { perAgent: 4, waiting: 16, person: 4, waitMs: 10_000 };

/** Starts a waiting job. */
type Waiter = () => void;

interface Lane {
  waiting: Waiter[];
  running: number;
}

/** How the queue stands. */
export interface QueueLoad {
  running: number;
  waiting: number;
  /** Per lane (the person's is ''): jobs waiting and running. */
  lanes: Record<string, { waiting: number; running: number }>;
}

export class ScreenQueue {
  private readonly lanes = new Map<string, Lane>();
  /** Agent lanes with jobs waiting, in the order they get their next turn. */
  private readonly turns: string[] = [];
  private agentsRunning = 0;
  private agentsWaiting = 0;
  /** Calls refused busy since the last log line about it, and when that was. */
  private busy = { refused: 0, loggedAt: 0 };

  constructor(
    private readonly limits: QueueLimits,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /**
   * Runs `job` in `lane` when its turn comes. Refused at once (`timeout`, reason `busy`) past the
   * bounds, or when `wait` is false and no slot is free now; refused after waiting `waitMs`; a
   * cancelled call leaves the queue at once.
   */
  run<T>(lane: string, job: () => Promise<T>, options: { signal?: AbortSignal; wait?: boolean } = {}): Promise<T> {
    const refused = this.admit(lane, options.wait !== false);
    if (refused !== undefined) {
      this.forget(lane);
      this.noteBusy();
      return Promise.reject(refused);
    }
    return this.slot(lane, options.signal).then(async () => {
      try {
        return await job();
      } finally {
        this.end(lane);
      }
    });
  }

  /** Why a new job of `lane` is refused at once, if it is. */
  private admit(lane: string, wait: boolean): OverseerError | undefined {
    const person = lane === PERSON_LANE;
    const own = this.lane(lane);
    const mine = own.waiting.length + own.running;
    if (person && mine >= this.limits.person)
      return busy(`the Screen view already has ${mine} pictures on the way (at most ${this.limits.person}); wait for them`, {
        queue: 'person',
        limit: this.limits.person,
      });
    if (!person && mine >= this.limits.perAgent)
      return busy(
        `the screen tier is busy: this agent already has ${mine} screen captures waiting or running (at most ${this.limits.perAgent}); wait for their answers, then try again, one at a time`,
        { queue: 'agent', limit: this.limits.perAgent },
      );
    if (this.free(lane)) return undefined;
    if (!wait) return busy('the screen tier is busy right now; nothing was captured', { queue: 'no_wait' });
    if (!person && this.agentsWaiting >= this.limits.waiting)
      return busy(
        `the screen tier is busy: ${this.agentsWaiting} screen captures of agents are waiting already (at most ${this.limits.waiting}); try again in a few seconds`,
        {
          queue: 'all',
          limit: this.limits.waiting,
        },
      );
    return undefined;
  }

  /** True when a job of `lane` may start now (an agent's never ahead of one already waiting). */
  private free(lane: string): boolean {
    if (lane === PERSON_LANE) return this.lane(lane).running === 0;
    return this.agentsRunning < this.limits.running && this.agentsWaiting === 0;
  }

  /** Resolves when `lane` has its slot: at once, or when its turn comes; rejects when the wait is too long or cancelled. */
  private slot(lane: string, signal: AbortSignal | undefined): Promise<void> {
    const person = lane === PERSON_LANE;
    const own = this.lane(lane);
    if (this.free(lane)) {
      this.begin(lane, own);
      return Promise.resolve();
    }
    if (signal?.aborted === true) {
      this.forget(lane);
      return Promise.reject(fail('timeout', 'the screen capture was cancelled before it started', { reason: 'cancelled' }));
    }
    return new Promise<void>((resolve, reject) => {
      const since = Date.now();
      const leave = (error: OverseerError): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = own.waiting.indexOf(waiter);
        if (at === -1) return;
        own.waiting.splice(at, 1);
        if (!person) this.agentsWaiting--;
        const turn = this.turns.indexOf(lane);
        if (own.waiting.length === 0 && turn !== -1) this.turns.splice(turn, 1);
        this.forget(lane);
        reject(error);
      };
      const timer = setTimeout(() => {
        this.noteBusy();
        leave(
          busy(`the screen tier stayed busy for ${Math.round(this.limits.waitMs / 1000)} s (other screen captures first); nothing was captured; try again`, {
            queue: 'wait',
            waited_ms: Date.now() - since,
          }),
        );
      }, this.limits.waitMs);
      const onAbort = (): void =>
        leave(fail('timeout', 'the screen capture was cancelled while it waited for its turn; nothing was captured', { reason: 'cancelled' }));
      const waiter: Waiter = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      own.waiting.push(waiter);
      if (!person) {
        this.agentsWaiting++;
        if (!this.turns.includes(lane)) this.turns.push(lane);
      }
    });
  }

  /** A busy refusal is counted, and logged at most every BUSY_LOG_MS: a flood must not flood the log too. */
  private noteBusy(): void {
    this.busy.refused++;
    const now = Date.now();
    if (now - this.busy.loggedAt < BUSY_LOG_MS) return;
    const load = this.load();
    this.log(
      `[screen] busy: ${this.busy.refused} capture(s) refused since the last note; ${load.running} running, ${load.waiting} waiting in ${Object.keys(load.lanes).length} lane(s)`,
    );
    this.busy = { refused: 0, loggedAt: now };
  }

  /** How the queue stands now. */
  load(): QueueLoad {
    const lanes: QueueLoad['lanes'] = {};
    for (const [name, l] of this.lanes) lanes[name] = { waiting: l.waiting.length, running: l.running };
    const person = this.lanes.get(PERSON_LANE);
    return { running: this.agentsRunning + (person?.running ?? 0), waiting: this.agentsWaiting + (person?.waiting.length ?? 0), lanes };
  }

  private lane(name: string): Lane {
    let lane = this.lanes.get(name);
    if (lane === undefined) {
      lane = { waiting: [], running: 0 };
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** An empty lane is let go: a session that ended leaves nothing behind. */
  private forget(name: string): void {
    const lane = this.lanes.get(name);
    if (lane !== undefined && lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(name);
  }

  private begin(name: string, lane: Lane): void {
    lane.running++;
    if (name !== PERSON_LANE) this.agentsRunning++;
  }

  private end(name: string): void {
    const lane = this.lane(name);
    lane.running--;
    if (name === PERSON_LANE) {
      const next = lane.waiting.shift();
      if (next !== undefined) {
        this.begin(name, lane);
        next();
      }
    } else {
      this.agentsRunning--;
      this.next();
    }
    this.forget(name);
  }

  /** Starts agents' jobs while slots are free: the lane whose turn it is gives its oldest, then goes to the back. */
  private next(): void {
    while (this.agentsRunning < this.limits.running) {
      const name = this.turns.shift();
      if (name === undefined) return;
      const lane = this.lane(name);
      const waiter = lane.waiting.shift();
      if (waiter === undefined) continue;
      this.agentsWaiting--;
      if (lane.waiting.length > 0) this.turns.push(name);
      this.begin(name, lane);
      waiter();
    }
  }
}

function busy(detail: string, data: Record<string, unknown>): OverseerError {
  return fail('timeout', detail, { reason: 'busy', ...data });
}
