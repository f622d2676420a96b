// The user32 window functions that both Windows sides call, bound once with koffi: the accessibility
// backends (helper/backends/windows, win32Api.ts) and the screen backend (helper/screen/win32,
// win32ScreenApi.ts) each add their own functions to these. With them kernel32's GetLastError, which
// tells why one of them failed, and the one loader of koffi and its DLLs. Loaded on Windows only (and
// under Wine in the Wine lane), on first use: importing this module anywhere else never touches koffi.
// Handles travel as numbers (intptr_t).
import { createRequire } from 'node:module';
import type * as Koffi from 'koffi';

/** DPI_AWARENESS_CONTEXT pseudo-handles. */
export const DPI_CONTEXT = { UNAWARE: -1, SYSTEM_AWARE: -2, PER_MONITOR_AWARE: -3, PER_MONITOR_AWARE_V2: -4 } as const;

/** The koffi callback type of EnumWindows and EnumChildWindows, registered with the functions below. */
export const ENUM_WINDOWS_PROC = 'OverseerEnumProc';

/** The window functions both sides bind. The optional one is missing on older Windows (and some Wine versions). */
export interface WindowFunctions {
  koffi: typeof Koffi;
  EnumWindows(callback: (hwnd: number, lp: number) => boolean, lp: number): boolean;
  /** The class name as UTF-16 into `buffer`; the count of characters. */
  GetClassNameW(hwnd: number, buffer: Buffer, max: number): number;
  GetWindowRect(hwnd: number, rect: Buffer): boolean;
  IsWindow(hwnd: number): boolean;
  IsWindowVisible(hwnd: number): boolean;
  GetWindowThreadProcessId(hwnd: number, pid: number[]): number;
  GetForegroundWindow(): number;
  SetProcessDpiAwarenessContext?(context: number): boolean;
  GetLastError(): number;
}

let koffiModule: typeof Koffi | undefined;
const libraries = new Map<string, Koffi.LibraryHandle>();
let bound: WindowFunctions | undefined;

/** koffi, required on first use. Throws where it is not installed. */
export function loadKoffi(): typeof Koffi {
  koffiModule ??= createRequire(import.meta.url)('koffi') as typeof Koffi;
  return koffiModule;
}

/** A DLL loaded through koffi (once per name). Throws where it is missing. */
export function library(name: string): Koffi.LibraryHandle {
  let lib = libraries.get(name);
  if (lib === undefined) {
    lib = loadKoffi().load(name);
    libraries.set(name, lib);
  }
  return lib;
}

/** A function that older Windows (or Wine) may not export: undefined there, or when `lib` is missing. */
export function optionalFunc<T>(lib: Koffi.LibraryHandle | null, decl: string): T | undefined {
  try {
    return lib === null ? undefined : (lib.func(decl) as T);
  } catch {
    return undefined;
  }
}

/** Binds the shared window functions (once). Throws where koffi or the DLLs are missing. */
export function windowFunctions(): WindowFunctions {
  if (bound !== undefined) return bound;
  const koffi = loadKoffi();
  const u = library('user32.dll');
  const k = library('kernel32.dll');
  const f = <T>(lib: Koffi.LibraryHandle, decl: string): T => lib.func(decl) as T;
  // Older Windows (and some Wine versions) lack it.
  const dpi = optionalFunc<WindowFunctions['SetProcessDpiAwarenessContext']>(u, 'bool __stdcall SetProcessDpiAwarenessContext(intptr_t value)');
  // Registers the callback type the EnumWindows declaration (and win32Api's EnumChildWindows) names.
  koffi.proto(`bool __stdcall ${ENUM_WINDOWS_PROC}(intptr_t hwnd, intptr_t lp)`);
  bound = {
    koffi,
    EnumWindows: f(u, `bool __stdcall EnumWindows(${ENUM_WINDOWS_PROC} *cb, intptr_t lp)`),
    GetClassNameW: f(u, 'int __stdcall GetClassNameW(intptr_t hwnd, _Out_ uint16_t *name, int max)'),
    GetWindowRect: f(u, 'bool __stdcall GetWindowRect(intptr_t hwnd, _Out_ uint8_t *rect)'),
    IsWindow: f(u, 'bool __stdcall IsWindow(intptr_t hwnd)'),
    IsWindowVisible: f(u, 'bool __stdcall IsWindowVisible(intptr_t hwnd)'),
    GetWindowThreadProcessId: f(u, 'uint32_t __stdcall GetWindowThreadProcessId(intptr_t hwnd, _Out_ uint32_t *pid)'),
    GetForegroundWindow: f(u, 'intptr_t __stdcall GetForegroundWindow()'),
    ...(dpi !== undefined ? { SetProcessDpiAwarenessContext: dpi } : {}),
    GetLastError: f(k, 'uint32_t __stdcall GetLastError()'),
  };
  return bound;
}
