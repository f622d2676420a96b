// The one COM layer: calls through vtables with koffi, and reference counting that cannot leak
// or double-release (every interface pointer is owned by exactly one ComPtr until released).
import { createRequire } from 'node:module';
import type * as Koffi from 'koffi';
import { ComError, succeeded } from './hresult.js';
import { guid } from './guid.js';
import { IUNKNOWN, slot } from './vtables.js';

export const COINIT_MULTITHREADED = 0x0;
export const CLSCTX_INPROC_SERVER = 0x1;

interface Ole32 {
  koffi: typeof Koffi;
  CoInitializeEx(reserved: null, flags: number): number;
  CoCreateInstance(clsid: Buffer, outer: null, context: number, iid: Buffer, out: bigint[]): number;
  SysAllocString(text: string): bigint;
  SysFreeString(bstr: bigint): void;
  SysStringLen(bstr: bigint): number;
}

let ole: Ole32 | undefined;

/** ole32/oleaut32 through koffi (once). */
export function ole32(): Ole32 {
  if (ole !== undefined) return ole;
  const require = createRequire(import.meta.url);
  const koffi = require('koffi') as typeof Koffi;
  const o = koffi.load('ole32.dll');
  const a = koffi.load('oleaut32.dll');
  ole = {
    koffi,
    CoInitializeEx: o.func('int32_t __stdcall CoInitializeEx(void *reserved, uint32_t flags)') as Ole32['CoInitializeEx'],
    CoCreateInstance: o.func('int32_t __stdcall CoCreateInstance(const uint8_t *clsid, void *outer, uint32_t context, const uint8_t *iid, _Out_ uint64_t *out)') as Ole32['CoCreateInstance'],
    SysAllocString: a.func('uint64_t __stdcall SysAllocString(str16 text)') as Ole32['SysAllocString'],
    SysFreeString: a.func('void __stdcall SysFreeString(uint64_t bstr)') as Ole32['SysFreeString'],
    SysStringLen: a.func('uint32_t __stdcall SysStringLen(uint64_t bstr)') as Ole32['SysStringLen'],
  };
  return ole;
}

/** Reads a BSTR's text (without freeing it). */
export function readBstr(bstr: bigint): string {
  if (bstr === 0n) return '';
  const o = ole32();
  const chars = o.SysStringLen(bstr);
  return Buffer.from(o.koffi.view(o.koffi.as(bstr, 'void *'), chars * 2)).toString('utf16le');
}

/** Reads a BSTR out-parameter and frees it (the callee allocated it for us). */
export function takeBstr(bstr: bigint): string {
  try {
    return readBstr(bstr);
  } finally {
    if (bstr !== 0n) ole32().SysFreeString(bstr);
  }
}

/** One owned COM interface pointer. `release()` is idempotent; calls after it throw. */
export class ComPtr {
  private released = false;
  private static live = 0;

  constructor(
    private readonly pointer: bigint,
    readonly name: string,
  ) {
    if (pointer === 0n) throw new Error(`${name}: a null interface pointer`);
    ComPtr.live++;
  }

  /** Interface pointers owned and not yet released (tests assert this returns to its start). */
  static get liveCount(): number {
    return ComPtr.live;
  }

  get address(): bigint {
    if (this.released) throw new Error(`${this.name} was already released`);
    return this.pointer;
  }

  /**
   * Calls a vtable slot: `proto` lists the parameters after `this`. Returns the HRESULT, throwing
   * ComError on failure unless `allowFailure`.
   */
  call(method: string, methodSlot: number, params: readonly string[], args: readonly unknown[], allowFailure = false): number {
    const o = ole32();
    const k = o.koffi;
    const vtable = k.decode(k.as(this.address, 'void *'), 'uint64_t') as bigint;
    const fn = k.decode(k.as(vtable + BigInt(methodSlot * 8), 'void *'), 'uint64_t') as bigint;
    const proto = k.proto('__stdcall', null, 'int32_t', ['uint64_t', ...params]);
    const hr = k.call(k.as(fn, 'void *'), proto, this.address, ...args) as number;
    if (!succeeded(hr) && !allowFailure) throw new ComError(hr, `${this.name}.${method}`);
    return hr;
  }

  /** A method returning one interface pointer through its last out-parameter, owned by the result. */
  callForInterface(method: string, methodSlot: number, params: readonly string[], args: readonly unknown[], name: string): ComPtr | undefined {
    const out = [0n];
    this.call(method, methodSlot, [...params, '_Out_ uint64_t *'], [...args, out]);
    return out[0] === 0n || out[0] === undefined ? undefined : new ComPtr(out[0], name);
  }

  addRef(): ComPtr {
    this.call('AddRef', slot(IUNKNOWN, 'AddRef'), [], [], true);
    return new ComPtr(this.address, this.name);
  }

  release(): void {
    if (this.released) return;
    const k = ole32().koffi;
    const vtable = k.decode(k.as(this.pointer, 'void *'), 'uint64_t') as bigint;
    const fn = k.decode(k.as(vtable + BigInt(slot(IUNKNOWN, 'Release') * 8), 'void *'), 'uint64_t') as bigint;
    k.call(k.as(fn, 'void *'), k.proto('__stdcall', null, 'uint32_t', ['uint64_t']), this.pointer);
    this.released = true;
    ComPtr.live--;
  }
}

/** Runs `work` with the pointers it creates released afterwards, whatever happens. */
export function using<T>(ptrs: (ComPtr | undefined)[], work: () => T): T {
  try {
    return work();
  } finally {
    for (const p of ptrs) p?.release();
  }
}

/** CoInitializeEx on a multithreaded apartment, then CoCreateInstance; throws ComError with the HRESULT. */
export function createInstance(clsid: string, iid: string, name: string): ComPtr {
  const o = ole32();
  const init = o.CoInitializeEx(null, COINIT_MULTITHREADED);
  // S_FALSE: already initialized on this thread; RPC_E_CHANGED_MODE: another apartment model was chosen first.
  if (!succeeded(init) && init >>> 0 !== 0x80010106) throw new ComError(init, 'CoInitializeEx');
  const out = [0n];
  const hr = o.CoCreateInstance(guid(clsid), null, CLSCTX_INPROC_SERVER, guid(iid), out);
  if (!succeeded(hr)) throw new ComError(hr, `CoCreateInstance(${name})`);
  return new ComPtr(out[0] ?? 0n, name);
}
