// The Win32 functions the screen backend calls (user32, gdi32, shcore), bound with koffi: the window
// functions the accessibility backends call too come from helper/platform/win32/user32.ts, and these
// are added to them. Loaded on Windows only (and under Wine in the Wine lane), on first use: importing
// this module anywhere else never touches koffi. Handles travel as numbers (intptr_t), native pointers as bigint.

import type * as Koffi from 'koffi';
import { library, optionalFunc, windowFunctions, type WindowFunctions } from '../../platform/win32/user32.js';

export const SM = { XVIRTUALSCREEN: 76, YVIRTUALSCREEN: 77, CXVIRTUALSCREEN: 78, CYVIRTUALSCREEN: 79 } as const;
export const SRCCOPY = 0x00cc0020;
/** BitBlt: include layered windows. */
export const CAPTUREBLT = 0x40000000;
/** PrintWindow: ask DWM for the window's full content (Windows 8.1+; Wine treats it as WM_PRINT). */
export const PW_RENDERFULLCONTENT = 0x2;
export const MONITORINFOF_PRIMARY = 0x1;

/** The bound functions, the shared window functions among them. Optional members are those older Windows (or Wine) may lack. */
export interface ScreenApi extends WindowFunctions {
  GetSystemMetrics(index: number): number;
  SendInput(count: number, inputs: Buffer, size: number): number;
  GetCursorPos(point: Buffer): boolean;
  GetAsyncKeyState(vk: number): number;
  MapVirtualKeyW(code: number, mapType: number): number;
  VkKeyScanW(ch: number): number;
  EnumDisplayMonitors(hdc: number, clip: null, callback: (monitor: number, hdc: number, rect: unknown, lp: number) => boolean, lp: number): boolean;
  GetMonitorInfoW(monitor: number, info: Buffer): boolean;
  GetDpiForMonitor?(monitor: number, type: number, dpiX: number[], dpiY: number[]): number;
  GetThreadDpiAwarenessContext?(): number;
  AreDpiAwarenessContextsEqual?(a: number, b: number): boolean;
  GetAwarenessFromDpiAwarenessContext?(context: number): number;
  PrintWindow(hwnd: number, hdc: number, flags: number): boolean;
  GetDC(hwnd: number): number;
  ReleaseDC(hwnd: number, hdc: number): number;
  CreateCompatibleDC(hdc: number): number;
  DeleteDC(hdc: number): boolean;
  CreateDIBSection(hdc: number, info: Buffer, usage: number, bits: unknown[], section: number, offset: number): number;
  SelectObject(hdc: number, object: number): number;
  DeleteObject(object: number): boolean;
  BitBlt(dest: number, x: number, y: number, w: number, h: number, src: number, sx: number, sy: number, rop: number): boolean;
  GdiFlush(): boolean;
  IsIconic(hwnd: number): boolean;
  GetWindowTextW(hwnd: number, text: Buffer, max: number): number;
}

let bound: ScreenApi | undefined;

/** Binds the functions through koffi (once). Throws where koffi or the DLLs are missing. */
export function screenApi(): ScreenApi {
  if (bound !== undefined) return bound;
  const shared = windowFunctions();
  const u = library('user32.dll');
  const g = library('gdi32.dll');
  const f = <T>(lib: Koffi.LibraryHandle, decl: string): T => lib.func(decl) as T;
  let shcore: Koffi.LibraryHandle | null = null;
  try {
    shcore = library('shcore.dll');
  } catch {
    shcore = null; // before Windows 8.1
  }
  shared.koffi.proto('bool __stdcall OverseerMonitorEnumProc(intptr_t monitor, intptr_t hdc, void *rect, intptr_t lp)');
  const optional = {
    GetDpiForMonitor: optionalFunc<ScreenApi['GetDpiForMonitor']>(
      shcore,
      'int32_t __stdcall GetDpiForMonitor(intptr_t monitor, int type, _Out_ uint32_t *dpiX, _Out_ uint32_t *dpiY)',
    ),
    GetThreadDpiAwarenessContext: optionalFunc<ScreenApi['GetThreadDpiAwarenessContext']>(u, 'intptr_t __stdcall GetThreadDpiAwarenessContext()'),
    AreDpiAwarenessContextsEqual: optionalFunc<ScreenApi['AreDpiAwarenessContextsEqual']>(
      u,
      'bool __stdcall AreDpiAwarenessContextsEqual(intptr_t a, intptr_t b)',
    ),
    GetAwarenessFromDpiAwarenessContext: optionalFunc<ScreenApi['GetAwarenessFromDpiAwarenessContext']>(
      u,
      'int __stdcall GetAwarenessFromDpiAwarenessContext(intptr_t context)',
    ),
  };
  const api: ScreenApi = {
    ...shared,
    GetSystemMetrics: f(u, 'int __stdcall GetSystemMetrics(int index)'),
    SendInput: f(u, 'uint32_t __stdcall SendInput(uint32_t count, const uint8_t *inputs, int size)'),
    GetCursorPos: f(u, 'bool __stdcall GetCursorPos(_Out_ uint8_t *point)'),
    GetAsyncKeyState: f(u, 'int16_t __stdcall GetAsyncKeyState(int vk)'),
    MapVirtualKeyW: f(u, 'uint32_t __stdcall MapVirtualKeyW(uint32_t code, uint32_t mapType)'),
    VkKeyScanW: f(u, 'int16_t __stdcall VkKeyScanW(uint16_t ch)'),
    EnumDisplayMonitors: f(u, 'bool __stdcall EnumDisplayMonitors(intptr_t hdc, void *clip, OverseerMonitorEnumProc *cb, intptr_t lp)'),
    GetMonitorInfoW: f(u, 'bool __stdcall GetMonitorInfoW(intptr_t monitor, _Inout_ uint8_t *info)'),
    PrintWindow: f(u, 'bool __stdcall PrintWindow(intptr_t hwnd, intptr_t hdc, uint32_t flags)'),
    GetDC: f(u, 'intptr_t __stdcall GetDC(intptr_t hwnd)'),
    ReleaseDC: f(u, 'int __stdcall ReleaseDC(intptr_t hwnd, intptr_t hdc)'),
    CreateCompatibleDC: f(g, 'intptr_t __stdcall CreateCompatibleDC(intptr_t hdc)'),
    DeleteDC: f(g, 'bool __stdcall DeleteDC(intptr_t hdc)'),
    CreateDIBSection: f(
      g,
      'intptr_t __stdcall CreateDIBSection(intptr_t hdc, const uint8_t *info, uint32_t usage, _Out_ void **bits, intptr_t section, uint32_t offset)',
    ),
    SelectObject: f(g, 'intptr_t __stdcall SelectObject(intptr_t hdc, intptr_t object)'),
    DeleteObject: f(g, 'bool __stdcall DeleteObject(intptr_t object)'),
    BitBlt: f(g, 'bool __stdcall BitBlt(intptr_t dest, int x, int y, int w, int h, intptr_t src, int sx, int sy, uint32_t rop)'),
    GdiFlush: f(g, 'bool __stdcall GdiFlush()'),
    IsIconic: f(u, 'bool __stdcall IsIconic(intptr_t hwnd)'),
    GetWindowTextW: f(u, 'int __stdcall GetWindowTextW(intptr_t hwnd, _Out_ uint8_t *text, int max)'),
  };
  for (const [name, fn] of Object.entries(optional)) if (fn !== undefined) Object.assign(api, { [name]: fn });
  bound = api;
  return bound;
}

/** A RECT (left, top, right, bottom) read from `buf` at `offset` as x, y, width, height. */
export function readRect(buf: Buffer, offset = 0): { x: number; y: number; width: number; height: number } {
  const left = buf.readInt32LE(offset);
  const top = buf.readInt32LE(offset + 4);
  return { x: left, y: top, width: buf.readInt32LE(offset + 8) - left, height: buf.readInt32LE(offset + 12) - top };
}
