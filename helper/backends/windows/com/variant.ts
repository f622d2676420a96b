// VARIANT and SAFEARRAY decoding (oaidl.h layouts on x64), pure over bytes so it is unit-tested
// on any machine. Reading the memory a pointer names is the caller's part (koffi on Windows).

/** VARTYPE values this backend decodes. */
export const VT = {
  EMPTY: 0,
  NULL: 1,
  I2: 2,
  I4: 3,
  R4: 4,
  R8: 5,
  BSTR: 8,
  DISPATCH: 9,
  ERROR: 10,
  BOOL: 11,
  UNKNOWN: 13,
  I1: 16,
  UI1: 17,
  UI2: 18,
  UI4: 19,
  I8: 20,
  UI8: 21,
  INT: 22,
  UINT: 23,
  ARRAY: 0x2000,
  BYREF: 0x4000,
} as const;

/** Size of a VARIANT on x64: vt (2) + three reserved words (6) + a 16-byte union. */
export const VARIANT_SIZE = 24;
/** Size of a SAFEARRAY header with one dimension on x64. */
export const SAFEARRAY_1D_SIZE = 32;

/** What decoding may need from the caller: the string a BSTR points at, the array a SAFEARRAY pointer names. */
export interface VariantMemory {
  bstr(pointer: bigint): string;
  safeArray(pointer: bigint): { header: Buffer; data(bytes: number): Buffer };
}

/** A decoded VARIANT: a JS value, or a note of what it was when it carries no plain value. */
export type VariantValue = undefined | null | boolean | number | bigint | string | number[] | { unsupported: number };

/** Decodes a VARIANT from its 24 bytes. VT_UNKNOWN/VT_DISPATCH (e.g. UIA's "not supported" sentinel) come back as `{unsupported}`. */
export function decodeVariant(bytes: Buffer, memory: VariantMemory): VariantValue {
  if (bytes.length < VARIANT_SIZE) throw new Error(`a VARIANT is ${VARIANT_SIZE} bytes, got ${bytes.length}`);
  const vt = bytes.readUInt16LE(0);
  const at = 8;
  switch (vt) {
    case VT.EMPTY:
      return undefined;
    case VT.NULL:
      return null;
    case VT.I1:
      return bytes.readInt8(at);
    case VT.UI1:
      return bytes.readUInt8(at);
    case VT.I2:
      return bytes.readInt16LE(at);
    case VT.UI2:
      return bytes.readUInt16LE(at);
    case VT.I4:
    case VT.INT:
    case VT.ERROR:
      return bytes.readInt32LE(at);
    case VT.UI4:
    case VT.UINT:
      return bytes.readUInt32LE(at);
    case VT.I8:
      return bytes.readBigInt64LE(at);
    case VT.UI8:
      return bytes.readBigUInt64LE(at);
    case VT.R4:
      return bytes.readFloatLE(at);
    case VT.R8:
      return bytes.readDoubleLE(at);
    case VT.BOOL:
      // VARIANT_TRUE is -1; any non-zero is true.
      return bytes.readInt16LE(at) !== 0;
    case VT.BSTR: {
      const p = bytes.readBigUInt64LE(at);
      return p === 0n ? '' : memory.bstr(p);
    }
    default:
      if ((vt & VT.ARRAY) !== 0 && (vt & VT.BYREF) === 0) {
        const p = bytes.readBigUInt64LE(at);
        if (p === 0n) return [];
        const array = memory.safeArray(p);
        return decodeSafeArray(array.header, (n) => array.data(n), vt & ~VT.ARRAY);
      }
      return { unsupported: vt };
  }
}

/** Decodes a one-dimensional SAFEARRAY of numbers (RuntimeId is VT_I4, BoundingRectangle VT_R8). */
export function decodeSafeArray(header: Buffer, data: (bytes: number) => Buffer, elementVt: number): number[] {
  const dims = header.readUInt16LE(0);
  const elementSize = header.readUInt32LE(4);
  if (dims !== 1) throw new Error(`only one-dimensional SAFEARRAYs are decoded, got ${dims} dimensions`);
  const count = header.readUInt32LE(24);
  const reader = ARRAY_READERS[elementVt];
  if (reader === undefined || reader.size !== elementSize)
    throw new Error(`SAFEARRAY of VARTYPE ${elementVt} with ${elementSize}-byte elements is not decoded`);
  if (count > 1_000_000) throw new Error(`SAFEARRAY of ${count} elements is implausible`);
  const body = data(count * elementSize);
  return Array.from({ length: count }, (_, i) => reader.read(body, i * elementSize));
}

const ARRAY_READERS: Record<number, { size: number; read: (b: Buffer, at: number) => number }> = {
  [VT.I4]: { size: 4, read: (b, at) => b.readInt32LE(at) },
  [VT.INT]: { size: 4, read: (b, at) => b.readInt32LE(at) },
  [VT.UI4]: { size: 4, read: (b, at) => b.readUInt32LE(at) },
  [VT.R8]: { size: 8, read: (b, at) => b.readDoubleLE(at) },
  [VT.R4]: { size: 4, read: (b, at) => b.readFloatLE(at) },
};

/** Builds a VARIANT's bytes (for VT_I4 / VT_BOOL / VT_BSTR property conditions and tests). */
export function encodeVariant(vt: number, value: number | boolean | bigint): Buffer {
  const b = Buffer.alloc(VARIANT_SIZE);
  b.writeUInt16LE(vt, 0);
  if (vt === VT.I4) b.writeInt32LE(Number(value), 8);
  else if (vt === VT.BOOL) b.writeInt16LE(value === true ? -1 : 0, 8);
  else if (vt === VT.BSTR) b.writeBigUInt64LE(BigInt(value), 8);
  else if (vt === VT.R8) b.writeDoubleLE(Number(value), 8);
  else throw new Error(`encoding VARTYPE ${vt} is not supported`);
  return b;
}
