// The KDE Plasma 5.27 Wayland lane of the screen contract: the portal backend in-process against a
// private headless KDE session (desktop/kdeDesktop.ts) and desktop/apps/canvasApp.py on Wayland.
// xdg-desktop-portal-kde asks no one before a program outside a sandbox takes screenshots or sends
// input (5.27 only posts a notification, and a headless session shows none): no dialog is answered
// here, and the lane's own case proves none appeared. KWin places the canvas and tells no client
// where: the lane finds the pattern on the screen (gnomeLane's findCanvas) and turns the canvas's
// window-relative event points into screen ones.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startKdeDesktop, type KdeDesktop } from '../../../desktop/kdeDesktop.js';
import { REPO_ROOT } from '../../../main/core/runtime/paths.js';
import { openWaylandBackend, type WaylandScreenBackend } from '../wayland/waylandBackend.js';
import { findCanvas, PORTAL_EXPECT, PORTAL_LACKS } from './gnomeLane.js';
import { gtkCanvasEvents } from './x11Lane.js';
import { EventLog, type CanvasEvent, type ScreenLane } from './screenLane.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const SCREEN = { x: 0, y: 0, width: 1280, height: 800 };

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

export interface KdeScreenLane extends ScreenLane {
  desktop: KdeDesktop;
  screen: WaylandScreenBackend;
}

/** Starts the KDE session with the canvas and opens the portal backend; nobody is asked anything. */
export async function kdeSetup(): Promise<KdeScreenLane> {
  const desktop = await startKdeDesktop(SCREEN);
  let screen: WaylandScreenBackend | undefined;
  try {
    // --smooth: KWin 5.27's portal sends the wheel as a distance only; a widget that asks for detents gets nothing.
    const app = await desktop.launch('/usr/bin/python3', [CANVAS, '--smooth'], { waitForWindow: 'Overseer Canvas' });
    const logs = path.join(desktop.dir, 'logs');
    let origin = { x: 0, y: 0 };
    // GTK on Wayland reports points relative to the window: made screen points with the found place.
    const toScreen = (e: CanvasEvent): CanvasEvent => (e.kind === 'button' || e.kind === 'scroll' ? { ...e, x: e.x + origin.x, y: e.y + origin.y } : e);
    const events = new EventLog(
      () => path.join(logs, readdirSync(logs).find((f) => f.endsWith('-python3.out.log')) ?? 'none'),
      (line) => kdeCanvasEvents(line).map(toScreen),
    );
    screen = await openWaylandBackend({ env: desktop.env, tokens: memoryTokens(), log: () => undefined });
    // KDE draws the pointer into its screenshots, and KWin starts it in the screen's middle, where the canvas
    // is likely to be: moved to the last pixel first (which also starts the remote desktop session, with no dialog).
    await screen.move(SCREEN.width - 1, SCREEN.height - 1);
    let canvas = findCanvas(await screen.capture());
    for (let i = 0; canvas === undefined && i < 100; i++) {
      await sleep(100);
      canvas = findCanvas(await screen.capture());
    }
    if (canvas === undefined) throw new Error('the canvas pattern is nowhere on the screen');
    origin = { x: canvas.x, y: canvas.y };
    const opened = screen;
    return {
      desktop,
      screen: opened,
      canvas: { ...canvas, title: 'Overseer Canvas', pid: app.pid },
      events,
      handlePattern: /^$/,
      expect: PORTAL_EXPECT,
      namedKeyText: '\ra',
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
      async stop() {
        await opened.close();
        await desktop.stop();
      },
    };
  } catch (error) {
    await screen?.close().catch(() => undefined);
    await desktop.stop();
    throw error;
  }
}

/** The restore token kept in memory (xdg-desktop-portal 1.16 gives none: RemoteDesktop is version 1). */
function memoryTokens(): { load(): string | undefined; save(token: string | undefined): void } {
  let kept: string | undefined;
  return { load: () => kept, save: (token) => void (kept = token) };
}
