/**
 * A circuit breaker per application connection (docs/compatibility.md#an-application-that-stops-answering).
 *
 * An application whose main loop is stuck answers nothing; every call sent to it waits in its queue
 * and is worked off, all of them, whenever it comes back. So once an application has answered
 * nothing for HUNG_AFTER_MS while a call waited, no call is sent to it any more: each fails at once.
 * One `Peer.Ping` at a time asks whether it is back, after 1 s, then 2, 4, … up to 30 s; its answer
 * closes the breaker. A busy application that still answers something is never taken for a stuck one.
 */

/** Silence, while a call waited, after which an application counts as not answering. */
export const HUNG_AFTER_MS = 1000;
/** How long one probe waits for the application's answer. */
const PROBE_TIMEOUT_MS = 2000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

/** What the breaker knows of an application that stopped answering. */
export interface HungApp {
  /** When it was seen to stop answering (performance.now()). */
  since: number;
  /** When the next probe may be sent. */
  nextProbe: number;
  backoff: number;
  probing: boolean;
}

/** A call refused at once because its application stopped answering (a timeout, for callers that only know timeouts). */
export class AppUnresponsiveError extends Error {
  constructor(
    readonly bus: string,
    readonly sinceMs: number,
    readonly retryAfterMs: number,
  ) {
    super(`the application ${bus} has not answered for ${Math.round(sinceMs / 1000)} s; no call is sent to it until it answers a probe`);
  }
}

/** Per-connection last replies and stuck applications; `ping` asks one application whether it is back. */
export class AppBreakers {
  private readonly lastReply = new Map<string, number>();
  private readonly hung = new Map<string, HungApp>();

  constructor(
    private readonly ping: (bus: string, timeoutMs: number) => Promise<void>,
    private readonly log: (line: string) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Only application connections (unique names) are guarded; the bus daemon and the registry are not applications. */
  static guards(destination: string): boolean {
    return destination.startsWith(':');
  }

  /** Throws AppUnresponsiveError when the application is known not to answer; may start a probe. */
  check(bus: string): void {
    const h = this.state(bus);
    if (h === undefined) return;
    const now = this.now();
    throw new AppUnresponsiveError(bus, now - h.since, Math.max(0, h.nextProbe - now));
  }

  /** The application answered a call (a reply or an error reply): it is alive. */
  answered(bus: string): void {
    this.lastReply.set(bus, this.now());
    if (this.hung.delete(bus)) this.log(`[atspi] ${bus} answers again`);
  }

  /** A call sent at `sentAt` got no answer in time; the application is stuck when it answered nothing since for HUNG_AFTER_MS. */
  timedOut(bus: string, sentAt: number): void {
    if (this.hung.has(bus)) return;
    const now = this.now();
    const heard = Math.max(this.lastReply.get(bus) ?? 0, sentAt);
    if (now - heard < HUNG_AFTER_MS) return;
    const h: HungApp = { since: heard, nextProbe: now + FIRST_BACKOFF_MS, backoff: FIRST_BACKOFF_MS, probing: false };
    this.hung.set(bus, h);
    this.log(`[atspi] ${bus} answered nothing for ${Math.round(now - heard)} ms: no calls go to it until it answers a probe`);
  }

  /** The stuck application's state, if it is stuck; asking starts the probe that is due. */
  state(bus: string): HungApp | undefined {
    const h = this.hung.get(bus);
    if (h !== undefined && !h.probing && this.now() >= h.nextProbe) this.probe(bus, h);
    return h;
  }

  /** The application left the bus: forget it. */
  forget(bus: string): void {
    this.hung.delete(bus);
    this.lastReply.delete(bus);
  }

  private probe(bus: string, h: HungApp): void {
    h.probing = true;
    this.ping(bus, PROBE_TIMEOUT_MS).then(
      () => this.answered(bus),
      () => {
        h.probing = false;
        h.backoff = Math.min(MAX_BACKOFF_MS, h.backoff * 2);
        h.nextProbe = this.now() + h.backoff;
      },
    );
  }
}
