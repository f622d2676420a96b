// Handoffs (docs/supervision.md#questions-and-handoffs): an agent hands the desktop to the person (a
// login, a CAPTCHA, a judgement call). While any handoff on a connection lasts, every input on that
// connection — element_act and screen input, of every agent — waits here before it is even checked,
// so nothing an agent sends lands under the person's hands. It goes on to its card (or its rule)
// once the person gives control back; a departure withdraws what its agent left waiting.
import { systemClock, type Clock } from '../runtime/clock.js';

/** A handoff that lasts: which agent made it, on which connection, why, and since when. */
export interface ActiveHandoff {
  approvalId: string;
  receiptId: string;
  session: string;
  connection: string;
  reason: string;
  since: string;
}

/** An input waiting for a handoff to end. */
export interface HeldInput {
  receiptId: string;
  session: string;
  connection: string;
  action: string;
  since: string;
}

/** How a wait ends: the input goes on to its checks, or its agent went away. */
export type HandoffEnd = { kind: 'go' } | { kind: 'withdrawn'; note: string };

interface Waiter {
  input: HeldInput;
  settle: (end: HandoffEnd) => void;
}

/** The handoffs that last, and the inputs they hold. */
export class HandoffGate {
  private readonly handoffs = new Map<string, ActiveHandoff>();
  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<(connection: string) => void>();

  constructor(private readonly clock: Clock = systemClock) {}

  /** Told when what a connection holds changed (a handoff began or ended, an input joined or left). */
  onChange(listener: (connection: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts a handoff: from now on every input on its connection waits. */
  begin(handoff: Omit<ActiveHandoff, 'since'>): ActiveHandoff {
    const active = { ...handoff, since: new Date(this.clock.now()).toISOString() };
    this.handoffs.set(handoff.approvalId, active);
    this.emit(handoff.connection);
    return active;
  }

  /** Ends a handoff (control given back, braked, withdrawn, expired): the inputs it held go on unless another handoff holds the connection. */
  end(approvalId: string): void {
    const handoff = this.handoffs.get(approvalId);
    if (handoff === undefined) return;
    this.handoffs.delete(approvalId);
    if (!this.handedOff(handoff.connection)) for (const w of [...this.waiters]) if (w.input.connection === handoff.connection) this.finish(w, { kind: 'go' });
    this.emit(handoff.connection);
  }

  /** Whether a connection is handed to the person now. */
  handedOff(connection: string): boolean {
    for (const h of this.handoffs.values()) if (h.connection === connection) return true;
    return false;
  }

  /** The handoff of one agent session that lasts, if any. */
  of(session: string): ActiveHandoff | undefined {
    for (const h of this.handoffs.values()) if (h.session === session) return h;
    return undefined;
  }

  /** Inputs held on a connection now. */
  held(connection?: string): HeldInput[] {
    return [...this.waiters].map((w) => w.input).filter((i) => connection === undefined || i.connection === connection);
  }

  /** Undefined when the input's connection is not handed off (go on at once); else settles when it may go on, or its agent left. */
  wait(input: Omit<HeldInput, 'since'>): Promise<HandoffEnd> | undefined {
    if (!this.handedOff(input.connection)) return undefined;
    return new Promise<HandoffEnd>((settle) => {
      this.waiters.add({ input: { ...input, since: new Date(this.clock.now()).toISOString() }, settle });
      this.emit(input.connection);
    });
  }

  /** A departed agent's held inputs are withdrawn (its own handoff ends through the queue, which withdraws its card). */
  withdrawSession(session: string, note: string): number {
    const mine = [...this.waiters].filter((w) => w.input.session === session);
    for (const w of mine) this.finish(w, { kind: 'withdrawn', note });
    for (const connection of new Set(mine.map((w) => w.input.connection))) this.emit(connection);
    return mine.length;
  }

  private finish(w: Waiter, end: HandoffEnd): void {
    if (!this.waiters.delete(w)) return;
    w.settle(end);
  }

  private emit(connection: string): void {
    for (const l of this.listeners) l(connection);
  }
}
