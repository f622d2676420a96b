import type { IpcAnswer, OverseerBridge, UiCommand } from '../../protocol/index.js';

/**
 * How frames move between the UI and the supervisor. The same five-member shape as the MCP SDK's
 * Transport: the WebSocket transport below is used in browser mode; the Electron shell will plug
 * an IPC transport into the same slot.
 */
export interface Transport {
  /** Opens the channel; `onopen` fires when frames can be sent. */
  start(): void;
  /** Sends one frame (a plain JSON value). */
  send(frame: unknown): void;
  /** Closes the channel; `onclose` fires once afterwards. */
  close(): void;
  onopen?: () => void;
  /** One decoded frame, not yet validated. */
  onmessage?: (frame: unknown) => void;
  /** The channel closed (by either side); `why` is for people; `unauthorized` when the supervisor refused this page's credential. */
  onclose?: (why: string, unauthorized?: boolean) => void;
}

/** The close code the supervisor sends a page without the person's credential (main/core/server/uiSocket.ts). */
export const UNAUTHORIZED_CLOSE = 4401;

/** Makes a fresh transport for each connection attempt. */
export type TransportFactory = () => Transport;

/** A Transport over one WebSocket. */
export class WebSocketTransport implements Transport {
  private socket: WebSocket | undefined;
  private closed = false;
  onopen?: () => void;
  onmessage?: (frame: unknown) => void;
  onclose?: (why: string, unauthorized?: boolean) => void;

  constructor(private readonly url: string) {}

  start(): void {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => this.onopen?.();
    socket.onmessage = (event: MessageEvent) => {
      if (typeof event.data !== 'string') return;
      let frame: unknown;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onmessage?.(frame);
    };
    socket.onclose = (event: CloseEvent) => this.finish(event.reason !== '' ? event.reason : `closed (code ${event.code})`, event.code === UNAUTHORIZED_CLOSE);
    // An error is always followed by close; the close handler reports it.
    socket.onerror = () => {};
  }

  send(frame: unknown): void {
    if (this.socket?.readyState !== WebSocket.OPEN) throw new Error('the connection to the supervisor is not open');
    this.socket.send(JSON.stringify(frame));
  }

  close(): void {
    this.socket?.close();
    this.finish('closed by the UI');
  }

  private finish(why: string, unauthorized = false): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(why, unauthorized);
  }
}

/**
 * A Transport over the desktop app's preload bridge (`window.overseer`): command frames become IPC
 * calls, their answers come back as result/error frames, and UI events arrive as event frames.
 * The first frame after opening is a fresh snapshot, as over WebSocket.
 */
export class IpcTransport implements Transport {
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  onopen?: () => void;
  onmessage?: (frame: unknown) => void;
  onclose?: (why: string) => void;

  constructor(private readonly bridge: OverseerBridge) {}

  start(): void {
    this.unsubscribe = this.bridge.onEvent((frame) => {
      if (!this.closed) this.onmessage?.(frame);
    });
    queueMicrotask(() => {
      if (this.closed) return;
      this.onopen?.();
      void this.bridge.commands.snapshot({}).then(
        (answer) => {
          if (answer.ok && !this.closed) this.onmessage?.({ type: 'event', event: 'snapshot', data: answer.result });
        },
        (error: unknown) => this.finish(`the desktop app did not answer: ${String(error)}`),
      );
    });
  }

  send(frame: unknown): void {
    if (this.closed) throw new Error('the connection to the supervisor is not open');
    const f = frame as { type?: unknown; id?: unknown; command?: unknown; params?: unknown };
    if (f.type !== 'command' || typeof f.id !== 'number' || typeof f.command !== 'string') return;
    const id = f.id;
    const call = Object.hasOwn(this.bridge.commands, f.command) ? this.bridge.commands[f.command as UiCommand] : undefined;
    const answer: Promise<IpcAnswer> =
      call !== undefined
        ? call(f.params)
        : Promise.resolve({ ok: false, error: { code: 'invalid_argument', detail: `unknown UI command "${f.command.slice(0, 100)}"` } });
    void answer.then(
      (a) => this.onmessage?.(a.ok ? { type: 'result', id, result: a.result } : { type: 'error', id, error: a.error }),
      (error: unknown) => this.onmessage?.({ type: 'error', id, error: { code: 'internal', detail: `IPC failed: ${String(error)}` } }),
    );
  }

  close(): void {
    this.finish('closed by the UI');
  }

  private finish(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    this.onclose?.(why);
  }
}
