// The clipboard through Xwayland (docs/wayland.md#typing). GNOME 43's RemoteDesktop portal types only
// the keysyms of the current layout and has no Clipboard interface; but mutter shares one clipboard
// between Wayland and X11 clients. So text beyond the layout is offered on the X11 CLIPBOARD by an
// unmapped window of this process on the session's Xwayland and pasted with ctrl+v, and each step is
// seen, not assumed: the compositor asking what we offer (so the clipboard is ours), then the
// application asking for the text (so it pasted).
//
//   const clipboard = await XwaylandClipboard.open(env);
//   const offer = await clipboard.offer('Привет 😀'); // rejects when the compositor does not take it
//   await pressCtrlV();
//   if (!(await offer.fetched(2000))) ...             // nothing asked for the text: it was not pasted

import { readFileSync } from 'node:fs';
import x11, { type Reply, type XClient, type XEvent } from 'x11';

/** Predefined atoms (X.h). */
const ATOM = 4;
const INTEGER = 19;
const STRING = 31;
/** Event masks and classes (X.h). */
const PROPERTY_CHANGE_MASK = 0x400000;
const INPUT_ONLY = 2;
/** The most bytes one offer holds: a ChangeProperty request without BIG-REQUESTS stays under 256 KiB. */
export const MAX_OFFER_BYTES = 200_000;

/** Why the clipboard cannot be reached: the reason goes into the degradation and the error. */
export class ClipboardUnavailable extends Error {}

/** One text on the clipboard, and whether an application fetched it since. */
export interface ClipboardOffer {
  /** Resolves true once an application asked for the text after this call, false after `timeoutMs`. */
  fetched(timeoutMs: number): Promise<boolean>;
}

interface Atoms {
  clipboard: number;
  targets: number;
  timestamp: number;
  utf8: number;
  textPlain: number;
  stamp: number;
}

/** A cookie from an Xauthority file for display `number` (the first MIT-MAGIC-COOKIE-1 there, any host). */
export function xauthCookie(file: Buffer, number: string): { name: string; data: string } | undefined {
  let at = 0;
  const field = (): Buffer => {
    const length = file.readUInt16BE(at);
    if (at + 2 + length > file.length) throw new RangeError('truncated');
    const value = file.subarray(at + 2, at + 2 + length);
    at += 2 + length;
    return value;
  };
  while (at + 2 <= file.length) {
    try {
      at += 2; // family
      field(); // address
      const display = field().toString('latin1');
      const name = field().toString('latin1');
      const data = field();
      if (name === 'MIT-MAGIC-COOKIE-1' && (display === '' || display === number)) return { name, data: data.toString('latin1') };
    } catch {
      return undefined; // a truncated file
    }
  }
  return undefined;
}

/** One request, promise-wrapped; its error counts as handled. */
function request<T>(send: (cb: Reply<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    send((error, result) => {
      if (error !== null && error !== undefined) reject(error);
      else resolve(result);
      return true;
    });
  });
}

export class XwaylandClipboard {
  private text: Buffer | undefined;
  private time = 0;
  /** Requests for the text and for the target list, counted since the connection opened. */
  private counts = { data: 0, targets: 0 };
  private waiters = new Set<() => void>();
  private closed = false;

  private constructor(
    private readonly X: XClient,
    private readonly window: number,
    private readonly atoms: Atoms,
  ) {
    X.on('event', (event) => this.onEvent(event));
    X.on('end', () => this.shut());
  }

  /** Connects to the session's Xwayland ($DISPLAY, with $XAUTHORITY's cookie); rejects with ClipboardUnavailable. */
  static async open(env: NodeJS.ProcessEnv, timeoutMs = 3000): Promise<XwaylandClipboard> {
    const display = env['DISPLAY'];
    if (display === undefined || display === '') throw new ClipboardUnavailable('no Xwayland: DISPLAY is not set');
    const number = /^:(\d+)(\.\d+)?$/.exec(display)?.[1];
    if (number === undefined) throw new ClipboardUnavailable(`DISPLAY ${display} is not a local display`);
    const authFile = env['XAUTHORITY'];
    let auth: { name: string; data: string } | undefined;
    if (authFile !== undefined && authFile !== '') {
      try {
        auth = xauthCookie(readFileSync(authFile), number);
      } catch (error) {
        throw new ClipboardUnavailable(`cannot read XAUTHORITY ${authFile}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const { X, root } = await new Promise<{ X: XClient; root: number | undefined }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ClipboardUnavailable(`Xwayland ${display} did not answer in ${timeoutMs} ms`)), timeoutMs);
      const client = x11.createClient({ display, ...(auth === undefined ? {} : { auth }) }, (error, opened) => {
        clearTimeout(timer);
        if (error !== null && error !== undefined) reject(new ClipboardUnavailable(`cannot connect to Xwayland ${display}: ${error.message}`));
        else resolve({ X: opened.client, root: opened.screen[0]?.root });
      });
      client.on('error', () => undefined); // replies carry their errors; the rest is the connection's end
    });
    try {
      const intern = (name: string): Promise<number> => request<number>((cb) => X.InternAtom(false, name, cb));
      const atoms: Atoms = {
        clipboard: await intern('CLIPBOARD'),
        targets: await intern('TARGETS'),
        timestamp: await intern('TIMESTAMP'),
        utf8: await intern('UTF8_STRING'),
        textPlain: await intern('text/plain;charset=utf-8'),
        stamp: await intern('OVERSEER_CLIPBOARD_TIME'),
      };
      if (root === undefined) throw new ClipboardUnavailable(`Xwayland ${display} has no screen`);
      const window = X.AllocID();
      X.CreateWindow(window, root, -10, -10, 1, 1, 0, 0, INPUT_ONLY, 0, { eventMask: PROPERTY_CHANGE_MASK });
      await request<unknown>((cb) => X.GetInputFocus(cb)); // the window exists, or the error came
      return new XwaylandClipboard(X, window, atoms);
    } catch (error) {
      X.close();
      throw error instanceof ClipboardUnavailable
        ? error
        : new ClipboardUnavailable(`Xwayland ${display}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Puts `text` on the clipboard, replacing what it held, and resolves once the compositor has asked
   * what it is (so Wayland clients see it). Rejects with ClipboardUnavailable when it does not ask.
   */
  async offer(text: string, timeoutMs = 1000): Promise<ClipboardOffer> {
    if (this.closed) throw new ClipboardUnavailable('the Xwayland connection closed');
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > MAX_OFFER_BYTES) throw new RangeError(`an offer holds at most ${MAX_OFFER_BYTES} bytes`);
    this.time = await this.serverTime(timeoutMs);
    this.text = bytes;
    const asked = this.counts.targets;
    this.X.SetSelectionOwner(this.window, this.atoms.clipboard, this.time);
    const owner = await request<number>((cb) => this.X.GetSelectionOwner(this.atoms.clipboard, cb));
    if (owner !== this.window) throw new ClipboardUnavailable('another client took the clipboard at once');
    if (!(await this.until(() => this.counts.targets > asked, timeoutMs)))
      throw new ClipboardUnavailable(`the compositor did not take the Xwayland clipboard in ${timeoutMs} ms`);
    const fetchedBefore = this.counts.data;
    return { fetched: (ms) => this.until(() => this.counts.data > fetchedBefore, ms) };
  }

  close(): void {
    if (this.closed) return;
    this.X.close();
    this.shut();
  }

  private shut(): void {
    this.closed = true;
    this.text = undefined;
    for (const wake of this.waiters) wake();
  }

  /** A server timestamp (ICCCM: never CurrentTime for a selection): the time of a property change on our window. */
  private async serverTime(timeoutMs: number): Promise<number> {
    let time = 0;
    const seen = new Promise<void>((resolve) => {
      this.stampSeen = (t) => {
        time = t;
        resolve();
      };
    });
    this.X.ChangeProperty(2, this.window, this.atoms.stamp, STRING, 8, Buffer.alloc(0));
    const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([seen, timer]);
    this.stampSeen = undefined;
    if (time === 0) throw new ClipboardUnavailable(`Xwayland sent no timestamp in ${timeoutMs} ms`);
    return time;
  }

  private stampSeen: ((time: number) => void) | undefined;

  private until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const check = (): void => {
        if (!done() && !this.closed) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(done());
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(done());
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  private onEvent(event: XEvent): void {
    if (event.name === 'PropertyNotify' && event.atom === this.atoms.stamp) this.stampSeen?.(event.time ?? 0);
    else if (event.name === 'SelectionClear' && event.selection === this.atoms.clipboard) this.text = undefined;
    else if (event.name === 'SelectionRequest') this.answer(event);
    for (const wake of [...this.waiters]) wake();
  }

  /** Answers a request for the clipboard: the target list, the time we took it, or the text as UTF-8. */
  private answer(event: XEvent): void {
    const { requestor = 0, selection = 0, target = 0 } = event;
    // An obsolete client names no property: the target's name is the property then (ICCCM 2.2).
    let property = event.property === undefined || event.property === 0 ? target : event.property;
    const { atoms, text } = this;
    if (selection !== atoms.clipboard || text === undefined || (event.time !== 0 && event.time !== undefined && event.time < this.time)) property = 0;
    else if (target === atoms.targets) {
      this.X.ChangeProperty(0, requestor, property, ATOM, 32, [atoms.targets, atoms.timestamp, atoms.utf8, atoms.textPlain]);
      this.counts.targets++;
    } else if (target === atoms.timestamp) this.X.ChangeProperty(0, requestor, property, INTEGER, 32, [this.time]);
    else if (target === atoms.utf8 || target === atoms.textPlain) {
      this.X.ChangeProperty(0, requestor, property, target, 8, text);
      this.counts.data++;
    } else property = 0;
    this.X.SendEvent(requestor, 0, 0, { type: 31, name: 'SelectionNotify', seq: 0, time: event.time ?? 0, requestor, selection, target, property });
  }
}
