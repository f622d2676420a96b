// Capturing pixels on Windows into a 32-bit top-down DIB section, whose bytes are B,G,R,X like the
// X11 backend's. The whole virtual screen (or a region of it): BitBlt from the screen DC, which
// shows what is on screen, covers included. One window: PrintWindow, which asks the window to paint
// itself into our DC, so a covered window shows its own pixels; but that is the application's
// doing (a window that ignores WM_PRINT/WM_PRINTCLIENT comes out black), hence a degraded path.

import { fail } from '../../../protocol/index.js';
import type { CapturedImage, ScreenRect } from '../screenBackend.js';
import { CAPTUREBLT, PW_RENDERFULLCONTENT, readRect, SRCCOPY, type ScreenApi } from './win32ScreenApi.js';

export const PATH_BITBLT = 'win32:BitBlt';
export const PATH_PRINTWINDOW = 'win32:PrintWindow';

/** A memory DC with a top-down 32-bit DIB section selected into it. */
interface Surface {
  dc: number;
  bitmap: number;
  previous: number;
  bits: unknown;
}

function createSurface(api: ScreenApi, reference: number, width: number, height: number): Surface {
  const dc = api.CreateCompatibleDC(reference);
  if (dc === 0) throw fail('capture_unavailable', `CreateCompatibleDC failed (error ${api.GetLastError()}).`, { reason: 'gdi_failed' });
  const info = Buffer.alloc(44); // BITMAPINFOHEADER + one (unused) colour
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(width, 4);
  info.writeInt32LE(-height, 8); // negative: top row first
  info.writeUInt16LE(1, 12); // planes
  info.writeUInt16LE(32, 14); // bits per pixel
  const out: unknown[] = [null];
  const bitmap = api.CreateDIBSection(dc, info, 0 /* DIB_RGB_COLORS */, out, 0, 0);
  if (bitmap === 0 || out[0] === null || out[0] === undefined) {
    const error = api.GetLastError();
    api.DeleteDC(dc);
    throw fail('capture_unavailable', `CreateDIBSection ${width}x${height} failed (error ${error}).`, { reason: 'gdi_failed' });
  }
  return { dc, bitmap, previous: api.SelectObject(dc, bitmap), bits: out[0] };
}

/** Copies the surface's pixels out (never keep a koffi.view: the memory goes with the bitmap). */
function readSurface(api: ScreenApi, s: Surface, width: number, height: number): Buffer {
  api.GdiFlush();
  const bytes = width * height * 4;
  const copy = Buffer.alloc(bytes);
  copy.set(new Uint8Array(api.koffi.view(s.bits, bytes)));
  return copy;
}

function destroySurface(api: ScreenApi, s: Surface): void {
  api.SelectObject(s.dc, s.previous);
  api.DeleteObject(s.bitmap);
  api.DeleteDC(s.dc);
}

/** `region` (default: all of it) of the virtual screen `desk`, through BitBlt from the screen DC. */
export function captureScreen(api: ScreenApi, desk: ScreenRect, region?: ScreenRect): CapturedImage {
  const r = region ?? desk;
  const whole = [r.x, r.y, r.width, r.height].every(Number.isInteger) && r.width > 0 && r.height > 0;
  if (!whole || r.x < desk.x || r.y < desk.y || r.x + r.width > desk.x + desk.width || r.y + r.height > desk.y + desk.height) {
    throw fail('invalid_argument', `The region ${JSON.stringify(r)} is not a non-empty integer rectangle inside the virtual screen ${JSON.stringify(desk)}.`, {
      region: r,
    });
  }
  const started = performance.now();
  const screen = api.GetDC(0); // the screen DC: virtual-screen coordinates
  if (screen === 0) {
    throw fail('capture_unavailable', `GetDC(NULL) failed (error ${api.GetLastError()}): no screen to read in this session.`, { reason: 'no_screen_dc' });
  }
  let surface: Surface | undefined;
  try {
    surface = createSurface(api, screen, r.width, r.height);
    if (!api.BitBlt(surface.dc, 0, 0, r.width, r.height, screen, r.x, r.y, SRCCOPY | CAPTUREBLT)) {
      // e.g. the secure desktop or a locked workstation
      throw fail('capture_unavailable', `BitBlt from the screen failed (error ${api.GetLastError()}).`, { reason: 'bitblt_failed' });
    }
    const data = readSurface(api, surface, r.width, r.height);
    return {
      width: r.width,
      height: r.height,
      stride: r.width * 4,
      pixelFormat: 'bgrx',
      data,
      origin: { x: r.x, y: r.y },
      capturePath: PATH_BITBLT,
      captureMs: performance.now() - started,
    };
  } finally {
    if (surface !== undefined) destroySurface(api, surface);
    api.ReleaseDC(0, screen);
  }
}

/** A native window handle given as decimal (or 0x hex) digits. */
export function parseWindowHandle(window: string): number {
  const hwnd = /^(?:0x[0-9a-f]{1,16}|[0-9]{1,20})$/i.test(window) ? Number(window) : NaN;
  if (!Number.isSafeInteger(hwnd) || hwnd === 0) {
    throw fail('invalid_argument', `${JSON.stringify(window)} is not a window handle (an HWND in decimal or 0x hex).`, { window });
  }
  return hwnd;
}

/** One window's own pixels through PrintWindow(PW_RENDERFULLCONTENT); origin: its top-left on the virtual screen. */
export function captureWindow(api: ScreenApi, window: string): CapturedImage {
  const hwnd = parseWindowHandle(window);
  if (!api.IsWindow(hwnd)) throw fail('capture_unavailable', `There is no window ${window}.`, { reason: 'no_such_window', window });
  const rectBuf = Buffer.alloc(16);
  if (!api.GetWindowRect(hwnd, rectBuf)) {
    throw fail('capture_unavailable', `GetWindowRect(${window}) failed (error ${api.GetLastError()}).`, { reason: 'no_window_rect', window });
  }
  const rect = readRect(rectBuf);
  if (rect.x <= -32000 && rect.y <= -32000) {
    throw fail('capture_unavailable', `The window ${window} is minimized: it paints nothing.`, { reason: 'window_minimized', window });
  }
  if (rect.width <= 0 || rect.height <= 0) {
    throw fail('capture_unavailable', `The window ${window} has no area (${rect.width}x${rect.height}).`, { reason: 'window_empty', window });
  }
  const started = performance.now();
  const screen = api.GetDC(0);
  if (screen === 0) throw fail('capture_unavailable', `GetDC(NULL) failed (error ${api.GetLastError()}).`, { reason: 'no_screen_dc' });
  let surface: Surface | undefined;
  try {
    surface = createSurface(api, screen, rect.width, rect.height);
    if (!api.PrintWindow(hwnd, surface.dc, PW_RENDERFULLCONTENT)) {
      throw fail('capture_unavailable', `PrintWindow(${window}) failed (error ${api.GetLastError()}).`, { reason: 'printwindow_failed', window });
    }
    const data = readSurface(api, surface, rect.width, rect.height);
    return {
      width: rect.width,
      height: rect.height,
      stride: rect.width * 4,
      pixelFormat: 'bgrx',
      data,
      origin: { x: rect.x, y: rect.y },
      capturePath: PATH_PRINTWINDOW,
      captureMs: performance.now() - started,
    };
  } finally {
    if (surface !== undefined) destroySurface(api, surface);
    api.ReleaseDC(0, screen);
  }
}
