// The few parts of the `x11` package (sidorares/node-x11 4.2.2, untyped CommonJS) that the X11
// screen backend uses. Reply callbacks return true to mark an error as handled (otherwise the
// client also emits it as an 'error' event).

declare module 'x11' {
  export type Reply<T> = (error: Error | null, result: T) => boolean | void;

  export interface Visual {
    class: number;
    red_mask: number;
    green_mask: number;
    blue_mask: number;
  }

  export interface Screen {
    root: number;
    pixel_width: number;
    pixel_height: number;
    root_visual: number;
    root_depth: number;
    depths: Record<string, Record<string, Visual>>;
  }

  export interface Display {
    client: XClient;
    screen: Screen[];
    image_byte_order: number;
    min_keycode: number;
    max_keycode: number;
    format: Record<string, { bits_per_pixel: number; scanline_pad: number }>;
  }

  export interface PackStream {
    put(buffer: Buffer): void;
    submit(expectReply?: boolean): void;
  }

  export interface Extension {
    present: boolean;
    majorOpcode: number;
  }

  export interface ShmSegment {
    size: number;
    buffer: Buffer;
    getImage(
      drawable: number,
      x: number,
      y: number,
      w: number,
      h: number,
      planeMask: number,
      format: number,
      offset: number,
      cb: Reply<{ depth: number; size: number }>,
    ): void;
    detach(cb?: () => void): void;
  }

  export interface ShmExt extends Extension {
    usable(cb: Reply<boolean>): void;
    createSegment(size: number, cb: Reply<ShmSegment>): void;
  }

  export interface XTestExt extends Extension {
    KeyPress: number;
    KeyRelease: number;
    ButtonPress: number;
    ButtonRelease: number;
    MotionNotify: number;
    FakeInput(type: number, detail: number, time: number, window: number, x: number, y: number): void;
  }

  export interface XClient {
    seq_num: number;
    replies: Record<number, [(buf: Buffer, opt: number) => unknown, Reply<unknown>]>;
    pack_stream: PackStream;
    require(name: 'shm', cb: Reply<ShmExt>): void;
    require(name: 'xtest', cb: Reply<XTestExt>): void;
    require(name: 'randr', cb: Reply<Extension>): void;
    GetImage(format: number, drawable: number, x: number, y: number, w: number, h: number, planeMask: number, cb: Reply<{ depth: number; data: Buffer }>): void;
    GetKeyboardMapping(first: number, count: number, cb: Reply<number[][]>): void;
    ChangeKeyboardMapping(first: number, keysymsPerKeycode: number, keysyms: number[]): void;
    QueryPointer(window: number, cb: Reply<{ rootX: number; rootY: number; keyMask: number; child: number }>): void;
    GetAtomName(atom: number, cb: Reply<string>): void;
    GetInputFocus(cb: Reply<{ focus: number; revertTo: number }>): void;
    QueryTree(window: number, cb: Reply<{ root: number; parent: number; children: number[] }>): void;
    GetWindowAttributes(window: number, cb: Reply<{ mapState: number; klass: number; overrideRedirect: number }>): void;
    GetGeometry(drawable: number, cb: Reply<{ xPos: number; yPos: number; width: number; height: number; borderWidth: number }>): void;
    TranslateCoordinates(src: number, dst: number, x: number, y: number, cb: Reply<{ child: number; destX: number; destY: number }>): void;
    InternAtom(onlyIfExists: boolean, name: string, cb: Reply<number>): void;
    GetProperty(
      del: number,
      window: number,
      property: number,
      type: number,
      longOffset: number,
      longLength: number,
      cb: Reply<{ type: number; format: number; bytesAfter: number; data: Buffer }>,
    ): void;
    AllocID(): number;
    CreateWindow(
      id: number,
      parent: number,
      x: number,
      y: number,
      width: number,
      height: number,
      borderWidth: number,
      depth: number,
      klass: number,
      visual: number,
      values: { eventMask?: number },
    ): void;
    ChangeProperty(mode: number, window: number, property: number, type: number, format: 8 | 16 | 32, data: Buffer | number[]): void;
    SetSelectionOwner(owner: number, selection: number, time: number): void;
    GetSelectionOwner(selection: number, cb: Reply<number>): void;
    SendEvent(destination: number, propagate: number, eventMask: number, event: XEvent): void;
    on(event: 'error', listener: (error: Error) => void): void;
    on(event: 'event', listener: (event: XEvent) => void): void;
    on(event: 'end', listener: () => void): void;
    close(cb?: () => void): void;
  }

  /** A core event as the package parses (and packs) it: the fields of the few the clipboard reads. */
  export interface XEvent {
    type: number;
    name: string;
    seq: number;
    time?: number;
    atom?: number;
    owner?: number;
    requestor?: number;
    selection?: number;
    target?: number;
    property?: number;
  }

  const x11: {
    createClient(options: { display?: string; auth?: { name: string; data: string } }, cb: (error: Error | null, display: Display) => void): XClient;
  };
  export default x11;
}
