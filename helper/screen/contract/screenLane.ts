// What a screen backend's test lane gives the one screen contract suite (screenContract.ts): the
// backend as ScreenBackend calls, the canvas fixture's place on screen, its input events in one
// shape whatever toolkit printed them, and the lane's named quirks and lacks as data.

import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CapturedImage, ScreenBackend, ScreenRect } from '../screenBackend.js';

/** One input event the canvas saw, normalized from its toolkit's own names (GTK's or Win32's). */
export type CanvasEvent =
  /** A mouse button went down or up at a screen point; `n` is the toolkit's click count (2 for a double click's press). */
  | { kind: 'button'; action: 'down' | 'up'; button: number; n: number; x: number; y: number }
  /** One wheel message: `steps` detents (1 for one notch) in `dir`, at the point the toolkit reports. */
  | { kind: 'scroll'; dir: string; steps: number; x: number; y: number }
  /** A key went down or up, by its X11 name (`Return`, `Control_L`, `a`); an unknown key keeps its raw code in the name. */
  | { kind: 'key'; action: 'down' | 'up'; key: string }
  /** Text the toolkit produced: a character (GTK) or one UTF-16 unit (WM_CHAR). */
  | { kind: 'text'; text: string };

/** The canvas's events, read as the fixture writes them; `until` waits for the next ones. */
export interface CanvasEvents {
  /** Waits until the events after those already consumed satisfy `done`; returns them and consumes them. */
  until(done: (events: CanvasEvent[]) => boolean, what: string, timeoutMs?: number): Promise<CanvasEvent[]>;
}

/** What the expected capabilities of the lane's backend are. */
export interface ExpectedCapabilities {
  session: 'x11' | 'wayland' | 'windows';
  /** The whole-screen capture path (X11 answers core GetImage where MIT-SHM is unusable). */
  capturePath: RegExp;
  inputPath: string;
  /** The window-bound capture path and degradations it must name; absent: capabilities must have no windowCapture. */
  windowCapture?: { path: string; degradations: string[] };
  /** The virtual screen and one monitor covering it, where the lane made the desktop (absent on a real Windows desktop). */
  screen?: ScreenRect;
  /** How many monitors the session marks primary: Windows always one; X11 only where RandR was told (Xvfb tells it none). */
  primaryMonitors: 0 | 1;
  /** Each monitor's scale, where the lane knows it. */
  monitorScale?: number;
}

/** A known difference of the lane's toolkit or platform, each with why; the suite adjusts the expected events for it. */
export interface ScreenQuirks {
  /** The toolkit reports a double click's second press twice: as a press (n 1), then as its own double press (n 2). */
  doublePressAfterPress?: string;
  /** The horizontal wheel's point arrives in the canvas's client coordinates instead of screen ones. */
  horizontalWheelInClientCoordinates?: string;
  /** The toolkit reports a horizontal wheel detent the other way round (a detent right arrives as left). */
  horizontalWheelReversed?: string;
  /** Screenshots include the pointer: the suite moves it off the canvas (to the screen's last pixel) before checking the pattern. */
  pointerInScreenshots?: string;
  /** The wheel reaches the canvas as a smooth scroll of one detent's distance, not as a detent (the lane's canvas asks for smooth scrolling). */
  wheelAsSmoothScroll?: string;
}

/** What a lane cannot run, each with the reason the suite reports when it skips the case. */
export interface ScreenLacks {
  /** Capturing a covered window of the backend's own process by its handle (captureWindow). */
  windowCapture?: string;
  /** Capturing another application's covered window by its handle. */
  otherProcessWindowCapture?: string;
  /** Naming the process of a window (a VM's server names none): its windows carry no pid. */
  windowPids?: string;
  /** Listing windows at all (Wayland tells no client where windows are): `windows()` is empty and nothing is focused. */
  windowStack?: string;
  /** Reading the pointer's place back from the desktop (Wayland tells no client): `cursor()` is where the backend put it. */
  cursorReadBack?: string;
  /** Typing characters the keyboard layout lacks: they are refused (`not_in_keymap`) and nothing is typed. */
  charactersBeyondLayout?: string;
}

/** What a screen backend's lane provides to the screen contract suite. */
export interface ScreenLane {
  /** The backend under test: in-process, or over an RPC driver (whose images arrive base64 and are decoded here). */
  screen: ScreenBackend;
  /** The canvas fixture's window on screen (its pattern fills it 1:1). */
  canvas: ScreenRect & { title: string; pid?: number };
  /** The canvas's events. */
  events: CanvasEvents;
  /** How the backend spells a window handle in `windows()` and `focusedWindow()`. */
  handlePattern: RegExp;
  expect: ExpectedCapabilities;
  /** The text events the named keys Return, Control_L+a, Left, F5 produce, in order (the toolkit's translation). */
  namedKeyText: string;
  quirks: ScreenQuirks;
  lacks: ScreenLacks;
  /** Opens a window of the backend's own process that paints the canvas pattern at x,y (under everything else); its handle for captureWindow. */
  openOwnWindow?(x: number, y: number): Promise<string>;
  /** Covers the canvas with another application's window. */
  coverCanvas?(): void;
  /** The canvas's own handle for captureWindow. */
  canvasHandle?: string;
  stop(): Promise<void>;
}

/** A fixture's log of JSON lines, normalized by `parse` (one line may be zero or more events); a cursor marks what was consumed. */
export class EventLog implements CanvasEvents {
  private cursor = 0;
  constructor(
    private readonly file: () => string,
    private readonly parse: (line: Record<string, unknown>) => CanvasEvent[],
  ) {}

  /** Every raw line the fixture wrote so far. */
  raw(): Record<string, unknown>[] {
    let text = '';
    try {
      text = readFileSync(this.file(), 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .map((l) => l.trim()) // the Win32 canvas writes in text mode: CRLF
      .filter((l) => l.startsWith('{') && l.endsWith('}')) // a line still being written is read next time
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  async until(done: (events: CanvasEvent[]) => boolean, what: string, timeoutMs = 10_000): Promise<CanvasEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const fresh = this.raw().flatMap(this.parse).slice(this.cursor);
      if (done(fresh)) {
        this.cursor += fresh.length;
        return fresh;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(fresh)}`);
      await sleep(5);
    }
  }
}

/** One pixel of an image at a screen point, as RGB. */
export function pixel(img: CapturedImage, x: number, y: number): [number, number, number] {
  const o = (y - img.origin.y) * img.stride + (x - img.origin.x) * 4;
  return [img.data[o + 2] ?? -1, img.data[o + 1] ?? -1, img.data[o] ?? -1]; // BGRX -> RGB
}

/** The median of some timings. */
export const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
