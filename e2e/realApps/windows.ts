// Where the real applications' windows go, and knowing they are mapped: openbox (desktop/windowManager.ts)
// puts each window at its place's corner when it maps, and xdotool then sizes it (openbox places by
// X resource name only, and cannot size), so eight windows share 1280x800 without covering each
// other.
//
// Measured under openbox: a fresh Firefox profile and LibreOffice opened maximized at 1280x800 and
// a maximized window ignores resizes (their profiles say where to open instead: browserProfiles.ts,
// officeProfile.ts); LibreOffice names Calc's and Writer's windows alike (resource "libreoffice"),
// so Writer is moved by xdotool alone; GTK 4 tells AT-SPI its window is at 0,0 wherever it is
// (desktop/demoDesktop.ts), so the calculator gets the top-left corner.

import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { type LaunchedApp, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { readStat } from '../../desktop/procs.js';
import { startWindowManager, type WindowPlacement } from '../../desktop/windowManager.js';

const run = promisify(execFile);

/** A window's place: the rectangle it covers on the screen, openbox's frame included, in pixels. */
export interface Place {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The applications of the kit, as the layout names them. */
export type RealAppKey = 'calculator' | 'firefox' | 'chromium' | 'calc' | 'writer' | 'featherpad' | 'qt6' | 'swing';

// Each app's cell on a 1280x800 screen (scaled to others), drawn around the minimum sizes measured
// there, frames included: gnome-calculator 365x496, Firefox 502 wide, Chromium 508 wide, FeatherPad
// 301x249, the Qt 6 form 147 high; Writer lists no paragraph under ~300 high (its toolbars take
// the rest). Three columns: the calculator above the two small forms; the browsers above
// FeatherPad; Writer above Calc.
const DESIGN = { width: 1280, height: 800 };
const CELLS: Record<RealAppKey, readonly [x: number, y: number, w: number, h: number]> = {
  calculator: [0, 0, 365, 496],
  qt6: [0, 496, 365, 152],
  swing: [0, 648, 365, 152],
  firefox: [365, 0, 510, 275],
  chromium: [365, 275, 510, 275],
  featherpad: [365, 550, 510, 250],
  writer: [875, 0, 405, 450],
  calc: [875, 450, 405, 350],
};

/** X resource names (WM_CLASS's first part) openbox places by; Writer shares Calc's and is moved by xdotool alone. */
const RESOURCE_NAMES: Record<RealAppKey, string | null> = {
  calculator: 'gnome-calculator',
  firefox: 'Navigator',
  chromium: 'chromium',
  calc: 'libreoffice',
  writer: null,
  featherpad: 'featherpad',
  qt6: 'qt6Form.py',
  swing: 'SwingForm',
};

/** Every app's place on a screen of this size. */
export function realAppsLayout(screen: { width: number; height: number }): Record<RealAppKey, Place> {
  const sx = (v: number): number => Math.round((v * screen.width) / DESIGN.width);
  const sy = (v: number): number => Math.round((v * screen.height) / DESIGN.height);
  const out = {} as Record<RealAppKey, Place>;
  for (const [key, [x, y, w, h]] of Object.entries(CELLS) as [RealAppKey, (typeof CELLS)[RealAppKey]][]) {
    out[key] = { x: sx(x), y: sy(y), width: sx(x + w) - sx(x), height: sy(y + h) - sy(y) };
  }
  return out;
}

/** Start openbox on `desktop` with the layout's positions (resolves once it manages the screen). */
export function startRealAppsWindowManager(desktop: PrivateDesktop, screen: { width: number; height: number }): Promise<LaunchedApp> {
  const layout = realAppsLayout(screen);
  const placements: WindowPlacement[] = [];
  for (const key of Object.keys(CELLS) as RealAppKey[]) {
    const name = RESOURCE_NAMES[key];
    if (name !== null) placements.push({ name, x: layout[key].x, y: layout[key].y });
  }
  return startWindowManager(desktop, placements);
}

/** Run an X tool on the desktop's display; null when it fails. */
async function tool(desktop: PrivateDesktop, command: string, args: string[]): Promise<string | null> {
  try {
    const { stdout } = await run(command, args, { env: desktop.env, timeout: 5000 });
    return stdout.trim();
  } catch {
    return null; // `xdotool search` exits 1 when nothing matches; a window may vanish between calls
  }
}

const xdotool = (desktop: PrivateDesktop, args: string[]): Promise<string | null> => tool(desktop, 'xdotool', args);

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const matches = (title: string | RegExp, name: string): boolean => {
  if (typeof title === 'string') return name === title;
  title.lastIndex = 0;
  return title.test(name);
};

/** A mapped X window of an app. */
export interface MappedWindow {
  /** X window id, as xdotool prints it. */
  id: string;
  /** Its title (WM_NAME), which these apps also give their AT-SPI frame. */
  title: string;
}

/**
 * Wait until a viewable X window titled `title` belongs to `pid` or its session (windows that name
 * no pid are accepted); rejects after `timeoutMs` naming the title.
 */
export async function waitForMappedWindow(desktop: PrivateDesktop, title: string | RegExp, pid: number, timeoutMs: number): Promise<MappedWindow> {
  // xdotool matches POSIX extended regexps, case-insensitively: a first cut, checked exactly below.
  const pattern = typeof title === 'string' ? `^${escapeRegex(title)}$` : title.source;
  const inApp = (p: number): boolean => p === pid || readStat(p)?.session === pid;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = (await xdotool(desktop, ['search', '--onlyvisible', '--name', pattern]))?.split('\n').filter((s) => s !== '') ?? [];
    for (const id of ids) {
      const name = await xdotool(desktop, ['getwindowname', id]);
      if (name === null || !matches(title, name)) continue;
      const owner = Number(await xdotool(desktop, ['getwindowpid', id]));
      if (!Number.isInteger(owner) || owner <= 0 || inApp(owner)) return { id, title: name };
    }
    if (Date.now() > deadline) throw new Error(`no mapped X window titled ${String(title)} of pid ${pid} on ${desktop.display} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The frame openbox draws around a client (left, right, top, bottom); zeros for undecorated windows. */
async function frameExtents(desktop: PrivateDesktop, id: string): Promise<[number, number, number, number]> {
  const out = await tool(desktop, 'xprop', ['-id', id, '-notype', '_NET_FRAME_EXTENTS']);
  const values = /=\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)/.exec(out ?? '');
  return values === null ? [0, 0, 0, 0] : [Number(values[1]), Number(values[2]), Number(values[3]), Number(values[4])];
}

/**
 * Move and size a window so that its frame covers `place` (best effort: an app may keep a larger
 * minimum size); resolves with the rectangle it covers then.
 */
export async function placeWindow(desktop: PrivateDesktop, id: string, place: Place): Promise<Place | null> {
  const [left, right, top, bottom] = await frameExtents(desktop, id);
  await xdotool(desktop, [
    'windowsize',
    id,
    String(place.width - left - right),
    String(place.height - top - bottom),
    'windowmove',
    id,
    String(place.x),
    String(place.y),
  ]);
  let rect = await settle(desktop, id, place);
  // openbox takes a move as the frame's corner for some clients and as the client's for others
  // (by their window gravity, measured: Qt and LibreOffice land a frame's title bar higher): correct once.
  if (rect !== null && (rect.x !== place.x || rect.y !== place.y)) {
    await xdotool(desktop, ['windowmove', id, String(2 * place.x - rect.x), String(2 * place.y - rect.y)]);
    rect = await settle(desktop, id, place);
  }
  return rect;
}

/** The window's rectangle once it is `place`, or after a second (the app answers a resize when it likes). */
async function settle(desktop: PrivateDesktop, id: string, place: Place): Promise<Place | null> {
  let rect: Place | null = null;
  for (let i = 0; i < 20; i += 1) {
    rect = await windowRect(desktop, id);
    if (rect !== null && rect.x === place.x && rect.y === place.y && rect.width === place.width && rect.height === place.height) break;
    await sleep(50);
  }
  return rect;
}

/**
 * The rectangle a window covers on the screen, its frame included (xwininfo and _NET_FRAME_EXTENTS:
 * `xdotool getwindowgeometry` counts openbox's frame offset twice), or null when it is gone.
 */
export async function windowRect(desktop: PrivateDesktop, id: string): Promise<Place | null> {
  const out = await tool(desktop, 'xwininfo', ['-id', id]);
  if (out === null) return null;
  const field = (label: string): number => Number(new RegExp(`${label}:\\s*(-?\\d+)`).exec(out)?.[1]);
  const client = { x: field('Absolute upper-left X'), y: field('Absolute upper-left Y'), width: field('Width'), height: field('Height') };
  if (!Object.values(client).every(Number.isFinite)) return null;
  const [left, right, top, bottom] = await frameExtents(desktop, id);
  return { x: client.x - left, y: client.y - top, width: client.width + left + right, height: client.height + top + bottom };
}
