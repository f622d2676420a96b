// The X11 screen backend, in-process over the X protocol (no xdotool, no scrot): capture through
// x11Capture.ts, pointer through x11Pointer.ts, keyboard through x11Keyboard.ts, monitors from
// RandR 1.5 GetMonitors (else the screen's size).

import type { Extension, XTestExt } from 'x11';
import { fail } from '../../../protocol/index.js';
import type { KeyName, Monitor, MouseButton, ScreenBackend, ScreenCapabilities, ScreenRect, ScrollDirection } from '../screenBackend.js';
import { layoutProblem, RootCapturer } from './x11Capture.js';
import { connectX11, getMonitors, request, sync, type X11Connection } from './x11Connection.js';
import { keysymOf, knownKeyNames } from '../keysyms.js';
import { X11Keyboard } from './x11Keyboard.js';
import { X11Pointer } from './x11Pointer.js';
import { X11Windows } from './x11Windows.js';

export const INPUT_PATH = 'x11:XTEST.FakeInput';

/** Named limits of this backend, for `capabilities`. */
const CAPTURE_DEGRADATIONS = [
  'screen_only', // captures the root: a covered window shows what covers it (no Composite yet)
];

/** Options of openX11Backend. */
export interface X11BackendOptions {
  /** X display, default $DISPLAY. */
  display?: string;
  /** false: never try MIT-SHM, capture with core GetImage (default true). */
  shm?: boolean;
}

/** The X11 backend, plus what its tests check on the server. */
export interface X11ScreenBackend extends ScreenBackend {
  /** Keycodes whose row is all NoSymbol, as the server holds the keymap now (read again). */
  spareKeycodes(): Promise<number[]>;
}

/** Connect to the display and set up XTEST and the keymap. */
export async function openX11Backend(options: X11BackendOptions = {}): Promise<X11ScreenBackend> {
  const conn = await connectX11(options.display);
  try {
    return await assemble(conn, options.shm !== false);
  } catch (error) {
    conn.X.close();
    throw error;
  }
}

async function assemble(conn: X11Connection, shm: boolean): Promise<X11ScreenBackend> {
  const screen = conn.display.screen[0];
  const size = { width: screen?.pixel_width ?? 0, height: screen?.pixel_height ?? 0 };
  let xtest: XTestExt | null = null;
  let xtestProblem = '';
  try {
    xtest = await request<XTestExt>((cb) => conn.X.require('xtest', cb));
  } catch (error) {
    xtestProblem = error instanceof Error ? error.message : String(error);
  }
  const capturer = new RootCapturer(conn, shm);
  const pointer = xtest === null ? null : new X11Pointer(conn, xtest, () => size);
  const keyboard = xtest === null ? null : new X11Keyboard(conn, xtest);
  const stack = new X11Windows(conn);
  await keyboard?.load();
  let closed: Promise<void> | null = null;

  const input = (): { pointer: X11Pointer; keyboard: X11Keyboard } => {
    if (closed !== null) throw fail('input_unavailable', 'The X11 screen backend is closed.', { reason: 'closed' });
    if (pointer === null || keyboard === null)
      throw fail('input_unavailable', `The X server has no XTEST extension (${xtestProblem}).`, { reason: 'no_xtest' });
    return { pointer, keyboard };
  };

  const monitors = async (): Promise<Monitor[]> => {
    try {
      const randr = await request<Extension>((cb) => conn.X.require('randr', cb));
      const raw = await getMonitors(conn.X, randr.majorOpcode, conn.root);
      if (raw.length > 0) {
        const out: Monitor[] = [];
        for (const m of raw) {
          const name = await request<string>((cb) => conn.X.GetAtomName(m.nameAtom, cb)).catch(() => `monitor-${m.nameAtom}`);
          out.push({ name, primary: m.primary, x: m.x, y: m.y, width: m.width, height: m.height, scale: 1 });
        }
        return out;
      }
    } catch {
      // RandR < 1.5 or absent: the screen as one monitor
    }
    return [{ name: 'screen', primary: true, x: 0, y: 0, ...size, scale: 1 }];
  };

  const backend: X11ScreenBackend = {
    name: 'x11',
    async capabilities(): Promise<ScreenCapabilities> {
      const problem = layoutProblem(conn);
      return {
        session: 'x11',
        capture: {
          available: problem === null,
          path: await capturer.path(),
          degradations: problem === null ? [...CAPTURE_DEGRADATIONS] : [...CAPTURE_DEGRADATIONS, 'unsupported_pixel_layout'],
        },
        input: {
          available: pointer !== null,
          path: pointer !== null ? INPUT_PATH : 'none',
          degradations: keyboard !== null && keyboard.spareCount() === 0 ? ['no_spare_keycode'] : [],
        },
        monitors: await monitors(),
        screen: { x: 0, y: 0, ...size },
      };
    },
    capture(region?: ScreenRect) {
      if (closed !== null) return Promise.reject(fail('capture_unavailable', 'The X11 screen backend is closed.', { reason: 'closed' }));
      return capturer.capture(region);
    },
    move: (x: number, y: number) => input().pointer.move(x, y),
    button: (button: MouseButton, action: 'down' | 'up') => input().pointer.button(button, action === 'down'),
    click: (x: number, y: number, button: MouseButton, count: number) => input().pointer.click(x, y, button, count),
    scroll: (x: number, y: number, direction: ScrollDirection, detents: number) => input().pointer.scroll(x, y, direction, detents),
    typeText: (text: string) => input().keyboard.typeText(text),
    key(keys: readonly KeyName[], action: 'tap' | 'down' | 'up') {
      const { keyboard: kb } = input();
      const keysyms: number[] = [];
      for (const name of keys) {
        const ks = keysymOf(name);
        if (ks === null) {
          return Promise.reject(
            fail('invalid_argument', `Unknown key ${JSON.stringify(name)}: one character or one of ${knownKeyNames().join(', ')}.`, { key: name }),
          );
        }
        keysyms.push(ks);
      }
      if (keysyms.length === 0) return Promise.reject(fail('invalid_argument', 'No keys given.', {}));
      return kb.keys(keysyms, action);
    },
    async spareKeycodes() {
      const { min_keycode: min, max_keycode: max } = conn.display;
      const rows = await request<number[][]>((cb) => conn.X.GetKeyboardMapping(min, max - min + 1, cb));
      return rows.flatMap((row, i) => (row.every((ks) => ks === 0) ? [min + i] : []));
    },
    async cursor() {
      const p = await request<{ rootX: number; rootY: number }>((cb) => conn.X.QueryPointer(conn.root, cb));
      return { x: p.rootX, y: p.rootY };
    },
    windows: () => stack.list(),
    focusedWindow: () => stack.focused(),
    activate: (handle) => stack.activate(handle),
    close() {
      closed ??= (async () => {
        try {
          await pointer?.close();
          await keyboard?.close();
          await capturer.close();
          await sync(conn.X);
        } catch {
          // the connection is already gone: nothing left to release or restore
        }
        await new Promise<void>((resolve) => conn.X.close(() => resolve()));
      })();
      return closed;
    },
  };
  return backend;
}
