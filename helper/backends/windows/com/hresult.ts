import type { ErrorCode } from '../../../../protocol/index.js';

/** HRESULTs the Windows backends meet, by name (values from WinError.h and UIAutomationCoreApi.h). */
export const HR = {
  S_OK: 0,
  S_FALSE: 1,
  E_NOTIMPL: 0x80004001,
  E_NOINTERFACE: 0x80004002,
  E_POINTER: 0x80004003,
  E_FAIL: 0x80004005,
  E_ACCESSDENIED: 0x80070005,
  E_OUTOFMEMORY: 0x8007000e,
  E_INVALIDARG: 0x80070057,
  /** HRESULT_FROM_WIN32(ERROR_INVALID_WINDOW_HANDLE). */
  E_INVALID_WINDOW_HANDLE: 0x80070578,
  /** HRESULT_FROM_WIN32(ERROR_TIMEOUT). */
  E_WIN32_TIMEOUT: 0x800705b4,
  REGDB_E_CLASSNOTREG: 0x80040154,
  CO_E_NOTINITIALIZED: 0x800401f0,
  CO_E_OBJNOTCONNECTED: 0x800401fd,
  RPC_E_DISCONNECTED: 0x80010108,
  RPC_E_CHANGED_MODE: 0x80010106,
  RPC_E_SERVERCALL_RETRYLATER: 0x8001010a,
  RPC_E_CALL_REJECTED: 0x80010001,
  UIA_E_ELEMENTNOTENABLED: 0x80040200,
  UIA_E_ELEMENTNOTAVAILABLE: 0x80040201,
  UIA_E_NOCLICKABLEPOINT: 0x80040202,
  UIA_E_PROXYASSEMBLYNOTLOADED: 0x80040203,
  UIA_E_NOTSUPPORTED: 0x80040204,
  UIA_E_TIMEOUT: 0x80131505,
  UIA_E_INVALIDOPERATION: 0x80131509,
} as const;

const NAMES = new Map<number, string>(Object.entries(HR).map(([name, value]) => [value, name]));

/** An HRESULT as an unsigned number (koffi returns HRESULT as a signed 32-bit integer). */
export function unsigned(hr: number): number {
  return hr >>> 0;
}

/** True for success codes (S_OK, S_FALSE…). */
export function succeeded(hr: number): boolean {
  return (hr | 0) >= 0;
}

/** `0x80040201 UIA_E_ELEMENTNOTAVAILABLE`, or just the hex for an unknown code. */
export function describeHresult(hr: number): string {
  const u = unsigned(hr);
  const name = NAMES.get(u);
  return `0x${u.toString(16).padStart(8, '0')}${name !== undefined ? ` ${name}` : ''}`;
}

/** A failed COM call, carrying its HRESULT and what was called. */
export class ComError extends Error {
  readonly hr: number;
  constructor(
    hr: number,
    readonly call: string,
  ) {
    super(`${call} failed: ${describeHresult(hr)}`);
    this.hr = unsigned(hr);
  }
}

/** The element or its window is gone (or the provider disconnected): the target is stale. */
const GONE = new Set<number>([HR.UIA_E_ELEMENTNOTAVAILABLE, HR.E_INVALID_WINDOW_HANDLE, HR.RPC_E_DISCONNECTED, HR.CO_E_OBJNOTCONNECTED]);
const TIMED_OUT = new Set<number>([HR.UIA_E_TIMEOUT, HR.E_WIN32_TIMEOUT, HR.RPC_E_SERVERCALL_RETRYLATER, HR.RPC_E_CALL_REJECTED]);
const UNSUPPORTED = new Set<number>([HR.UIA_E_NOTSUPPORTED, HR.E_NOTIMPL, HR.E_NOINTERFACE]);

/**
 * What a failed call before any dispatch means for the agent: the error code (docs/tools.md#errors) to refuse with.
 * Nothing was sent to the application, so every one of these is a refusal.
 */
export function readFailure(hr: number): ErrorCode {
  const u = unsigned(hr);
  if (GONE.has(u)) return 'stale_element';
  if (u === HR.E_ACCESSDENIED) return 'target_elevated';
  if (TIMED_OUT.has(u)) return 'timeout';
  if (UNSUPPORTED.has(u)) return 'pattern_unsupported';
  if (u === HR.UIA_E_ELEMENTNOTENABLED) return 'not_enabled';
  return 'unreadable';
}

/**
 * What a failed pattern method (Invoke, SetValue, Toggle…) means: the provider may have acted
 * before failing. A disabled or unsupported answer is the provider refusing before it did
 * anything (`failed`, call made); anything else (the element vanished mid-call, a timeout, an
 * event-subscriber error after a click that happened) is `unknown`, never `failed`.
 */
export function dispatchFailure(hr: number): { outcome: 'failed' | 'unknown'; callMade: true | 'unknown' } {
  const u = unsigned(hr);
  if (u === HR.UIA_E_ELEMENTNOTENABLED || UNSUPPORTED.has(u) || u === HR.E_INVALIDARG || u === HR.UIA_E_INVALIDOPERATION)
    return { outcome: 'failed', callMade: true };
  return { outcome: 'unknown', callMade: 'unknown' };
}
