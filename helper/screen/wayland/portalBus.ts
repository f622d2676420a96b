// The desktop portals over the session bus (docs/wayland.md#portals): method calls with timeouts,
// and portal requests, whose answer comes later as a Request::Response signal. The signal is
// subscribed before the call is made (its object path is known in advance from the handle token),
// so an answer that comes at once is never missed. A request the caller stops waiting for is closed,
// which takes its dialog off the person's screen.

import dbus from 'dbus-next';
import { withTimeout } from '../../../base/timeout.js';
import { callWithin, type HandlerBus } from '../../platform/dbus/boundedCall.js';

export const PORTAL = { destination: 'org.freedesktop.portal.Desktop', path: '/org/freedesktop/portal/desktop' } as const;

/** A portal's answer: 0 done, 1 the person cancelled, 2 another failure (the permission is denied, the backend failed). */
export interface PortalResponse {
  code: number;
  results: Record<string, unknown>;
}

/** A call that got no reply in time, or a bus that went away. */
export class PortalBusError extends Error {
  constructor(
    message: string,
    /** The D-Bus error name when the service answered with an error. */
    readonly errorName?: string,
  ) {
    super(message);
  }
}

/** A portal request in flight. */
export interface PendingRequest {
  answer: Promise<PortalResponse>;
  /** Withdraws the request (and its dialog). */
  close(): void;
}

type Bus = HandlerBus & { name?: string | null };

const HANDLE_PREFIX = 'overseer';

/** Plain values from a{sv} results: the variants unwrapped, recursively for nested dictionaries. */
export function unwrap(value: unknown): unknown {
  if (value instanceof dbus.Variant) return unwrap(value.value);
  if (Array.isArray(value)) return value.map(unwrap);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, unwrap(v)]));
  }
  return value;
}

/** An option for an a{sv} argument. */
export const option = (signature: string, value: unknown): dbus.Variant => new dbus.Variant(signature, value);

export class PortalBus {
  private tokens = 0;
  private closed = false;
  private readonly disconnectHandlers = new Set<() => void>();
  private readonly signalHandlers = new Set<(path: string, iface: string, member: string, body: unknown[], sender: string) => void>();

  private constructor(private readonly bus: Bus) {
    bus.on('message', (msg: dbus.Message) => {
      if (msg.type !== dbus.MessageType.SIGNAL) return;
      for (const handler of this.signalHandlers) handler(msg.path ?? '', msg.interface ?? '', msg.member ?? '', msg.body as unknown[], msg.sender ?? '');
    });
    const stream = (bus as unknown as { _connection?: { stream?: { on(ev: string, cb: () => void): void } } })._connection?.stream;
    stream?.on('close', () => {
      this.closed = true;
      const handlers = [...this.disconnectHandlers];
      this.disconnectHandlers.clear();
      for (const handler of handlers) handler();
    });
  }

  /** Connects to the session bus at `address` (DBUS_SESSION_BUS_ADDRESS); rejects with why not. */
  static async connect(address: string | undefined, timeoutMs: number): Promise<PortalBus> {
    if (address === undefined || address === '') throw new PortalBusError('DBUS_SESSION_BUS_ADDRESS is not set: there is no session bus');
    const bus = dbus.sessionBus({ busAddress: address }) as Bus;
    const connected = new Promise<void>((resolve, reject) => {
      bus.once('connect', () => resolve());
      bus.once('error', (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))));
    });
    try {
      await timed(connected, timeoutMs, 'the session bus did not answer');
      // The unique name (needed for request paths) arrives with the Hello reply.
      for (const deadline = Date.now() + timeoutMs; (bus.name ?? '') === '';) {
        if (Date.now() > deadline) throw new PortalBusError('the session bus gave no unique name');
        await new Promise((r) => setTimeout(r, 5));
      }
    } catch (error) {
      bus.disconnect();
      throw error instanceof PortalBusError
        ? error
        : new PortalBusError(`cannot connect to the session bus: ${error instanceof Error ? error.message : String(error)}`);
    }
    bus.on('error', () => {});
    return new PortalBus(bus);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Calls a method; rejects with PortalBusError (its errorName set when the service answered with an error). */
  async call(destination: string, path: string, iface: string, member: string, signature: string, body: unknown[], timeoutMs: number): Promise<unknown[]> {
    if (this.closed) throw new PortalBusError('the session bus connection is closed');
    const msg = new dbus.Message({ destination, path, interface: iface, member, signature, body });
    try {
      const reply = await callWithin(this.bus, msg, timeoutMs, () => new PortalBusError(`${iface}.${member} got no reply within ${timeoutMs} ms`));
      return (reply?.body ?? []) as unknown[];
    } catch (error) {
      if (error instanceof dbus.DBusError) throw new PortalBusError(error.text || error.type, error.type);
      throw error instanceof PortalBusError ? error : new PortalBusError(error instanceof Error ? error.message : String(error));
    }
  }

  /** Calls a method of the portal object. */
  portal(iface: string, member: string, signature: string, body: unknown[], timeoutMs: number): Promise<unknown[]> {
    return this.call(PORTAL.destination, PORTAL.path, iface, member, signature, body, timeoutMs);
  }

  /** Reads a property of the portal object; undefined when the portal does not have it (an interface it does not offer). */
  async property(iface: string, name: string, timeoutMs: number): Promise<unknown> {
    try {
      const [value] = await this.portal('org.freedesktop.DBus.Properties', 'Get', 'ss', [iface, name], timeoutMs);
      return unwrap(value);
    } catch (error) {
      if (error instanceof PortalBusError && error.errorName !== undefined) return undefined;
      throw error;
    }
  }

  /**
   * Makes a portal request: `invoke` gets the handle token to put in its options and makes the
   * call. Resolves once the call is made, with the request: its answer (the Response; it rejects
   * if the bus goes away first) and `close`, which takes the request's dialog, if any, off the
   * person's screen. A caller that stops waiting decides whether to close it.
   */
  async start(invoke: (handleToken: string) => Promise<unknown>, timeoutMs: number): Promise<PendingRequest> {
    const token = `${HANDLE_PREFIX}${process.pid}_${++this.tokens}`;
    const sender = (this.bus.name ?? '').replace(/^:/, '').replace(/\./g, '_');
    const path = `${PORTAL.path}/request/${sender}/${token}`;
    const rule = `type='signal',interface='org.freedesktop.portal.Request',member='Response',path='${path}'`;
    await this.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'AddMatch', 's', [rule], timeoutMs);
    let handler: ((path: string, iface: string, member: string, body: unknown[], sender: string) => void) | undefined;
    let off = (): void => undefined;
    // Only the portal answers its requests: a signal sent straight to this connection by another client is not an answer.
    let owner: string | undefined;
    const settle = (): void => {
      if (handler !== undefined) this.signalHandlers.delete(handler);
      off();
      void this.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RemoveMatch', 's', [rule], 2000).catch(() => undefined);
    };
    const answer = new Promise<PortalResponse>((resolve, reject) => {
      handler = (p, iface, member, body, sender) => {
        if (p !== path || iface !== 'org.freedesktop.portal.Request' || member !== 'Response' || sender !== owner) return;
        resolve({ code: Number(body[0]), results: (unwrap(body[1]) ?? {}) as Record<string, unknown> });
      };
      this.signalHandlers.add(handler);
      off = this.onDisconnect(() => reject(new PortalBusError('the session bus connection closed')));
    });
    answer.then(settle, settle);
    const close = (): void => {
      void this.call(PORTAL.destination, path, 'org.freedesktop.portal.Request', 'Close', '', [], 2000).catch(() => undefined);
    };
    try {
      // Known before the call, so an answer that comes at once is recognised.
      owner = await this.portalOwner(timeoutMs);
      await invoke(token);
    } catch (error) {
      settle();
      throw error;
    }
    return { answer, close };
  }

  /** A request whose answer is awaited for at most `timeoutMs` (or until `signal` aborts); then it is closed. */
  async request(invoke: (handleToken: string) => Promise<unknown>, timeoutMs: number, signal?: AbortSignal): Promise<PortalResponse> {
    const pending = await this.start(invoke, timeoutMs);
    try {
      return await waitFor(pending.answer, timeoutMs, signal);
    } catch (error) {
      pending.close();
      throw error;
    }
  }

  /** The unique name of the portal's process, started by the bus if it does not run yet. */
  private async portalOwner(timeoutMs: number): Promise<string> {
    await this.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'StartServiceByName', 'su', [PORTAL.destination, 0], timeoutMs);
    const [owner] = await this.call(
      'org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus',
      'GetNameOwner',
      's',
      [PORTAL.destination],
      timeoutMs,
    );
    if (typeof owner !== 'string' || owner === '') throw new PortalBusError(`${PORTAL.destination} has no owner`);
    return owner;
  }

  /** Calls `handler` once when the portal closes a session (the person stopped sharing, or the compositor ended it). */
  async onSessionClosed(sessionPath: string, handler: () => void, timeoutMs: number): Promise<void> {
    const rule = `type='signal',interface='org.freedesktop.portal.Session',member='Closed',path='${sessionPath}'`;
    await this.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'AddMatch', 's', [rule], timeoutMs);
    const owner = await this.portalOwner(timeoutMs);
    const once = (path: string, iface: string, member: string, _body: unknown[], sender: string): void => {
      if (path !== sessionPath || iface !== 'org.freedesktop.portal.Session' || member !== 'Closed' || sender !== owner) return;
      this.signalHandlers.delete(once);
      handler();
    };
    this.signalHandlers.add(once);
  }

  /** Calls `handler` once if the connection drops; returns what stops it from being called. */
  onDisconnect(handler: () => void): () => void {
    if (this.closed) {
      handler();
      return () => undefined;
    }
    this.disconnectHandlers.add(handler);
    return () => this.disconnectHandlers.delete(handler);
  }

  disconnect(): void {
    this.closed = true;
    this.bus.disconnect();
  }
}

/** `answer`, unless `timeoutMs` passes or `signal` aborts first (PortalBusError). */
export function waitFor<T>(answer: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal?.aborted === true) reject(new PortalBusError('the caller stopped waiting'));
    signal?.addEventListener('abort', () => reject(new PortalBusError('the caller stopped waiting')), { once: true });
  });
  return timed(Promise.race([answer, aborted]), timeoutMs, `no answer within ${timeoutMs} ms`);
}

/** `promise`, or a PortalBusError saying `what` once `ms` have passed (a method call is callWithin's, which also drops the reply's handler). */
function timed<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return withTimeout(promise, ms, () => new PortalBusError(what));
}
