// The X11 lane of the screen contract: the X11 backend in-process against a private desktop (Xvfb,
// no window manager) and desktop/apps/canvasApp.py, whose GTK events (stdout, root coordinates)
// are normalized here.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startPrivateDesktop } from '../../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../../main/core/runtime/paths.js';
import { openX11Backend } from '../x11/x11Backend.js';
import { EventLog, type CanvasEvent, type ScreenLane } from './screenLane.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const CANVAS_RECT = { x: 100, y: 100, width: 400, height: 300 };
const SCREEN = { x: 0, y: 0, width: 1280, height: 800 };

/** X11 keysyms of the keys the contract presses, by their X11 names. */
const KEYSYMS: Readonly<Record<number, string>> = {
  0xff0d: 'Return',
  0xff51: 'Left',
  0xffc2: 'F5',
  0xffe1: 'Shift_L',
  0xffe2: 'Shift_R',
  0xffe3: 'Control_L',
  0xffe4: 'Control_R',
};

const keyName = (keyval: number): string =>
  KEYSYMS[keyval] ?? (keyval >= 0x20 && keyval <= 0x7e ? String.fromCharCode(keyval) : `keysym:0x${keyval.toString(16)}`);

/** One line of the GTK canvas as contract events (the osworld lane reads the same canvas). */
export function gtkCanvasEvents(line: Record<string, unknown>): CanvasEvent[] {
  const n = (k: string): number => Number(line[k]);
  switch (line['ev']) {
    case 'press':
    case 'release':
      return [{ kind: 'button', action: line['ev'] === 'press' ? 'down' : 'up', button: n('button'), n: n('n'), x: n('x'), y: n('y') }];
    case 'scroll': // GTK delivers one discrete scroll event per wheel button press (one detent)
      return [{ kind: 'scroll', dir: String(line['dir']), steps: 1, x: n('x'), y: n('y') }];
    case 'key': {
      const text = typeof line['text'] === 'string' ? line['text'] : '';
      return [{ kind: 'key', action: 'down', key: keyName(n('keyval')) }, ...(text !== '' ? [{ kind: 'text' as const, text }] : [])];
    }
    case 'keyrelease':
      return [{ kind: 'key', action: 'up', key: keyName(n('keyval')) }];
    case 'paste': // Ctrl+V: the clipboard's text, as a text field would insert it
      return typeof line['text'] === 'string' && line['text'] !== '' ? [{ kind: 'text', text: line['text'] }] : [];
    default:
      return [];
  }
}

/** The X11 lane, with what only it has: its desktop's display and the spare keycodes it remaps for typing. */
export interface X11ScreenLane extends ScreenLane {
  display: string;
  /** The keymap's spare keycodes (NoSymbol rows) when the lane opened, to prove typing restores them. */
  sparesBefore: number[];
  spareKeycodes(): Promise<number[]>;
}

/** Starts a private desktop with the canvas and opens the X11 backend on it. */
export async function x11Setup(): Promise<X11ScreenLane> {
  const desktop = await startPrivateDesktop({ width: SCREEN.width, height: SCREEN.height });
  try {
    const app = await desktop.launch('/usr/bin/python3', [CANVAS, '--x', String(CANVAS_RECT.x), '--y', String(CANVAS_RECT.y)], {
      waitForWindow: 'Overseer Canvas',
    });
    const logs = path.join(desktop.dir, 'logs');
    const events = new EventLog(() => path.join(logs, readdirSync(logs).find((f) => f.endsWith('-python3.out.log')) ?? 'none'), gtkCanvasEvents);
    for (let i = 0; !events.raw().some((e) => e['ev'] === 'ready'); i++) {
      if (i > 1500) throw new Error('the canvas did not draw');
      await new Promise((r) => setTimeout(r, 10));
    }
    const screen = await openX11Backend({ display: desktop.display });
    return {
      screen,
      canvas: { ...CANVAS_RECT, title: 'Overseer Canvas', pid: app.pid },
      events,
      handlePattern: /^x11:0x[0-9a-f]+$/,
      expect: {
        session: 'x11',
        capturePath: /^x11:(MIT-SHM\.)?GetImage$/,
        inputPath: 'x11:XTEST.FakeInput',
        screen: SCREEN,
        primaryMonitors: 0,
        monitorScale: 1,
      },
      // GTK's text of a key is gdk_keyval_to_unicode of its keysym: Return is a carriage return, Ctrl+a still "a".
      namedKeyText: '\ra',
      quirks: { doublePressAfterPress: "GTK reports a double click's second press, then its own 2BUTTON_PRESS" },
      lacks: {
        windowCapture: 'the X11 backend has no window-bound capture yet (Composite is not built): it has no captureWindow',
      },
      display: desktop.display,
      sparesBefore: await screen.spareKeycodes(),
      spareKeycodes: () => screen.spareKeycodes(),
      async stop() {
        await screen.close();
        await desktop.stop();
      },
    };
  } catch (error) {
    await desktop.stop();
    throw error;
  }
}
