// Encoding off the helper's RPC loop (docs/architecture.md#screen-work-off-the-rpc-loop): fitting
// and encoding a screen frame is CPU-bound (a 1920x1080 JPEG at quality 100 is ~0.7 s of jpeg-js),
// and while the loop encodes it answers nothing, not even the watchdog's hello. Frames go to
// worker threads; their bytes are shared (SharedArrayBuffer), not copied. The person's pictures go
// ahead of agents' in the pool's own queue.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { OverseerError, fail, type ErrorInfo } from '../../protocol/errors.js';
import { encodeFrame, type EncodeFrame, type EncodeRequest, type EncodedFrame } from './image/encodeFrame.js';

/** Longest one encode may take before its worker is ended and the call answered `timeout`. */
export const ENCODE_DEADLINE_MS = 30_000;

/** Workers in a row that may fail to start before encoding moves onto the helper's thread. */
const MAX_START_FAILURES = 3;

/** Worker threads by default: one core stays for the RPC loop and the accessibility backend. */
export function defaultWorkers(): number {
  return Math.min(2, Math.max(1, availableParallelism() - 1));
}

/** Options of an EncoderPool. */
export interface EncoderPoolOptions {
  /** Worker threads; 0 encodes on the calling thread (what a helper does when no worker can start). */
  workers?: number;
  /** See ENCODE_DEADLINE_MS. */
  deadlineMs?: number;
  log?: (line: string) => void;
}

interface Job {
  id: number;
  request: EncodeRequest;
  priority: boolean;
  resolve: (result: EncodedFrame) => void;
  reject: (error: OverseerError) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type Answer = { ready: true } | { log: string } | { id: number; result: EncodedFrame } | { id: number; error: ErrorInfo | { message: string } };

/** Set by a single-file helper (helper/remoteMain.ts): the file its encoder workers run. */
let ownEncoderFile: URL | undefined;

/** The workers run this file (a single-file bundle that runs the encoder when it is not the main thread). */
export function encodeWithFile(file: URL): void {
  ownEncoderFile = file;
}

/**
 * The worker's module. From the sources this file is helper/screen/encoderPool.ts and the worker
 * encodeWorker.ts beside it; bundled (scripts/buildShell.mjs), import.meta.url is the bundle's own
 * file (dist/helper/main.mjs) and the worker's bundle, encodeWorker.mjs, sits beside it.
 */
function workerSource(): { code: string; eval: true } | { file: URL; eval: false } {
  if (ownEncoderFile !== undefined) return { file: ownEncoderFile, eval: false };
  if (!import.meta.url.endsWith('.ts')) return { file: new URL('./encodeWorker.mjs', import.meta.url), eval: false };
  // Node 20 does not run the parent's --import hooks in a worker: register tsx's loader there first.
  const api = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./encodeWorker.ts', import.meta.url).href;
  return { code: `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, eval: true };
}

/** A frame whose bytes workers can read without a copy: shared memory (copied there once if it is not). */
export function sharedFrame<F extends EncodeFrame & { data: Buffer }>(frame: F): F {
  if (frame.data.buffer instanceof SharedArrayBuffer) return frame;
  const shared = Buffer.from(new SharedArrayBuffer(frame.data.length));
  frame.data.copy(shared);
  return { ...frame, data: shared };
}

/** Worker threads that encode frames, at most one frame each at a time; jobs wait in order, the person's first. */
export class EncoderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private inline: boolean;
  private readonly size: number;
  private readonly deadlineMs: number;
  private readonly log: (line: string) => void;
  private closed = false;
  private everReady = false;
  private startFailures = 0;
  private inlineBusy = false;

  constructor(options: EncoderPoolOptions = {}) {
    this.size = options.workers ?? defaultWorkers();
    this.inline = this.size === 0;
    this.deadlineMs = options.deadlineMs ?? ENCODE_DEADLINE_MS;
    this.log = options.log ?? (() => {});
  }

  /** Encodes one frame; `priority` (the person's pictures) goes ahead of every other waiting job. */
  encode(request: EncodeRequest, options: { priority?: boolean } = {}): Promise<EncodedFrame> {
    if (this.closed) return Promise.reject(fail('capture_unavailable', 'the screen encoder is closed', { reason: 'encoder_closed' }));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, request, priority: options.priority === true, resolve, reject };
      if (job.priority) {
        // After the other priority jobs, before everyone else's.
        const at = this.queue.findIndex((j) => !j.priority);
        this.queue.splice(at === -1 ? this.queue.length : at, 0, job);
      } else this.queue.push(job);
      this.pump();
    });
  }

  /** Jobs waiting for a worker, and jobs being encoded. */
  get load(): { waiting: number; encoding: number; workers: number; inline: boolean } {
    return { waiting: this.queue.length, encoding: this.slots.filter((s) => s.job !== undefined).length, workers: this.slots.length, inline: this.inline };
  }

  /** Ends the workers; jobs still waiting are answered capture_unavailable. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(fail('capture_unavailable', 'the screen encoder closed', { reason: 'encoder_closed' }));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private pump(): void {
    if (this.inline) {
      if (this.inlineBusy) return;
      const job = this.queue.shift();
      if (job === undefined) return;
      this.inlineBusy = true;
      // One job a turn of the loop, so whatever else is waiting (a hello, a read) gets its turn between them.
      setImmediate(() => {
        try {
          job.resolve(encodeFrame(job.request));
        } catch (error) {
          job.reject(asOverseerError(error));
        } finally {
          this.inlineBusy = false;
        }
        this.pump();
      });
      return;
    }
    while (!this.inline && this.slots.length < this.size && this.slots.filter((s) => s.job === undefined).length < this.queue.length) this.spawn();
    if (this.inline) return this.pump();
    for (const slot of this.slots) {
      if (!slot.ready || slot.job !== undefined || this.queue.length === 0) continue;
      this.start(slot, this.queue.shift() as Job);
    }
    this.hold();
  }

  /** Workers hold the process open while there is work, and never when idle (the helper exits when its parent goes). */
  private hold(): void {
    const busy = this.queue.length > 0 || this.slots.some((s) => s.job !== undefined);
    for (const slot of this.slots) {
      if (busy) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.timer = setTimeout(() => {
      this.log(`[screen] an encode of ${job.request.frame.width}x${job.request.frame.height} ran past ${this.deadlineMs} ms: its worker is ended`);
      this.drop(slot, fail('timeout', `encoding the picture took longer than ${this.deadlineMs / 1000} s; nothing was sent`, { reason: 'encode_deadline' }));
    }, this.deadlineMs);
    slot.worker.postMessage({ id: job.id, request: job.request });
  }

  private spawn(): void {
    const source = workerSource();
    // Streams of its own, never read: piped, a worker's stdout would go to the helper's, which is the wire, and Node under
    // Wine cannot open the helper's stdio as streams at all. The worker posts what it prints instead.
    const options = { stdout: true, stderr: true } as const;
    let worker: Worker;
    try {
      worker = source.eval ? new Worker(source.code, { ...options, eval: true }) : new Worker(source.file, options);
    } catch (error) {
      this.log(`[screen] no encoder worker (${error instanceof Error ? error.message : String(error)}): encoding on the helper's own thread`);
      this.inline = true;
      return;
    }
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined };
    this.slots.push(slot);
    worker.on('message', (answer: Answer) => this.answered(slot, answer));
    worker.on('error', (error) => this.failed(slot, error.message));
    worker.on('exit', (code) => this.failed(slot, `exited with ${code}`));
    // Last: listeners added after unref() would hold the process open again (see hold()).
    worker.unref();
  }

  private answered(slot: Slot, answer: Answer): void {
    if ('log' in answer) {
      this.log(`[screen] encoder: ${answer.log.trimEnd().slice(0, 2000)}`);
      return;
    }
    if ('ready' in answer) {
      this.log(`[screen] encoder worker ready (thread ${slot.worker.threadId}, ${this.slots.length} of ${this.size})`);
      slot.ready = true;
      this.everReady = true;
      this.startFailures = 0;
      this.pump();
      return;
    }
    const job = slot.job;
    if (job === undefined || job.id !== answer.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    if ('result' in answer) job.resolve(answer.result);
    else if ('code' in answer.error) job.reject(new OverseerError(answer.error));
    else {
      this.log(`[screen] encoder error: ${answer.error.message}`);
      job.reject(fail('internal', 'encoding the picture failed'));
    }
    this.pump();
  }

  /** A worker that failed: its job (if any) is answered, and the next job gets a new worker. */
  private failed(slot: Slot, why: string): void {
    if (!this.slots.includes(slot) || this.closed) return;
    if (!slot.ready) {
      this.slots.splice(this.slots.indexOf(slot), 1);
      this.startFailures++;
      // A worker that cannot start (its module missing from a bundle, threads not allowed) will not start next time either: encode
      // here instead, and say so. Workers already running finish what they have.
      if (this.startFailures >= MAX_START_FAILURES || !this.everReady) {
        this.log(`[screen] the encoder worker did not start (${why}): encoding on the helper's own thread`);
        this.inline = true;
      }
      this.pump();
      return;
    }
    this.log(`[screen] the encoder worker failed: ${why}`);
    this.drop(slot, fail('capture_unavailable', 'the screen encoder failed while encoding this picture', { reason: 'encoder_failed' }));
  }

  private drop(slot: Slot, error: OverseerError): void {
    clearTimeout(slot.timer);
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    void slot.worker.terminate();
    const job = slot.job;
    slot.job = undefined;
    job?.reject(error);
    this.pump();
  }
}

function asOverseerError(error: unknown): OverseerError {
  return error instanceof OverseerError ? error : fail('internal', `encoding the picture failed: ${error instanceof Error ? error.message : String(error)}`);
}
