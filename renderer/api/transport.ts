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
  /** The channel closed (by either side); `why` is for people. */
  onclose?: (why: string) => void;
}

/** Makes a fresh transport for each connection attempt. */
export type TransportFactory = () => Transport;

/** A Transport over one WebSocket. */
export class WebSocketTransport implements Transport {
  private socket: WebSocket | undefined;
  private closed = false;
  onopen?: () => void;
  onmessage?: (frame: unknown) => void;
  onclose?: (why: string) => void;

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
    socket.onclose = (event: CloseEvent) => this.finish(event.reason !== '' ? event.reason : `closed (code ${event.code})`);
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

  private finish(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(why);
  }
}
