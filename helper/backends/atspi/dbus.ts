import dbus from 'dbus-next';
import { withTimeout } from '../../../base/timeout.js';
import { callWithin, type HandlerBus } from '../../platform/dbus/boundedCall.js';
import { fail } from '../../../protocol/index.js';
import { AppBreakers } from './breaker.js';
import { installFastCalls } from './fastCalls.js';
import { RawBody, enableRawReplies, expectRaw, forgetRaw, type RawWanted } from './rawReplies.js';

export { RawBody };

/** D-Bus failure that came back as an error reply (the call reached the app). */
export class DBusReplyError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(`${errorName}: ${message}`);
  }
}

/** A call that got no reply within its timeout (the app may be frozen). */
export class DBusTimeoutError extends Error {}

/** `promise`, or a DBusTimeoutError once `ms` have passed (a method call is callWithin's, which also drops the reply's handler). */
function timed<T>(promise: Promise<T>, ms: number): Promise<T> {
  return withTimeout(promise, ms, () => new DBusTimeoutError(`no reply within ${ms} ms`));
}

const DBUS = { destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus' };
type Bus = HandlerBus;

/** Resolves the accessibility bus address from the session bus (org.a11y.Bus.GetAddress). */
async function a11yAddress(timeoutMs: number): Promise<string> {
  if (process.env['AT_SPI_BUS_ADDRESS'] !== undefined && process.env['AT_SPI_BUS_ADDRESS'] !== '') return process.env['AT_SPI_BUS_ADDRESS'];
  if (process.env['DBUS_SESSION_BUS_ADDRESS'] === undefined)
    throw fail('no_interactive_desktop', 'DBUS_SESSION_BUS_ADDRESS is not set: there is no desktop session to read');
  const session = dbus.sessionBus() as Bus;
  session.on('error', () => {});
  try {
    const reply = await timed(
      session.call(new dbus.Message({ destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: 'org.a11y.Bus', member: 'GetAddress' })),
      timeoutMs,
    );
    const address: unknown = reply?.body[0];
    if (typeof address !== 'string' || address === '') throw fail('accessibility_unavailable', 'org.a11y.Bus returned no address', { reason: 'bus_down' });
    return address;
  } catch (error) {
    if (error instanceof Error && error.name === 'OverseerError') throw error;
    throw fail('accessibility_unavailable', `the accessibility bus could not be found: ${error instanceof Error ? error.message : String(error)}`, {
      reason: 'bus_down',
    });
  } finally {
    session.disconnect();
  }
}

/**
 * Turns the session's accessibility on (`org.a11y.Status.IsEnabled`), as an assistive technology
 * does (Orca sets the same property): Firefox, Qt and other toolkits only join the accessibility
 * bus once it is on (docs/compatibility.md#accessibility-on). Answers what it found: `on` (already
 * on), `turned_on`, or why it could not.
 */
export async function enableAccessibility(timeoutMs: number): Promise<{ done: 'on' | 'turned_on' } | { failed: string }> {
  if (process.env['DBUS_SESSION_BUS_ADDRESS'] === undefined) return { failed: 'no session bus' };
  const session = dbus.sessionBus() as Bus;
  session.on('error', () => {});
  const props = { destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: 'org.freedesktop.DBus.Properties' };
  try {
    const got = await timed(session.call(new dbus.Message({ ...props, member: 'Get', signature: 'ss', body: ['org.a11y.Status', 'IsEnabled'] })), timeoutMs);
    const first: unknown = got?.body[0];
    const value: unknown = first instanceof dbus.Variant ? first.value : first;
    if (value === true) return { done: 'on' };
    await timed(
      session.call(new dbus.Message({ ...props, member: 'Set', signature: 'ssv', body: ['org.a11y.Status', 'IsEnabled', new dbus.Variant('b', true)] })),
      timeoutMs,
    );
    return { done: 'turned_on' };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  } finally {
    session.disconnect();
  }
}

/** The accessibility bus: method calls with explicit timeouts, and signal delivery. */
export class A11yBus {
  /** Applications that stopped answering get no more calls until they answer a probe (breaker.ts). */
  readonly breakers: AppBreakers;

  private constructor(
    private readonly bus: Bus,
    /** The connection's stream when it can deliver raw reply bodies (see rawReplies.ts). */
    private readonly rawStream: object | undefined,
    log: (line: string) => void,
  ) {
    this.breakers = new AppBreakers(async (app, timeoutMs) => {
      await this.exchange(new dbus.Message({ destination: app, path: '/', interface: 'org.freedesktop.DBus.Peer', member: 'Ping' }), timeoutMs);
    }, log);
  }

  /** Connects to the accessibility bus of the current session. */
  static async connect(timeoutMs = 3000, log: (line: string) => void = () => {}): Promise<A11yBus> {
    const address = await a11yAddress(timeoutMs);
    const bus = dbus.sessionBus({ busAddress: address }) as Bus;
    // Before the handshake completes: dbus-next starts reading messages then.
    const stream = (bus as unknown as { _connection?: { stream?: object } })._connection?.stream;
    const rawStream = enableRawReplies(stream) ? stream : undefined;
    const connected = new Promise<void>((resolve, reject) => {
      bus.once('connect', () => resolve());
      bus.once('error', (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))));
    });
    try {
      await timed(connected, timeoutMs);
    } catch (error) {
      bus.disconnect();
      throw fail(
        'accessibility_unavailable',
        `cannot connect to the accessibility bus at ${address}: ${error instanceof Error ? error.message : String(error)}`,
        { reason: 'bus_down' },
      );
    }
    bus.on('error', () => {});
    // Only now: dbus-next installs the connected connection's `message` on connect. The env
    // switch OVERSEER_FAST_CALLS=0 keeps dbus-next's marshaller (to compare against it).
    if (process.env['OVERSEER_FAST_CALLS'] !== '0') installFastCalls((bus as unknown as { _connection?: object })._connection);
    return new A11yBus(bus, rawStream, log);
  }

  private corked = false;
  /** Method calls made so far, by member, and the most in flight at once since `takePeak()`. */
  readonly counts = { calls: 0, byMember: {} as Record<string, number>, inFlight: 0, peak: 0 };

  /** The most calls that were in flight at once since the last time this was asked. */
  takePeak(): number {
    const peak = this.counts.peak;
    this.counts.peak = this.counts.inFlight;
    return peak;
  }

  /**
   * Coalesces the writes of all calls issued in one tick into one socket write: a read sends
   * thousands of small messages at once, and one syscall each was a large part of its cost.
   */
  private cork(): void {
    if (this.corked) return;
    const stream = (this.bus as unknown as { _connection?: { stream?: { cork?: () => void; uncork?: () => void } } })._connection?.stream;
    if (stream?.cork === undefined || stream.uncork === undefined) return;
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork?.();
    });
  }

  /**
   * Calls a method; rejects with DBusReplyError, DBusTimeoutError or a connection error. With
   * `rawReply`, a reply of that signature comes back undecoded, as `[RawBody]` (when the
   * connection can keep bodies raw; any other reply is decoded as usual).
   */
  async call(
    destination: string,
    path: string,
    iface: string,
    member: string,
    timeoutMs: number,
    signature = '',
    body: unknown[] = [],
    rawReply?: string,
  ): Promise<unknown[]> {
    if (timeoutMs <= 0) throw new DBusTimeoutError('no time left');
    if (AppBreakers.guards(destination)) this.breakers.check(destination);
    const msg = new dbus.Message({ destination, path, interface: iface, member, signature, body });
    const stream = rawReply === undefined ? undefined : this.rawStream;
    if (stream === undefined || rawReply === undefined) return ((await this.exchange(msg, timeoutMs))?.body ?? []) as unknown[];
    let wanted: RawWanted | undefined;
    try {
      const reply = await this.exchange(msg, timeoutMs, () => {
        if (msg.serial !== null) wanted = expectRaw(stream, msg.serial, rawReply);
      });
      return wanted?.raw === undefined ? ((reply?.body ?? []) as unknown[]) : [wanted.raw];
    } finally {
      if (msg.serial !== null) forgetRaw(stream, msg.serial);
    }
  }

  /** Sends a call and waits for its reply; `sent` runs once the call has its serial, before any reply can arrive. */
  private async exchange(msg: dbus.Message, timeoutMs: number, sent?: () => void): Promise<dbus.Message | null> {
    if (timeoutMs <= 0) throw new DBusTimeoutError('no time left');
    this.cork();
    const counts = this.counts;
    counts.calls++;
    const member = msg.member ?? '';
    counts.byMember[member] = (counts.byMember[member] ?? 0) + 1;
    counts.peak = Math.max(counts.peak, ++counts.inFlight);
    const app = msg.destination !== undefined && msg.destination !== null && AppBreakers.guards(msg.destination) ? msg.destination : undefined;
    const sentAt = performance.now();
    try {
      const reply = await callWithin(this.bus, msg, timeoutMs, () => new DBusTimeoutError(`no reply within ${timeoutMs} ms`), sent);
      if (app !== undefined) this.breakers.answered(app);
      return reply;
    } catch (error) {
      if (error instanceof dbus.DBusError) {
        if (app !== undefined) this.breakers.answered(app);
        throw new DBusReplyError(error.type, error.text);
      }
      if (app !== undefined && error instanceof DBusTimeoutError) this.breakers.timedOut(app, sentAt);
      throw error;
    } finally {
      counts.inFlight--;
    }
  }

  /** Reads one property through org.freedesktop.DBus.Properties.Get. */
  async getProperty(destination: string, path: string, iface: string, name: string, timeoutMs: number): Promise<unknown> {
    const [variant] = await this.call(destination, path, 'org.freedesktop.DBus.Properties', 'Get', timeoutMs, 'ss', [iface, name]);
    return variant instanceof dbus.Variant ? variant.value : variant;
  }

  /** Writes one property through org.freedesktop.DBus.Properties.Set. */
  async setProperty(destination: string, path: string, iface: string, name: string, signature: string, value: unknown, timeoutMs: number): Promise<void> {
    await this.call(destination, path, 'org.freedesktop.DBus.Properties', 'Set', timeoutMs, 'ssv', [iface, name, new dbus.Variant(signature, value)]);
  }

  /** Calls the bus daemon itself. */
  daemon(member: string, timeoutMs: number, signature = '', body: unknown[] = []): Promise<unknown[]> {
    return this.call(DBUS.destination, DBUS.path, DBUS.interface, member, timeoutMs, signature, body);
  }

  /** Subscribes to signals matching a rule; the handler sees every signal message. */
  async addMatch(rule: string, timeoutMs: number): Promise<void> {
    await this.daemon('AddMatch', timeoutMs, 's', [rule]);
  }

  /** Receives every signal on the bus. */
  onSignal(handler: (sender: string, path: string, iface: string, member: string, body: unknown[]) => void): void {
    this.bus.on('message', (msg: dbus.Message) => {
      if (msg.type === dbus.MessageType.SIGNAL) handler(msg.sender ?? '', msg.path ?? '', msg.interface ?? '', msg.member ?? '', msg.body as unknown[]);
    });
  }

  /** Called once if the bus connection drops. */
  onDisconnect(handler: () => void): void {
    const conn = (this.bus as unknown as { _connection?: { stream?: { on(ev: string, cb: () => void): void } } })._connection;
    conn?.stream?.on('close', handler);
  }

  disconnect(): void {
    this.bus.disconnect();
  }
}
