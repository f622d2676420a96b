// The Win32 functions the Windows accessibility backends call (user32, kernel32, advapi32), bound with koffi: the
// window functions the screen backend calls too come from helper/platform/win32/user32.ts, and these are added to
// them. Loaded on Windows only (and under Wine in the Wine lane): importing this module elsewhere never touches koffi.
import type * as Koffi from 'koffi';
import { ENUM_WINDOWS_PROC, library, windowFunctions, type WindowFunctions } from '../../../platform/win32/user32.js';

export const WM = { SETTEXT: 0x000c, GETTEXT: 0x000d, GETTEXTLENGTH: 0x000e, COMMAND: 0x0111, APP: 0x8000 } as const;
export const BM = { GETCHECK: 0x00f0, SETCHECK: 0x00f1, CLICK: 0x00f5 } as const;
export const CB = { GETCOUNT: 0x0146, GETCURSEL: 0x0147, GETLBTEXT: 0x0148, GETLBTEXTLEN: 0x0149, SETCURSEL: 0x014e } as const;
export const CBN_SELCHANGE = 1;
export const LB = { GETCURSEL: 0x0188, GETTEXT: 0x0189, GETTEXTLEN: 0x018a, GETCOUNT: 0x018b, SETCURSEL: 0x0186, GETSEL: 0x0187 } as const;
export const LBN_SELCHANGE = 1;
export const SMTO = { BLOCK: 0x1, ABORTIFHUNG: 0x2, ERRORONEXIT: 0x20 } as const;
export const GWL = { STYLE: -16, EXSTYLE: -20 } as const;
export const GA_ROOT = 2;
export const GW_OWNER = 4;
export const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
export const TOKEN_QUERY = 0x8;
/** TOKEN_INFORMATION_CLASS TokenElevation. */
export const TOKEN_ELEVATION = 20;

/** The bound functions, the shared window functions among them. HWNDs travel as numbers (intptr_t). */
export interface User32 extends WindowFunctions {
  EnumChildWindows(parent: number, callback: (hwnd: number, lp: number) => boolean, lp: number): boolean;
  InternalGetWindowText(hwnd: number, buffer: Buffer, max: number): number;
  GetWindowLongPtrW(hwnd: number, index: number): number;
  GetDlgCtrlID(hwnd: number): number;
  GetParent(hwnd: number): number;
  GetAncestor(hwnd: number, flags: number): number;
  GetWindow(hwnd: number, cmd: number): number;
  GetFocus(): number;
  /** SendMessageTimeoutW with a buffer as lParam (WM_GETTEXT, CB_GETLBTEXT, LB_GETTEXT). */
  SendMessageTimeoutBuf(hwnd: number, msg: number, wp: number, lp: Buffer, flags: number, timeoutMs: number, result: number[]): number;
  /** SendMessageTimeoutW with a UTF-16 string as lParam (WM_SETTEXT). */
  SendMessageTimeoutStr(hwnd: number, msg: number, wp: number, lp: string, flags: number, timeoutMs: number, result: number[]): number;
  /** SendMessageTimeoutW with a number as lParam. */
  SendMessageTimeoutInt(hwnd: number, msg: number, wp: number, lp: number, flags: number, timeoutMs: number, result: number[]): number;
  PostMessageW(hwnd: number, msg: number, wp: number, lp: number): boolean;
  OpenProcess(access: number, inherit: boolean, pid: number): number;
  CloseHandle(handle: number): boolean;
  GetProcessTimes(handle: number, creation: Buffer, exit: Buffer, kernel: Buffer, user: Buffer): boolean;
  QueryFullProcessImageNameW(handle: number, flags: number, buffer: Buffer, size: number[]): boolean;
  GetCurrentProcess(): number;
  OpenProcessToken(process: number, access: number, token: number[]): boolean;
  GetTokenInformation(token: number, infoClass: number, info: Buffer, length: number, returned: number[]): boolean;
}

let bound: User32 | undefined;

/** Binds user32/kernel32/advapi32 through koffi (once). Throws where koffi or the DLLs are missing. */
export function user32(): User32 {
  if (bound !== undefined) return bound;
  // First: it registers the callback type EnumChildWindows names below.
  const shared = windowFunctions();
  const koffi = shared.koffi;
  const u = library('user32.dll');
  const k = library('kernel32.dll');
  const a = library('advapi32.dll');
  const f = (lib: Koffi.LibraryHandle, decl: string) => lib.func(decl) as (...args: unknown[]) => unknown;
  const sendBuf = u.func('__stdcall', 'SendMessageTimeoutW', 'intptr_t', [
    'intptr_t',
    'uint32_t',
    'uintptr_t',
    'uint16_t *',
    'uint32_t',
    'uint32_t',
    koffi.out(koffi.pointer('uintptr_t')),
  ]);
  const sendStr = u.func('__stdcall', 'SendMessageTimeoutW', 'intptr_t', [
    'intptr_t',
    'uint32_t',
    'uintptr_t',
    'str16',
    'uint32_t',
    'uint32_t',
    koffi.out(koffi.pointer('uintptr_t')),
  ]);
  const sendInt = u.func('__stdcall', 'SendMessageTimeoutW', 'intptr_t', [
    'intptr_t',
    'uint32_t',
    'uintptr_t',
    'intptr_t',
    'uint32_t',
    'uint32_t',
    koffi.out(koffi.pointer('uintptr_t')),
  ]);
  const enumChildWindows = f(u, `bool __stdcall EnumChildWindows(intptr_t parent, ${ENUM_WINDOWS_PROC} *cb, intptr_t lp)`);
  bound = {
    ...shared,
    EnumChildWindows: (parent, cb, lp) => enumChildWindows(parent, cb, lp) as boolean,
    InternalGetWindowText: f(u, 'int __stdcall InternalGetWindowText(intptr_t hwnd, _Out_ uint16_t *text, int max)') as User32['InternalGetWindowText'],
    GetWindowLongPtrW: f(u, 'intptr_t __stdcall GetWindowLongPtrW(intptr_t hwnd, int index)') as User32['GetWindowLongPtrW'],
    GetDlgCtrlID: f(u, 'int __stdcall GetDlgCtrlID(intptr_t hwnd)') as User32['GetDlgCtrlID'],
    GetParent: f(u, 'intptr_t __stdcall GetParent(intptr_t hwnd)') as User32['GetParent'],
    GetAncestor: f(u, 'intptr_t __stdcall GetAncestor(intptr_t hwnd, uint32_t flags)') as User32['GetAncestor'],
    GetWindow: f(u, 'intptr_t __stdcall GetWindow(intptr_t hwnd, uint32_t cmd)') as User32['GetWindow'],
    GetFocus: f(u, 'intptr_t __stdcall GetFocus()') as User32['GetFocus'],
    SendMessageTimeoutBuf: sendBuf as User32['SendMessageTimeoutBuf'],
    SendMessageTimeoutStr: sendStr as User32['SendMessageTimeoutStr'],
    SendMessageTimeoutInt: sendInt as User32['SendMessageTimeoutInt'],
    PostMessageW: f(u, 'bool __stdcall PostMessageW(intptr_t hwnd, uint32_t msg, uintptr_t wp, intptr_t lp)') as User32['PostMessageW'],
    OpenProcess: f(k, 'intptr_t __stdcall OpenProcess(uint32_t access, bool inherit, uint32_t pid)') as User32['OpenProcess'],
    CloseHandle: f(k, 'bool __stdcall CloseHandle(intptr_t handle)') as User32['CloseHandle'],
    GetProcessTimes: f(
      k,
      'bool __stdcall GetProcessTimes(intptr_t handle, _Out_ uint8_t *creation, _Out_ uint8_t *exit, _Out_ uint8_t *kernel, _Out_ uint8_t *user)',
    ) as User32['GetProcessTimes'],
    QueryFullProcessImageNameW: f(
      k,
      'bool __stdcall QueryFullProcessImageNameW(intptr_t handle, uint32_t flags, _Out_ uint16_t *name, _Inout_ uint32_t *size)',
    ) as User32['QueryFullProcessImageNameW'],
    GetCurrentProcess: f(k, 'intptr_t __stdcall GetCurrentProcess()') as User32['GetCurrentProcess'],
    OpenProcessToken: f(a, 'bool __stdcall OpenProcessToken(intptr_t process, uint32_t access, _Out_ intptr_t *token)') as User32['OpenProcessToken'],
    GetTokenInformation: f(
      a,
      'bool __stdcall GetTokenInformation(intptr_t token, int infoClass, _Out_ uint8_t *info, uint32_t length, _Out_ uint32_t *returned)',
    ) as User32['GetTokenInformation'],
  };
  return bound;
}
