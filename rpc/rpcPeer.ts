import { type z } from 'zod';
import {
  CANCEL_METHOD,
  CancelParams,
  ErrorCode,
  OverseerError,
  RPC_CODES,
  RpcFrame,
  errorInfo,
  invalidArgument,
  type ErrorInfo,
  type RpcError,
} from '../protocol/index.js';
import type { Transport } from './transport.js';

/** Node's timers fire at once past 2^31−1 ms; longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Handles one inbound request; throw OverseerError for expected failures. */
export type RequestHandler = (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>;

/** Options of an outbound request. */
export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: OverseerError) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  cleanup: () => void;
}

/**
 * One JSON-RPC 2.0 peer: request ids, correlation, timeouts and cancellation in both directions.
 * Expected errors travel as {code, message, data: {code, data}} and are rebuilt as OverseerError.
 */
export class RpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly inbound = new Map<string | number, AbortController>();
  private closed = false;
  private frames = 0;
  /** Called when the transport closes (after pending requests were rejected). */
  onclose?: () => void;
  /** Called for inbound notifications other than cancellation. */
  onnotification?: (method: string, params: unknown) => void;

  constructor(
    private readonly transport: Transport,
    private readonly handler?: RequestHandler,
    private readonly log: (line: string) => void = () => {},
  ) {
    transport.onmessage = (line) => this.receive(line);
    transport.onoversize = (bytes) => {
      this.frames++;
      this.sendError(null, RPC_CODES.invalidRequest, errorInfo('invalid_argument', `frame of ${bytes} bytes exceeds the frame limit; dropped`));
    };
    transport.onclose = () => this.shutdown();
  }

  /** Starts reading from the transport. */
  start(): void {
    this.transport.start();
  }

  /** Sends a request and resolves with its result, or rejects with an OverseerError. */
  request(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new OverseerError(errorInfo('helper_unavailable', 'connection closed')));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.settle(id, undefined, new OverseerError(errorInfo('timeout', `${method} cancelled`)));
        this.notify(CANCEL_METHOD, { id });
      };
      const entry: Pending = {
        resolve,
        reject,
        timer: undefined,
        cleanup: () => options.signal?.removeEventListener('abort', onAbort),
      };
      if (options.timeoutMs !== undefined) {
        entry.timer = setTimeout(
          () => {
            this.settle(id, undefined, new OverseerError(errorInfo('timeout', `${method} got no answer within ${options.timeoutMs} ms`)));
            this.notify(CANCEL_METHOD, { id });
          },
          Math.min(Math.max(options.timeoutMs, 0), MAX_TIMER_MS),
        );
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, entry);
      this.transport.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    if (!this.closed) this.transport.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /** Closes the transport; pending requests reject with helper_unavailable. */
  close(): void {
    this.transport.close();
  }

  /** Frames received so far, of any kind: a peer that sends any is alive, even while an answer is slow (the helper watchdog). */
  get heard(): number {
    return this.frames;
  }

  /** Number of outbound requests awaiting an answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.pending.keys()])
      this.settle(id, undefined, new OverseerError(errorInfo('helper_unavailable', 'connection closed while the call was in flight')));
    for (const controller of this.inbound.values()) controller.abort();
    this.onclose?.();
  }

  private settle(id: number, result: unknown, error?: OverseerError): void {
    const entry = this.pending.get(id);
    if (entry === undefined) return;
    this.pending.delete(id);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.cleanup();
    if (error === undefined) entry.resolve(result);
    else entry.reject(error);
  }

  private receive(line: string): void {
    this.frames++;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.sendError(null, RPC_CODES.parseError, errorInfo('invalid_argument', 'not valid JSON'));
      return;
    }
    const parsed = RpcFrame.safeParse(json);
    if (!parsed.success) {
      const id = typeof json === 'object' && json !== null && 'id' in json && (typeof json.id === 'number' || typeof json.id === 'string') ? json.id : null;
      this.sendError(id, RPC_CODES.invalidRequest, errorInfo('invalid_argument', 'not a JSON-RPC 2.0 frame'));
      return;
    }
    const frame = parsed.data;
    if ('method' in frame) {
      if ('id' in frame) this.handleRequest(frame.id, frame.method, frame.params);
      else this.handleNotification(frame.method, frame.params);
    } else if ('result' in frame) {
      if (typeof frame.id === 'number') this.settle(frame.id, frame.result);
    } else if (typeof frame.id === 'number') {
      this.settle(frame.id, undefined, rebuildError(frame.error));
    }
  }

  private handleNotification(method: string, params: unknown): void {
    if (method === CANCEL_METHOD) {
      const parsed = CancelParams.safeParse(params);
      if (parsed.success) this.inbound.get(parsed.data.id)?.abort();
      return;
    }
    this.onnotification?.(method, params);
  }

  private handleRequest(id: string | number, method: string, params: unknown): void {
    if (this.handler === undefined || this.inbound.has(id)) {
      this.sendError(
        id,
        RPC_CODES.invalidRequest,
        errorInfo('invalid_argument', this.handler === undefined ? 'this peer serves no requests' : `request id ${id} is already in flight`),
      );
      return;
    }
    const controller = new AbortController();
    this.inbound.set(id, controller);
    this.handler(method, params, controller.signal).then(
      (result) => {
        this.inbound.delete(id);
        if (controller.signal.aborted && this.closed) return;
        this.send({ jsonrpc: '2.0', id, result });
      },
      (error: unknown) => {
        this.inbound.delete(id);
        if (error instanceof OverseerError) {
          const rpc = error.code === 'invalid_argument' ? RPC_CODES.invalidParams : RPC_CODES.applicationError;
          this.sendError(id, rpc, error.info);
        } else {
          this.log(`[rpc] internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          this.sendError(id, RPC_CODES.internalError, errorInfo('internal', `internal error in ${method}`));
        }
      },
    );
  }

  private sendError(id: string | number | null, code: number, info: ErrorInfo): void {
    const error: RpcError = { code, message: info.detail, data: info.data === undefined ? { code: info.code } : { code: info.code, data: info.data } };
    this.send({ jsonrpc: '2.0', id, error });
  }

  private send(frame: object): void {
    if (!this.closed) this.transport.send(JSON.stringify(frame));
  }
}

/** Rebuilds an OverseerError from a JSON-RPC error (Playwright's parseError). */
export function rebuildError(error: RpcError): OverseerError {
  const code = ErrorCode.safeParse(error.data?.code);
  const data = error.data?.data;
  return new OverseerError(errorInfo(code.success ? code.data : 'internal', error.message, data));
}

/** Validates params against a schema, turning failures into invalid_argument. */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  throw new OverseerError(invalidArgument(parsed.error, what));
}
