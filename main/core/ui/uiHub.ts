import {
  OverseerError,
  UI_COMMANDS,
  type UI_EVENTS,
  UiFrame,
  errorInfo,
  invalidArgument,
  type ErrorInfo,
  type UiCommand,
  type UiEvent,
  type UiSnapshot,
} from '../../../protocol/index.js';
import type { z } from 'zod';
import { snapshotFrames } from './uiFrames.js';

/** A connected UI (a WebSocket in browser mode, the renderer over IPC in the desktop app). */
export interface UiClient {
  send(frame: UiFrame): void;
}

/** Handlers for every command of the UI channel table. */
export type UiHandlers = { [C in UiCommand]: (params: z.infer<(typeof UI_COMMANDS)[C]['params']>) => Promise<z.infer<(typeof UI_COMMANDS)[C]['result']>> };

/**
 * The UI channel: commands validated against the table and dispatched by looping over it, events
 * broadcast to every connected UI. The transport (WebSocket, IPC) only moves frames.
 */
export class UiHub {
  private readonly clients = new Set<UiClient>();
  private readonly viewers = new Set<UiClient>();
  private readonly latest = new Map<UiEvent, () => unknown>();

  constructor(
    private readonly handlers: UiHandlers,
    private readonly log: (line: string) => void,
    /** A refusal for a valid command before it runs (the landing guard: docs/security.md#screen-input-where-windows-are-unknown). */
    private readonly refusal: (command: UiCommand, params: unknown) => ErrorInfo | undefined = () => undefined,
  ) {}

  /**
   * Adds a client and sends it the whole state. `shows: false` for a client that follows events
   * without showing the tree to anyone (the desktop app's tray): the tree is kept current only while
   * some client shows it.
   */
  async attach(client: UiClient, options: { shows?: boolean } = {}): Promise<() => void> {
    this.clients.add(client);
    if (options.shows !== false) this.viewers.add(client);
    const detach = (): void => this.detach(client);
    let data: UiSnapshot;
    try {
      data = await this.handlers.snapshot({});
    } catch (error) {
      detach();
      throw error;
    }
    // It went away while the snapshot was read (detach() from its transport's close): send it nothing.
    if (this.clients.has(client)) this.sendSnapshot(client, data);
    return detach;
  }

  /** A snapshot in frames of bounded size: the newest receipts with it, the older ones after it. */
  private sendSnapshot(client: UiClient, data: UiSnapshot): void {
    const { snapshot, backfill } = snapshotFrames(data);
    client.send({ type: 'event', event: 'snapshot', data: snapshot });
    for (const entries of backfill) client.send({ type: 'event', event: 'receipts_backfill', data: entries });
  }

  /**
   * Sends a client the whole state again: after its transport fell behind and dropped events
   * (docs/architecture.md#ui-channel), a fresh snapshot replaces what it missed.
   */
  async resync(client: UiClient): Promise<void> {
    const data = await this.handlers.snapshot({});
    if (this.clients.has(client)) this.sendSnapshot(client, data);
  }

  /**
   * Removes a client at once, attached or still attaching: its transport calls this when it closes,
   * so a UI that leaves before attach() resolves is never sent to and never counted.
   */
  detach(client: UiClient): void {
    this.clients.delete(client);
    this.viewers.delete(client);
  }

  /**
   * Broadcasts the latest state of an event once per turn of the event loop, however often it
   * changed in that turn: `data` is computed when it is sent.
   */
  emitLatest<E extends UiEvent>(event: E, data: () => z.infer<(typeof UI_EVENTS)[E]>): void {
    const first = this.latest.size === 0;
    this.latest.set(event, data);
    if (!first) return;
    setImmediate(() => {
      const due = [...this.latest];
      this.latest.clear();
      for (const [e, d] of due) this.emit(e, d() as never);
    });
  }

  /** Broadcasts an event (validated against the table in development runs by the receiver). */
  emit<E extends UiEvent>(event: E, data: z.infer<(typeof UI_EVENTS)[E]>): void {
    for (const c of this.clients) c.send({ type: 'event', event, data });
  }

  get size(): number {
    return this.clients.size;
  }

  /** Clients that show the tree to a person. */
  get watching(): number {
    return this.viewers.size;
  }

  /** Handles one raw frame from a client. */
  async receive(client: UiClient, raw: unknown): Promise<void> {
    const frame = UiFrame.safeParse(raw);
    if (!frame.success || frame.data.type !== 'command') {
      client.send({ type: 'error', id: -1, error: errorInfo('invalid_argument', 'not a UI command frame') });
      return;
    }
    const { id, command, params } = frame.data;
    const answer = await this.invoke(command, params);
    client.send(answer.ok ? { type: 'result', id, result: answer.result } : { type: 'error', id, error: answer.error });
  }

  /**
   * Runs one command: validated against the table, dispatched by looping over it. Never throws:
   * a refusal is an error of docs/tools.md#errors, anything unexpected is logged and answered `internal`.
   */
  async invoke(command: string, params: unknown): Promise<{ ok: true; result: unknown } | { ok: false; error: ErrorInfo }> {
    try {
      if (!Object.hasOwn(UI_COMMANDS, command)) throw new OverseerError(errorInfo('invalid_argument', `unknown UI command "${command.slice(0, 100)}"`));
      const c = command as UiCommand;
      const parsed = UI_COMMANDS[c].params.safeParse(params ?? {});
      if (!parsed.success) throw new OverseerError(invalidArgument(parsed.error, c));
      const refused = this.refusal(c, parsed.data);
      if (refused !== undefined) throw new OverseerError(refused);
      const handler = this.handlers[c] as (p: unknown) => Promise<unknown>;
      return { ok: true, result: await handler(parsed.data) };
    } catch (error) {
      if (error instanceof OverseerError) return { ok: false, error: error.info };
      this.log(`[ui] ${command.slice(0, 100)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { ok: false, error: errorInfo('internal', `internal error in ${command.slice(0, 100)}`) };
    }
  }
}
