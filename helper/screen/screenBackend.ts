// The screen tier's backend-neutral interface: capture pixels, synthesize pointer and
// keyboard input, report monitors. One implementation per session type (x11/ today; Wayland and
// Windows later). Physical pixels throughout, in the session's virtual-screen coordinates (on X11:
// root window coordinates, all monitors). Failures are OverseerErrors made with fail() from
// protocol/errors.ts: `capture_unavailable`, `input_unavailable`, `invalid_argument`.

/** A rectangle in physical pixels. */
export interface ScreenRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One monitor: its physical rectangle in virtual-screen coordinates. */
export interface Monitor extends ScreenRect {
  name: string;
  primary: boolean;
  /** Device scale the session applies (1 on X11, which has no per-monitor scale). */
  scale: number;
}

/** What a backend can do, and what it cannot (named degradations, for `capabilities`). */
export interface ScreenCapabilities {
  session: 'x11' | 'wayland' | 'windows';
  capture: {
    available: boolean;
    /** The path captures take, e.g. `x11:MIT-SHM.GetImage` or `x11:GetImage`. */
    path: string;
    /** Named limits, e.g. `covered_windows_show_cover`. */
    degradations: string[];
  };
  /**
   * Capture bound to one window (its own pixels, not whatever covers it), where the backend has it;
   * absent where it has no such path yet (X11).
   */
  windowCapture?: {
    available: boolean;
    /** e.g. `win32:PrintWindow`. */
    path: string;
    /** Named limits, e.g. `printwindow_app_dependent`, `windows_graphics_capture_unavailable`. */
    degradations: string[];
  };
  input: {
    available: boolean;
    /** The path input takes, e.g. `x11:XTEST.FakeInput`. */
    path: string;
    degradations: string[];
  };
  monitors: Monitor[];
  /** The virtual screen: the bounding box of every monitor. */
  screen: ScreenRect;
}

/**
 * A captured image. `bgrx`: 4 bytes per pixel, blue, green, red, then one unused byte (not alpha;
 * its value is undefined); rows are `stride` bytes apart, top row first.
 */
export interface CapturedImage {
  width: number;
  height: number;
  stride: number;
  pixelFormat: 'bgrx';
  data: Buffer;
  /** Where the image's top-left pixel is on the virtual screen. */
  origin: { x: number; y: number };
  /** The path this capture took. */
  capturePath: string;
  captureMs: number;
}

/** A top-level window as the window system stacks it. */
export interface NativeWindow {
  /** Backend handle, e.g. `x11:0x2a00003` (the frame a window manager made, or the window itself). */
  handle: string;
  title: string;
  /** The owning process, when the window says (_NET_WM_PID on X11). */
  pid?: number;
  /** Window class names (WM_CLASS instance and class on X11). */
  classes: string[];
  /** Physical rectangle on the virtual screen, frame included. */
  rect: ScreenRect;
}

export type MouseButton = 'left' | 'middle' | 'right';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

/**
 * A key by name: a single character (`a`, `ж`, `€`), or a named key of the backend's minimal table
 * (`Return`, `Control_L`, `F5`, …; see each backend). The agent-facing vocabulary and its aliases
 * live elsewhere and translate into these names.
 */
export type KeyName = string;

export interface ScreenBackend {
  readonly name: string;
  capabilities(): Promise<ScreenCapabilities>;
  /** The whole virtual screen, or `region` (which must lie inside it). */
  capture(region?: ScreenRect): Promise<CapturedImage>;
  /**
   * One window's own pixels, even where another window covers it, by its native handle (on Windows
   * the HWND in decimal). Absent on backends without a window-bound path: a screen rectangle never
   * stands in for it. Origin: the window's top-left on the virtual screen.
   */
  captureWindow?(window: string): Promise<CapturedImage>;
  move(x: number, y: number): Promise<void>;
  button(button: MouseButton, action: 'down' | 'up'): Promise<void>;
  /** Move to x,y, then `count` presses and releases. */
  click(x: number, y: number, button: MouseButton, count: number): Promise<void>;
  /** Move to x,y, then `detents` wheel steps (1:1 with notches). */
  scroll(x: number, y: number, direction: ScrollDirection, detents: number): Promise<void>;
  /** Type any Unicode text exactly (each code point once), whatever the keyboard layout. */
  typeText(text: string): Promise<void>;
  /**
   * Where a backend can type only some characters (a Wayland portal types only what the layout has):
   * refuses with why before anything is asked of the person or typed. Absent where any text types.
   */
  checkText?(text: string): Promise<void>;
  /** `tap`: press every key in order, release them in reverse (a combo such as Control_L + s). */
  key(keys: readonly KeyName[], action: 'tap' | 'down' | 'up'): Promise<void>;
  cursor(): Promise<{ x: number; y: number }>;
  /** Viewable top-level windows, top first (for masking, binding and what lies under a point). */
  windows(): Promise<NativeWindow[]>;
  /** The handle of the top-level window with the keyboard focus, if any. */
  focusedWindow(): Promise<string | undefined>;
  /**
   * Asks the window manager to bring this window to the front with the keyboard focus (X11:
   * `_NET_ACTIVE_WINDOW`, as a pager does). Absent where no program may do so (Wayland).
   */
  activate?(handle: string): Promise<void>;
  /**
   * Forgets the desktop's standing consents (docs/wayland.md#consent), so it asks the person again.
   * Absent on backends whose desktop asks nothing.
   */
  forgetConsent?(): Promise<void>;
  /** Release held buttons and keys, restore what the backend changed (keymap), disconnect. Idempotent. */
  close(): Promise<void>;
}
