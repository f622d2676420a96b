import type { z } from 'zod';
import { UI_COMMANDS, UI_EVENTS, UiFrame, type ErrorInfo, type OverseerBridge, type UiCommand, type UiEvent } from '../../protocol/index.js';
import { IpcTransport, WebSocketTransport, type Transport, type TransportFactory } from './transport.js';

/** Parameters of a UI command, as the table in protocol/uiChannel.ts defines them. */
export type CommandParams<C extends UiCommand> = z.input<(typeof UI_COMMANDS)[C]['params']>;
/** The result of a UI command. */
export type CommandResult<C extends UiCommand> = z.infer<(typeof UI_COMMANDS)[C]['result']>;
/** Data of each UI event. */
export type EventData<E extends UiEvent> = z.infer<(typeof UI_EVENTS)[E]>;
/** One validated event, discriminated by its name. */
export type AnyUiEvent = { [E in UiEvent]: { event: E; data: EventData<E> } }[UiEvent];

/**
 * Where this page's link to the supervisor stands (the UI channel). Not a remote desktop's state:
 * that is protocol/connections.ts's ConnectionStatus.
 */
export interface LinkStatus {
  /** `unauthorized`: the supervisor refused this page's credential (not signed in); it keeps trying slowly, in case another tab signs in. */
  state: 'connecting' | 'open' | 'closed' | 'unauthorized';
  /** Why the last connection closed. */
  why?: string;
  /** Failed attempts since the last open connection. */
  attempt: number;
  /** Epoch ms of the next reconnect attempt while closed. */
  retry_at?: number;
}

/** A command refused by the supervisor (an error of docs/tools.md#errors), or lost with the connection. */
export class ApiError extends Error {
  constructor(readonly info: ErrorInfo | { code: 'disconnected'; detail: string }) {
    super(info.detail);
    this.name = 'ApiError';
  }
}

/** The UI channel client. */
export interface Api {
  /** Sends a command and resolves with its validated result. */
  command<C extends UiCommand>(command: C, params: CommandParams<C>): Promise<CommandResult<C>>;
  /** Stops reconnecting and closes the channel. */
  close(): void;
}

export interface ApiOptions {
  transport: TransportFactory;
  onEvent: (event: AnyUiEvent) => void;
  onStatus: (status: LinkStatus) => void;
  /** Reports frames that fail validation (a protocol mismatch between UI and supervisor). */
  onProtocolError?: (what: string) => void;
  commandTimeoutMs?: number;
}

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
/** How often a page that is not signed in tries again (a sign-in in another tab sets the cookie for it too). */
const UNAUTHORIZED_RETRY_MS = 5000;

interface InFlight {
  command: UiCommand;
  resolve: (value: unknown) => void;
  reject: (error: ApiError) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** Opens the UI channel and keeps it open: on close it reconnects with backoff, forever, until close(). */
export function createApi(options: ApiOptions): Api {
  const timeoutMs = options.commandTimeoutMs ?? 30_000;
  const inFlight = new Map<number, InFlight>();
  let nextId = 1;
  let transport: Transport | undefined;
  let open = false;
  let stopped = false;
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const failAll = (why: string): void => {
    for (const [id, call] of inFlight) {
      clearTimeout(call.timer);
      call.reject(new ApiError({ code: 'disconnected', detail: `${call.command}: ${why}` }));
      inFlight.delete(id);
    }
  };

  const onFrame = (raw: unknown): void => {
    const parsed = UiFrame.safeParse(raw);
    if (!parsed.success) return options.onProtocolError?.('a frame that is not a UI frame');
    const frame = parsed.data;
    if (frame.type === 'event') {
      if (!Object.hasOwn(UI_EVENTS, frame.event)) return options.onProtocolError?.(`unknown event "${frame.event}"`);
      const event = frame.event as UiEvent;
      const data = UI_EVENTS[event].safeParse(frame.data);
      if (!data.success) return options.onProtocolError?.(`event "${event}" does not match its schema: ${data.error.message}`);
      options.onEvent({ event, data: data.data } as AnyUiEvent);
      return;
    }
    if (frame.type === 'command') return;
    const call = inFlight.get(frame.id);
    if (call === undefined) return;
    inFlight.delete(frame.id);
    clearTimeout(call.timer);
    if (frame.type === 'error') return call.reject(new ApiError(frame.error));
    const result = UI_COMMANDS[call.command].result.safeParse(frame.result);
    if (!result.success) call.reject(new ApiError({ code: 'internal', detail: `${call.command}: the result does not match its schema` }));
    else call.resolve(result.data);
  };

  const start = (): void => {
    if (stopped) return;
    retryTimer = undefined;
    options.onStatus({ state: 'connecting', attempt });
    const t = options.transport();
    transport = t;
    t.onopen = () => {
      open = true;
      attempt = 0;
      options.onStatus({ state: 'open', attempt });
    };
    t.onmessage = onFrame;
    t.onclose = (why, unauthorized) => {
      if (transport !== t) return;
      open = false;
      transport = undefined;
      failAll(why);
      if (stopped) return options.onStatus({ state: 'closed', why, attempt });
      const delay =
        unauthorized === true ? UNAUTHORIZED_RETRY_MS : (BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)] ?? 8000) * (0.8 + Math.random() * 0.4);
      attempt += 1;
      options.onStatus({ state: unauthorized === true ? 'unauthorized' : 'closed', why, attempt, retry_at: Date.now() + delay });
      retryTimer = setTimeout(start, delay);
    };
    t.start();
  };

  start();

  return {
    command<C extends UiCommand>(command: C, params: CommandParams<C>): Promise<CommandResult<C>> {
      if (!open || transport === undefined)
        return Promise.reject(new ApiError({ code: 'disconnected', detail: `${command}: not connected to the supervisor` }));
      const id = nextId++;
      const t = transport;
      return new Promise<CommandResult<C>>((resolve, reject) => {
        const timer = setTimeout(() => {
          inFlight.delete(id);
          reject(new ApiError({ code: 'timeout', detail: `${command}: no answer within ${timeoutMs} ms` }));
        }, timeoutMs);
        inFlight.set(id, { command, resolve: resolve as (value: unknown) => void, reject, timer });
        try {
          t.send({ type: 'command', id, command, params });
        } catch (error) {
          inFlight.delete(id);
          clearTimeout(timer);
          reject(new ApiError({ code: 'disconnected', detail: error instanceof Error ? error.message : String(error) }));
        }
      });
    },
    close(): void {
      stopped = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      transport?.close();
    },
  };
}

/**
 * The UI channel URL for this page: same origin, `/ui`. The person's credential is the HttpOnly
 * cookie the sign-in link set; it never appears in a URL. In development `?ws=` overrides it.
 */
export function uiChannelUrl(location: Location, dev: boolean): string {
  const override = new URLSearchParams(location.search).get('ws');
  if (dev && override !== null) return override;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ui`;
}

/**
 * Connects to the supervisor's UI channel: over the preload bridge inside the desktop app, over
 * WebSocket in browser mode. Same frames either way.
 */
export function connect(where: { bridge?: OverseerBridge | undefined; url: string }, handlers: Omit<ApiOptions, 'transport'>): Api {
  const bridge = where.bridge;
  return createApi({ ...handlers, transport: bridge !== undefined ? () => new IpcTransport(bridge) : () => new WebSocketTransport(where.url) });
}
