// How the screen tier shares its work (docs/architecture.md#screen-work-off-the-rpc-loop): the
// encoder workers, the queue's bounds, and how far the supervisor may fall behind reading answers.
import { EncoderPool, defaultWorkers } from './encoderPool.js';
import { QUEUE_LIMITS, type QueueLimits } from './screenQueue.js';

/** How the service shares its capture and encoding work (tests pass their own). */
export interface ScreenWork {
  pool: EncoderPool;
  limits: QueueLimits;
  /** Bytes of answers written to the supervisor that it has not read yet. */
  backlog: () => number;
}

/**
 * Answers the supervisor may leave unread before captures are refused busy: it parses each, and a
 * supervisor that falls behind must not grow the helper's memory without bound (a 4096-px JPEG at
 * quality 100 of a busy screen is 11 MiB of base64).
 */
export const MAX_ANSWER_BACKLOG = 64 * 1024 * 1024;

/** One encoder worker or two, and the running jobs one more than the workers: one job captures while the others encode. */
export function defaultWork(log: (line: string) => void, backlog: () => number = () => 0): ScreenWork {
  const workers = defaultWorkers();
  return { pool: new EncoderPool({ workers, log }), limits: { ...QUEUE_LIMITS, running: workers + 1 }, backlog };
}
