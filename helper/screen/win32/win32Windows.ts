// The Windows window stack for the screen tier: visible, not minimized top-level windows in Z order
// (EnumWindows enumerates top first), each with its process, title, class and rectangle; and the
// foreground window, which has the keyboard focus. Handles are HWNDs in 0x hex, as captureWindow takes them.
import type { NativeWindow } from '../screenBackend.js';
import { readRect, type ScreenApi } from './win32ScreenApi.js';

const TEXT_CHARS = 512;

function text(read: (hwnd: number, buf: Buffer, max: number) => number, hwnd: number): string {
  const buf = Buffer.alloc(TEXT_CHARS * 2);
  const n = read(hwnd, buf, TEXT_CHARS);
  return n > 0 ? buf.toString('utf16le', 0, n * 2) : '';
}

/** The handle string of an HWND. */
export function windowHandle(hwnd: number): string {
  return `0x${hwnd.toString(16)}`;
}

/** Visible top-level windows, top first. */
export function listWindows(api: ScreenApi): NativeWindow[] {
  const hwnds: number[] = [];
  // A transient callback: koffi calls it synchronously during EnumWindows.
  api.EnumWindows((hwnd) => (hwnds.push(hwnd), true), 0);
  const out: NativeWindow[] = [];
  const rect = Buffer.alloc(16);
  for (const hwnd of hwnds) {
    if (!api.IsWindowVisible(hwnd) || api.IsIconic(hwnd) || !api.GetWindowRect(hwnd, rect)) continue;
    const r = readRect(rect);
    if (r.width <= 0 || r.height <= 0) continue;
    const pid = [0];
    api.GetWindowThreadProcessId(hwnd, pid);
    const window: NativeWindow = {
      handle: windowHandle(hwnd),
      title: text((h, b, m) => api.GetWindowTextW(h, b, m), hwnd),
      classes: [text((h, b, m) => api.GetClassNameW(h, b, m), hwnd)],
      rect: r,
    };
    const owner = pid[0] ?? 0;
    if (owner > 0) window.pid = owner;
    out.push(window);
  }
  return out;
}

/** The foreground window, which receives keyboard input. */
export function foregroundWindow(api: ScreenApi): string | undefined {
  const hwnd = api.GetForegroundWindow();
  return hwnd === 0 ? undefined : windowHandle(hwnd);
}
