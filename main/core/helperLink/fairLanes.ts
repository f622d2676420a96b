import { OverseerError, errorInfo } from '../../../protocol/index.js';

/** Calls of one lane (one agent identity) at the helper at once; the rest wait their turn in order. */
export const LANE_CONCURRENCY = 4;
/** Calls of one lane waiting for a turn; past it a call is answered at once. */
export const LANE_QUEUE = 256;

interface Lane {
  running: number;
  waiting: { go: () => void }[];
}

/**
 * Fair lanes for helper calls (docs/architecture.md#fair-lanes): each agent identity has at most
 * LANE_CONCURRENCY calls at the helper at a time, so an agent that sends a thousand calls queues
 * them behind its own, and another agent's call goes straight through. A call that waits longer
 * than its own time budget, or is cancelled, leaves the queue typed (`timeout`, `data.reason: "busy"`).
 */
export class FairLanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly concurrency = LANE_CONCURRENCY,
    private readonly queueBound = LANE_QUEUE,
  ) {}

  /** Waits for a turn in `lane`; resolves with the function that ends it. */
  enter(name: string, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<() => void> {
    const lane = this.lanes.get(name) ?? { running: 0, waiting: [] };
    this.lanes.set(name, lane);
    const release = (): void => {
      lane.running--;
      const next = lane.waiting.shift();
      if (next !== undefined) next.go();
      else if (lane.running === 0) this.lanes.delete(name);
    };
    if (lane.running < this.concurrency) {
      lane.running++;
      return Promise.resolve(once(release));
    }
    if (signal?.aborted === true) {
      if (lane.running === 0) this.lanes.delete(name);
      return Promise.reject(new OverseerError(errorInfo('timeout', 'the call was cancelled before it reached the helper')));
    }
    if (lane.waiting.length >= this.queueBound)
      return Promise.reject(busy(`${lane.waiting.length} calls of this agent already wait for the helper; wait for their answers before sending more`));
    return new Promise<() => void>((resolve, reject) => {
      const leave = (error: OverseerError): void => {
        const i = lane.waiting.indexOf(waiter);
        if (i >= 0) lane.waiting.splice(i, 1);
        if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(name);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      const onAbort = (): void => leave(new OverseerError(errorInfo('timeout', 'the call was cancelled while it waited for the helper')));
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => leave(busy(`the call waited ${timeoutMs} ms behind this agent's other calls and got no turn at the helper`)), timeoutMs);
      const waiter = {
        go: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          lane.running++;
          resolve(once(release));
        },
      };
      lane.waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Calls running and waiting in a lane (tests, diagnostics). */
  load(name: string): { running: number; waiting: number } {
    const lane = this.lanes.get(name);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }
}

function busy(detail: string): OverseerError {
  return new OverseerError(errorInfo('timeout', detail, { reason: 'busy' }));
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}
