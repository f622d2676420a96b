// The KDE Plasma 5.27 Wayland lane of the screen contract: the portal lane (portalLane.ts) against a
// private headless KDE session (desktop/kdeDesktop.ts). xdg-desktop-portal-kde asks no one before a
// program outside a sandbox takes screenshots or sends input (5.27 only posts a notification, and a
// headless session shows none): no dialog is answered here, and the lane's own case proves none
// appeared.

import { startKdeDesktop, type KdeDesktop } from '../../../desktop/kdeDesktop.js';
import { openPortalLane, PORTAL_LACKS, PORTAL_SCREEN, type PortalLane } from './portalLane.js';
import { gtkCanvasEvents } from './x11Lane.js';
import type { CanvasEvent } from './screenLane.js';

/** The canvas's lines as events; a smooth scroll (all KWin 5.27 sends through its portal) as detents by its distance. */
export function kdeCanvasEvents(line: Record<string, unknown>): CanvasEvent[] {
  if (line['ev'] !== 'scroll' || line['dir'] !== 'smooth') return gtkCanvasEvents(line);
  const [dx, dy, x, y] = ['dx', 'dy', 'x', 'y'].map((k) => Number(line[k])) as [number, number, number, number];
  const round = (d: number): number => Math.round(Math.abs(d) * 100) / 100;
  const out: CanvasEvent[] = [];
  if (dy !== 0) out.push({ kind: 'scroll', dir: dy > 0 ? 'down' : 'up', steps: round(dy), x, y });
  if (dx !== 0) out.push({ kind: 'scroll', dir: dx > 0 ? 'right' : 'left', steps: round(dx), x, y });
  return out;
}

export type KdeScreenLane = PortalLane<KdeDesktop>;

/** Starts the KDE session with the canvas and opens the portal backend; nobody is asked anything. */
export async function kdeSetup(): Promise<KdeScreenLane> {
  const desktop = await startKdeDesktop(PORTAL_SCREEN);
  return openPortalLane(desktop, {
    // --smooth: KWin 5.27's portal sends the wheel as a distance only; a widget that asks for detents gets nothing.
    canvasArgs: ['--smooth'],
    events: kdeCanvasEvents,
    // KDE draws the pointer into its screenshots, and KWin starts it in the screen's middle, where the canvas
    // is likely to be: moved to the last pixel first (which also starts the remote desktop session, with no dialog).
    firstCapture: async (screen) => {
      await screen.move(PORTAL_SCREEN.width - 1, PORTAL_SCREEN.height - 1);
      return screen.capture();
    },
    quirks: {
      doublePressAfterPress: "GTK reports a double click's second press, then its own 2BUTTON_PRESS",
      pointerInScreenshots: "xdg-desktop-portal-kde's screenshots include the pointer",
      wheelAsSmoothScroll:
        'xdg-desktop-portal-kde 5.27 passes NotifyPointerAxisDiscrete steps to KWin as a raw axis value, so no app gets a discrete detent: the backend sends 10 steps (a smooth 1.0, one detent of distance) per detent, and the canvas asks for smooth scrolling',
    },
    lacks: {
      ...PORTAL_LACKS,
      charactersBeyondLayout:
        "KWin 5.27 types only keysyms of the first layout (it drops others without a word), and the portal has no clipboard: Cyrillic, CJK and emoji on a 'us' layout are refused",
    },
  });
}
