// The X11 window stack: the root's viewable children top first (the stacking order the server
// keeps, with or without a window manager), each with the client window a window manager's frame
// holds, its _NET_WM_PID, title and WM_CLASS; and which top-level has the keyboard focus.

import type { NativeWindow } from '../screenBackend.js';
import { request, type X11Connection } from './x11Connection.js';

const ATOM_NAMES = ['WM_STATE', '_NET_WM_PID', '_NET_WM_NAME', 'UTF8_STRING', '_NET_ACTIVE_WINDOW'] as const;
/** SubstructureNotify | SubstructureRedirect: how a client message reaches the window manager (EWMH). */
const TO_WINDOW_MANAGER = (1 << 19) | (1 << 20);
/** `_NET_ACTIVE_WINDOW` source: a pager, which window managers obey without focus-stealing checks. */
const SOURCE_PAGER = 2;
const XA_WM_NAME = 39;
const XA_WM_CLASS = 67;
const ANY_TYPE = 0;
const VIEWABLE = 2;
const INPUT_ONLY = 2;
/** How deep under a frame the client window is looked for (frame → client, or frame → border → client). */
const CLIENT_DEPTH = 3;

type Atoms = Record<(typeof ATOM_NAMES)[number], number>;

/** Reads the window stack of one connection; atoms are interned once. */
export class X11Windows {
  private atoms: Promise<Atoms> | undefined;

  constructor(private readonly conn: X11Connection) {}

  private intern(): Promise<Atoms> {
    this.atoms ??= Promise.all(ATOM_NAMES.map((n) => request<number>((cb) => this.conn.X.InternAtom(false, n, cb)))).then(
      (ids) => Object.fromEntries(ATOM_NAMES.map((n, i) => [n, ids[i] ?? 0])) as Atoms,
    );
    return this.atoms;
  }

  private property(window: number, atom: number): Promise<Buffer | undefined> {
    return request<{ type: number; data: Buffer }>((cb) => this.conn.X.GetProperty(0, window, atom, ANY_TYPE, 0, 4096, cb)).then(
      (p) => (p.type === 0 ? undefined : p.data),
      () => undefined,
    );
  }

  /** The window itself or the first descendant (breadth first, a few levels) that carries WM_STATE. */
  private async client(frame: number, atoms: Atoms): Promise<number> {
    let level = [frame];
    for (let depth = 0; depth < CLIENT_DEPTH && level.length > 0; depth++) {
      const marked = await Promise.all(level.map((w) => this.property(w, atoms.WM_STATE)));
      const found = level.find((_, i) => marked[i] !== undefined);
      if (found !== undefined) return found;
      const trees = await Promise.all(level.map((w) => request<{ children: number[] }>((cb) => this.conn.X.QueryTree(w, cb)).catch(() => ({ children: [] }))));
      level = trees.flatMap((t) => t.children);
    }
    return frame;
  }

  private async describe(frame: number, atoms: Atoms): Promise<NativeWindow | undefined> {
    const { X, root } = this.conn;
    const attributes = await request<{ mapState: number; klass: number }>((cb) => X.GetWindowAttributes(frame, cb)).catch(() => undefined);
    if (attributes === undefined || attributes.mapState !== VIEWABLE || attributes.klass === INPUT_ONLY) return undefined;
    const [geometry, origin] = await Promise.all([
      request<{ width: number; height: number; borderWidth: number }>((cb) => X.GetGeometry(frame, cb)).catch(() => undefined),
      request<{ destX: number; destY: number }>((cb) => X.TranslateCoordinates(frame, root, 0, 0, cb)).catch(() => undefined),
    ]);
    if (geometry === undefined || origin === undefined || geometry.width === 0 || geometry.height === 0) return undefined;
    const client = await this.client(frame, atoms);
    const [pid, netName, name, klass] = await Promise.all([
      this.property(client, atoms._NET_WM_PID),
      this.property(client, atoms._NET_WM_NAME),
      this.property(client, XA_WM_NAME),
      this.property(client, XA_WM_CLASS),
    ]);
    const b = geometry.borderWidth;
    const out: NativeWindow = {
      handle: `x11:0x${frame.toString(16)}`,
      title: (netName ?? name)?.toString('utf8') ?? '',
      classes:
        klass === undefined
          ? []
          : klass
              .toString('latin1')
              .split('\0')
              .filter((c) => c !== ''),
      rect: { x: origin.destX - b, y: origin.destY - b, width: geometry.width + 2 * b, height: geometry.height + 2 * b },
    };
    if (pid !== undefined && pid.length >= 4) out.pid = pid.readUInt32LE(0);
    return out;
  }

  /** Viewable top-level windows, top first. */
  async list(): Promise<NativeWindow[]> {
    const atoms = await this.intern();
    const tree = await request<{ children: number[] }>((cb) => this.conn.X.QueryTree(this.conn.root, cb));
    const described = await Promise.all(tree.children.map((w) => this.describe(w, atoms)));
    return described.filter((w): w is NativeWindow => w !== undefined).reverse();
  }

  /** Asks the window manager to activate the window of this handle (its client window, as EWMH wants). */
  async activate(handle: string): Promise<void> {
    const frame = Number.parseInt(handle.replace(/^x11:0x/, ''), 16);
    if (!Number.isInteger(frame) || frame <= 0) return;
    const atoms = await this.intern();
    const client = await this.client(frame, atoms);
    const event = Buffer.alloc(32);
    event[0] = 33; // ClientMessage
    event[1] = 32; // format
    event.writeUInt32LE(client, 4);
    event.writeUInt32LE(atoms._NET_ACTIVE_WINDOW, 8);
    event.writeUInt32LE(SOURCE_PAGER, 12);
    this.conn.X.SendEvent(this.conn.root, 0, TO_WINDOW_MANAGER, event as unknown as Parameters<typeof this.conn.X.SendEvent>[3]);
    await request<{ focus: number }>((cb) => this.conn.X.GetInputFocus(cb));
  }

  /** The handle of the top-level window that holds the keyboard focus (the root's child above the focus window). */
  async focused(): Promise<string | undefined> {
    const { X, root } = this.conn;
    let window = (await request<{ focus: number }>((cb) => X.GetInputFocus(cb))).focus;
    // PointerRoot (1): keys go to the window under the pointer (a desktop without a window manager).
    if (window === 1) {
      const under = await request<{ child: number }>((cb) => X.QueryPointer(root, cb));
      return under.child === 0 ? undefined : `x11:0x${under.child.toString(16)}`;
    }
    // None (0): no window has the focus.
    for (let hops = 0; hops < 64 && window > 1 && window !== root; hops++) {
      const tree = await request<{ parent: number }>((cb) => X.QueryTree(window, cb)).catch(() => undefined);
      if (tree === undefined) return undefined;
      if (tree.parent === root) return `x11:0x${window.toString(16)}`;
      window = tree.parent;
    }
    return undefined;
  }
}
