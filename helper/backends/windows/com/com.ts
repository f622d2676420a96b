// The one COM layer: calls through vtables with koffi, and reference counting that cannot leak
// or double-release (every interface pointer is owned by exactly one ComPtr until released).
import { createRequire } from 'node:module';
import type * as Koffi from 'koffi';
import { ComError, succeeded } from './hresult.js';
import { guid } from './guid.js';
import { decodeVariant, type VariantMemory, type VariantValue } from './variant.js';
import { UNKNOWN_SLOT } from './vtables.js';

export const COINIT_MULTITHREADED = 0x0;
export const CLSCTX_INPROC_SERVER = 0x1;

interface Ole32 {
  koffi: typeof Koffi;
  CoInitializeEx(reserved: null, flags: number): number;
  CoCreateInstance(clsid: Buffer, outer: null, context: number, iid: Buffer, out: unknown[]): number;
  SysAllocString(text: string): unknown;
  SysFreeString(bstr: bigint): void;
  SysStringLen(bstr: bigint): number;
  VariantClear(variant: Buffer): number;
}

/** A pointer as koffi 3 hands it over (BigInt, null, or a small Number) as a BigInt. */
export function ptr(value: unknown): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  throw new Error(`not a pointer: ${typeof value}`);
}

let ole: Ole32 | undefined;
const protos = new Map<string, Koffi.TypeObject>();

/** The koffi prototype of a method taking `this` and these parameters (made once per shape). */
function protoOf(k: typeof Koffi, params: readonly string[]): Koffi.TypeObject {
  const key = params.join(',');
  let p = protos.get(key);
  if (p === undefined) {
    p = k.proto('__stdcall', null, 'int32_t', ['void *', ...params]);
    protos.set(key, p);
  }
  return p;
}

let release: Koffi.TypeObject | undefined;
function releaseProto(k: typeof Koffi): Koffi.TypeObject {
  release ??= k.proto('__stdcall', null, 'uint32_t', ['void *']);
  return release;
}

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
    CoCreateInstance: o.func(
      'int32_t __stdcall CoCreateInstance(const uint8_t *clsid, void *outer, uint32_t context, const uint8_t *iid, _Out_ void **out)',
    ) as Ole32['CoCreateInstance'],
    SysAllocString: a.func('void * __stdcall SysAllocString(str16 text)') as Ole32['SysAllocString'],
    SysFreeString: a.func('void __stdcall SysFreeString(void *bstr)') as Ole32['SysFreeString'],
    SysStringLen: a.func('uint32_t __stdcall SysStringLen(void *bstr)') as Ole32['SysStringLen'],
    VariantClear: a.func('int32_t __stdcall VariantClear(_Inout_ uint8_t *variant)') as Ole32['VariantClear'],
  };
  return ole;
}

/** Reads a BSTR's text (without freeing it). */
export function readBstr(bstr: bigint): string {
  if (bstr === 0n) return '';
  const o = ole32();
  const chars = o.SysStringLen(bstr);
  return chars === 0 ? '' : (o.koffi.decode(bstr, 'char16_t', chars) as string);
}

/**
 * Copies bytes out of native memory. (Never keep a koffi.view: an ArrayBuffer over memory COM
 * frees later is a crash waiting for the garbage collector.)
 */
function copyBytes(pointer: bigint, bytes: number): Buffer {
  if (bytes === 0) return Buffer.alloc(0);
  const k = ole32().koffi;
  return Buffer.from(k.decode(pointer, k.array('uint8_t', bytes, 'Array')) as number[]);
}

/** Allocates a BSTR for an argument; free it with freeBstr. */
export function allocBstr(text: string): bigint {
  const b = ptr(ole32().SysAllocString(text));
  if (b === 0n) throw new Error('SysAllocString failed');
  return b;
}

export function freeBstr(bstr: bigint): void {
  if (bstr !== 0n) ole32().SysFreeString(bstr);
}

/** How decodeVariant reads the memory a VARIANT points at, here. */
export const comMemory: VariantMemory = {
  bstr: (p) => readBstr(p),
  safeArray: (p) => {
    const header = copyBytes(p, 32);
    const data = ptr(header.readBigUInt64LE(16));
    return { header, data: (bytes: number) => copyBytes(data, bytes) };
  },
};

/** Decodes a VARIANT filled by a COM call, then clears it (frees its BSTR or SAFEARRAY). */
export function takeVariant(variant: Buffer): VariantValue {
  try {
    return decodeVariant(variant, comMemory);
  } finally {
    ole32().VariantClear(variant);
  }
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
    // Takes ownership of one reference the caller received (an out-parameter, CoCreateInstance).
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
    const vtable = ptr(k.decode(this.address, 'void *'));
    const fn = ptr(k.decode(vtable, methodSlot * 8, 'void *'));
    const hr = k.call(fn, protoOf(k, params), this.address, ...args) as number;
    if (!succeeded(hr) && !allowFailure) throw new ComError(hr, `${this.name}.${method}`);
    return hr;
  }

  /** A method returning one interface pointer through its last out-parameter, owned by the result. */
  callForInterface(method: string, methodSlot: number, params: readonly string[], args: readonly unknown[], name: string): ComPtr | undefined {
    const out: unknown[] = [null];
    this.call(method, methodSlot, [...params, '_Out_ void **'], [...args, out]);
    const p = ptr(out[0]);
    return p === 0n ? undefined : new ComPtr(p, name);
  }

  /** QueryInterface for another interface of the same object (undefined when it has none). */
  query(iid: string, name: string): ComPtr | undefined {
    const out: unknown[] = [null];
    const hr = this.call('QueryInterface', UNKNOWN_SLOT.QueryInterface, ['const uint8_t *', '_Out_ void **'], [guid(iid), out], true);
    const p = ptr(out[0]);
    return succeeded(hr) && p !== 0n ? new ComPtr(p, name) : undefined;
  }

  addRef(): ComPtr {
    this.call('AddRef', UNKNOWN_SLOT.AddRef, [], [], true);
    return new ComPtr(this.address, this.name);
  }

  release(): void {
    if (this.released) return;
    const k = ole32().koffi;
    const vtable = ptr(k.decode(this.pointer, 'void *'));
    const fn = ptr(k.decode(vtable, UNKNOWN_SLOT.Release * 8, 'void *'));
    k.call(fn, releaseProto(k), this.pointer);
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
  const out: unknown[] = [null];
  const hr = o.CoCreateInstance(guid(clsid), null, CLSCTX_INPROC_SERVER, guid(iid), out);
  if (!succeeded(hr)) throw new ComError(hr, `CoCreateInstance(${name})`);
  return new ComPtr(ptr(out[0]), name);
}
