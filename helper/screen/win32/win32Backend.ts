// The Windows screen backend, in-process over koffi: capture through win32Capture.ts (BitBlt for
// the screen, PrintWindow for one window), input through win32Input.ts (SendInput), monitors from
// EnumDisplayMonitors + GetMonitorInfoW with GetDpiForMonitor's scale. Physical pixels need
// Per-Monitor-V2 DPI awareness, set at open; where the system refuses it (Wine does), the awareness
// the process has is named as a degradation, because coordinates may then be scaled by the system.

import { fail, OverseerError } from '../../../protocol/index.js';
import { DPI_CONTEXT } from '../../platform/win32/user32.js';
import type { CapturedImage, KeyName, Monitor, MouseButton, ScreenBackend, ScreenCapabilities, ScreenRect, ScrollDirection } from '../screenBackend.js';
import { captureScreen, captureWindow, PATH_BITBLT, PATH_PRINTWINDOW } from './win32Capture.js';
import { INPUT_PATH, Win32Input } from './win32Input.js';
import { MONITORINFOF_PRIMARY, readRect, screenApi, SM, type ScreenApi } from './win32ScreenApi.js';
import { foregroundWindow, listWindows } from './win32Windows.js';

/** What the screen (BitBlt from the screen DC) shows: whatever is on top. */
const CAPTURE_DEGRADATIONS = ['covered_windows_show_cover'];
/**
 * PrintWindow makes the window paint itself: applications that ignore WM_PRINT/WM_PRINTCLIENT (or
 * draw with DirectX) come out black or partial. Windows Graphics Capture, the window-bound path that
 * does not depend on the application, is not built: it cannot be tested without a Windows host.
 */
const WINDOW_CAPTURE_DEGRADATIONS = ['printwindow_app_dependent', 'windows_graphics_capture_unavailable'];
/** SendInput goes to whatever window is under the pointer or has the keyboard focus, not to one window. */
const INPUT_DEGRADATIONS = ['global_input'];

/** The DPI awareness the process ended up with, as a degradation name (none for Per-Monitor-V2). */
export type DpiOutcome = { degradation: string | null; detail: string };

/** Asks for Per-Monitor-V2, then reports what the process has (it may have been set before, e.g. by the accessibility backend). */
export function establishDpiAwareness(api: ScreenApi): DpiOutcome {
  let detail = '';
  if (api.SetProcessDpiAwarenessContext === undefined) detail = 'SetProcessDpiAwarenessContext is absent';
  else if (!api.SetProcessDpiAwarenessContext(DPI_CONTEXT.PER_MONITOR_AWARE_V2)) {
    detail = `SetProcessDpiAwarenessContext(PER_MONITOR_AWARE_V2) refused (error ${api.GetLastError()})`;
  }
  const current = api.GetThreadDpiAwarenessContext?.();
  if (current === undefined || api.AreDpiAwarenessContextsEqual === undefined || api.GetAwarenessFromDpiAwarenessContext === undefined) {
    return { degradation: 'dpi_unknown', detail: `${detail}; the awareness cannot be queried here` };
  }
  if (api.AreDpiAwarenessContextsEqual(current, DPI_CONTEXT.PER_MONITOR_AWARE_V2)) return { degradation: null, detail: 'per-monitor v2' };
  const awareness = api.GetAwarenessFromDpiAwarenessContext(current);
  const name = awareness === 2 ? 'dpi_per_monitor_v1' : awareness === 1 ? 'dpi_system_aware' : 'dpi_unaware';
  return { degradation: name, detail: `${detail}; the process is ${name.slice(4).replace(/_/g, ' ')}` };
}

/** The virtual desktop: the bounding box of every monitor (its origin may be negative). */
export function virtualDesktop(api: ScreenApi): ScreenRect {
  return {
    x: api.GetSystemMetrics(SM.XVIRTUALSCREEN),
    y: api.GetSystemMetrics(SM.YVIRTUALSCREEN),
    width: api.GetSystemMetrics(SM.CXVIRTUALSCREEN),
    height: api.GetSystemMetrics(SM.CYVIRTUALSCREEN),
  };
}

/** The monitors, with GetDpiForMonitor's effective scale where it answers; `scaleKnown` false where it did not for some. */
export function listMonitors(api: ScreenApi): { monitors: Monitor[]; scaleKnown: boolean } {
  const handles: number[] = [];
  api.EnumDisplayMonitors(0, null, (monitor) => (handles.push(monitor), true), 0);
  let scaleKnown = api.GetDpiForMonitor !== undefined;
  const monitors: Monitor[] = [];
  for (const h of handles) {
    const info = Buffer.alloc(104); // MONITORINFOEXW
    info.writeUInt32LE(info.length, 0);
    if (!api.GetMonitorInfoW(h, info)) continue;
    const name = info.toString('utf16le', 40, 104).replace(/\0.*$/s, '') || `monitor-${h}`;
    let scale = 1;
    const dpiX = [0];
    const dpiY = [0];
    if (api.GetDpiForMonitor !== undefined && api.GetDpiForMonitor(h, 0 /* MDT_EFFECTIVE_DPI */, dpiX, dpiY) === 0 && (dpiX[0] ?? 0) > 0) {
      scale = (dpiX[0] ?? 96) / 96;
    } else scaleKnown = false;
    monitors.push({ name, primary: (info.readUInt32LE(36) & MONITORINFOF_PRIMARY) !== 0, ...readRect(info, 4), scale });
  }
  return { monitors, scaleKnown };
}

/** The Windows backend; `dpi` says what DPI awareness open() obtained. */
export interface Win32ScreenBackend extends ScreenBackend {
  readonly dpi: DpiOutcome;
  captureWindow(window: string): Promise<CapturedImage>;
}

/** Binds the Win32 functions, sets DPI awareness. capture_unavailable off Windows or without koffi. */
export function openWin32ScreenBackend(): Win32ScreenBackend {
  if (process.platform !== 'win32') {
    throw fail('capture_unavailable', `The Windows screen backend runs on Windows only (this is ${process.platform}).`, { reason: 'not_windows' });
  }
  let api: ScreenApi;
  try {
    api = screenApi();
  } catch (error) {
    throw fail('capture_unavailable', `The Win32 screen functions cannot be bound: ${error instanceof Error ? error.message : String(error)}.`, {
      reason: 'koffi_unavailable',
    });
  }
  const dpi = establishDpiAwareness(api);
  const dpiDegradations = dpi.degradation === null ? [] : [dpi.degradation];
  const input = new Win32Input(api, () => virtualDesktop(api));
  let closed = false;
  const open = (code: 'capture_unavailable' | 'input_unavailable'): void => {
    if (closed) throw fail(code, 'The Windows screen backend is closed.', { reason: 'closed' });
  };
  // Synchronous Win32 calls surface as rejected promises, like every other backend's.
  const async =
    <A extends unknown[], R>(code: 'capture_unavailable' | 'input_unavailable', fn: (...args: A) => R) =>
    (...args: A): Promise<R> => {
      try {
        open(code);
        return Promise.resolve(fn(...args));
      } catch (error) {
        if (error instanceof OverseerError) return Promise.reject(error);
        return Promise.reject(fail(code, `A Win32 call failed: ${error instanceof Error ? error.message : String(error)}.`, { reason: 'win32_call_failed' }));
      }
    };

  return {
    name: 'win32',
    dpi,
    capabilities: async('capture_unavailable', (): ScreenCapabilities => {
      const { monitors, scaleKnown } = listMonitors(api);
      // GetDpiForMonitor answers the real scale to a per-monitor aware process; to others, a virtualized 96.
      const perMonitor = dpi.degradation === null || dpi.degradation === 'dpi_per_monitor_v1';
      const scaleDegradations = scaleKnown && perMonitor ? [] : ['monitor_scale_unknown'];
      return {
        session: 'windows',
        capture: { available: true, path: PATH_BITBLT, degradations: [...CAPTURE_DEGRADATIONS, ...dpiDegradations, ...scaleDegradations] },
        windowCapture: { available: true, path: PATH_PRINTWINDOW, degradations: [...WINDOW_CAPTURE_DEGRADATIONS, ...dpiDegradations] },
        input: { available: true, path: INPUT_PATH, degradations: [...INPUT_DEGRADATIONS, ...dpiDegradations] },
        monitors,
        screen: virtualDesktop(api),
      };
    }),
    capture: async('capture_unavailable', (region?: ScreenRect) => captureScreen(api, virtualDesktop(api), region)),
    captureWindow: async('capture_unavailable', (window: string) => captureWindow(api, window)),
    move: async('input_unavailable', (x: number, y: number) => input.move(x, y)),
    button: async('input_unavailable', (button: MouseButton, action: 'down' | 'up') => input.button(button, action)),
    click: async('input_unavailable', (x: number, y: number, button: MouseButton, count: number) => input.click(x, y, button, count)),
    scroll: async('input_unavailable', (x: number, y: number, direction: ScrollDirection, detents: number) => input.scroll(x, y, direction, detents)),
    typeText: async('input_unavailable', (text: string) => input.typeText(text)),
    key: async('input_unavailable', (keys: readonly KeyName[], action: 'tap' | 'down' | 'up') => input.key(keys, action)),
    cursor: async('input_unavailable', () => input.cursor()),
    windows: async('capture_unavailable', () => listWindows(api)),
    focusedWindow: async('input_unavailable', () => foregroundWindow(api)),
    close: () => {
      if (!closed) {
        closed = true;
        input.close();
      }
      return Promise.resolve();
    },
  };
}
