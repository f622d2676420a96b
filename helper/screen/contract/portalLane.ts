// What the two Wayland lanes of the screen contract share (gnomeLane.ts, kdeLane.ts): the portal
// backend in-process against a private headless session and desktop/apps/canvasApp.py on Wayland.
// The compositor places the canvas where it likes and tells no client where: the lane finds the
// pattern on the screen, and turns the canvas's window-relative event points into screen ones. Each
// desktop adds what only it needs before the first screenshot and once the canvas is found.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrivateDesktop } from '../../../desktop/runningDesktop.js';
import { REPO_ROOT } from '../../../main/core/runtime/paths.js';
import type { CapturedImage, ScreenRect } from '../screenBackend.js';
import { openWaylandBackend, type WaylandScreenBackend } from '../wayland/waylandBackend.js';
import { EventLog, pixel, type CanvasEvent, type ScreenLane, type ScreenLacks, type ScreenQuirks } from './screenLane.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const SIZE = { width: 400, height: 300 };
/** The screen of both sessions. */
export const PORTAL_SCREEN = { x: 0, y: 0, width: 1280, height: 800 };

/** What the contract expects of the portal backend on a 1280×800 session, GNOME's or KDE's. */
export const PORTAL_EXPECT = {
  session: 'wayland',
  capturePath: /^portal:Screenshot$/,
  inputPath: 'portal:RemoteDesktop',
  screen: PORTAL_SCREEN,
  primaryMonitors: 1,
  monitorScale: 1,
} as const;

/** What the portal backend cannot do on any compositor, and why. */
export const PORTAL_LACKS = {
  windowCapture: 'the Screenshot portal takes the whole screen only: the backend has no captureWindow',
  windowStack: 'Wayland tells no client where windows are or which has the focus: the backend lists none',
  cursorReadBack: 'Wayland tells no client where the pointer is: cursor() is where the backend put it, so reading it back proves nothing',
};

/** Where the canvas's pattern is on the screen: the bounding box of its red quadrant, less the border. */
export function findCanvas(img: CapturedImage): ScreenRect | undefined {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -1, -1];
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const [r, g, b] = pixel(img, img.origin.x + x, img.origin.y + y);
      if (r !== 255 || g !== 0 || b !== 0) continue;
      minX = Math.min(minX, x);
      minY = Math.min(minY, y);
      maxX = Math.max(maxX, x);
      maxY = Math.max(maxY, y);
    }
  // The red quadrant is 199x149 inside the border: anything else is a preview, an animation, or no canvas.
  if (maxX - minX + 1 !== SIZE.width / 2 - 1 || maxY - minY + 1 !== SIZE.height / 2 - 1) return undefined;
  return { x: img.origin.x + minX - 1, y: img.origin.y + minY - 1, ...SIZE };
}

/** A Wayland lane: the session and the portal backend opened on it. */
export interface PortalLane<D extends PrivateDesktop> extends ScreenLane {
  desktop: D;
  screen: WaylandScreenBackend;
}

/** What one desktop adds to the shared lane. */
export interface PortalLaneParts {
  /** Arguments of the canvas after its path. */
  canvasArgs: string[];
  /** The canvas's log lines as events, in window-relative points. */
  events(line: Record<string, unknown>): CanvasEvent[];
  /** The first screenshot, with what the desktop needs around it (a consent dialog answered, the pointer moved away). */
  firstCapture(screen: WaylandScreenBackend): Promise<CapturedImage>;
  /** What the desktop needs once the canvas is found (GNOME's first input asks the person). */
  found?(screen: WaylandScreenBackend, canvas: ScreenRect): Promise<void>;
  quirks: ScreenQuirks;
  lacks: ScreenLacks;
}

/** Starts the canvas on `desktop`, opens the portal backend and finds the canvas; the desktop is stopped if any of it fails. */
export async function openPortalLane<D extends PrivateDesktop>(desktop: D, parts: PortalLaneParts): Promise<PortalLane<D>> {
  let screen: WaylandScreenBackend | undefined;
  try {
    const app = await desktop.launch('/usr/bin/python3', [CANVAS, ...parts.canvasArgs], { waitForWindow: 'Overseer Canvas' });
    const logs = path.join(desktop.dir, 'logs');
    let origin = { x: 0, y: 0 };
    // GTK on Wayland reports points relative to the window: made screen points with the found place.
    const toScreen = (e: CanvasEvent): CanvasEvent => (e.kind === 'button' || e.kind === 'scroll' ? { ...e, x: e.x + origin.x, y: e.y + origin.y } : e);
    const events = new EventLog(
      () => path.join(logs, readdirSync(logs).find((f) => f.endsWith('-python3.out.log')) ?? 'none'),
      (line) => parts.events(line).map(toScreen),
    );
    screen = await openWaylandBackend({ env: desktop.env, tokens: memoryTokens(), log: () => undefined });
    let canvas = findCanvas(await parts.firstCapture(screen));
    for (let i = 0; canvas === undefined && i < 100; i++) {
      await sleep(100);
      canvas = findCanvas(await screen.capture());
    }
    if (canvas === undefined) throw new Error('the canvas pattern is nowhere on the screen');
    origin = { x: canvas.x, y: canvas.y };
    await parts.found?.(screen, canvas);
    const opened = screen;
    return {
      desktop,
      screen: opened,
      canvas: { ...canvas, title: 'Overseer Canvas', pid: app.pid },
      events,
      handlePattern: /^$/,
      expect: PORTAL_EXPECT,
      namedKeyText: '\ra',
      quirks: parts.quirks,
      lacks: parts.lacks,
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

/** The restore token kept in memory (the portals here give none: RemoteDesktop is version 1 in xdg-desktop-portal 1.16 and GNOME 43). */
function memoryTokens(): { load(): string | undefined; save(token: string | undefined): void } {
  let kept: string | undefined;
  return { load: () => kept, save: (token) => void (kept = token) };
}
