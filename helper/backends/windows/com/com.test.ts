import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLSID_CUIAutomation, guid } from './guid.js';
import { HR, describeHresult, dispatchFailure, readFailure, succeeded, unsigned } from './hresult.js';
import { VARIANT_SIZE, VT, decodeSafeArray, decodeVariant, encodeVariant, type VariantMemory } from './variant.js';

const noMemory: VariantMemory = {
  bstr: () => assert.fail('no BSTR expected'),
  safeArray: () => assert.fail('no SAFEARRAY expected'),
};

describe('COM plumbing as data', () => {
  it('lays out GUIDs as the GUID struct does (little-endian first three fields)', () => {
    assert.equal(guid(CLSID_CUIAutomation).toString('hex'), 'a4db48ffef600142aa8754103eef594e');
    assert.equal(guid('{00000000-0000-0000-C000-000000000046}').toString('hex'), '0000000000000000c000000000000046');
    assert.throws(() => guid('not-a-guid'), /not a GUID/);
  });

  it('names HRESULTs and tells success from failure, whatever the sign koffi gives', () => {
    assert.equal(describeHresult(-2147220991), '0x80040201 UIA_E_ELEMENTNOTAVAILABLE');
    assert.equal(describeHresult(0x80040154), '0x80040154 REGDB_E_CLASSNOTREG');
    assert.equal(describeHresult(0x12345678), '0x12345678');
    assert.equal(unsigned(-2147467259), HR.E_FAIL);
    assert.equal(succeeded(0), true);
    assert.equal(succeeded(1), true);
    assert.equal(succeeded(-2147467259), false);
  });

  it('maps failures before dispatch onto the error codes', () => {
    assert.equal(readFailure(HR.UIA_E_ELEMENTNOTAVAILABLE), 'stale_element');
    assert.equal(readFailure(HR.E_INVALID_WINDOW_HANDLE), 'stale_element');
    assert.equal(readFailure(HR.E_ACCESSDENIED), 'target_elevated');
    assert.equal(readFailure(HR.UIA_E_TIMEOUT), 'timeout');
    assert.equal(readFailure(HR.UIA_E_NOTSUPPORTED), 'pattern_unsupported');
    assert.equal(readFailure(HR.UIA_E_ELEMENTNOTENABLED), 'not_enabled');
    assert.equal(readFailure(HR.E_FAIL), 'unreadable');
  });

  it('answers unknown, never failed, for errors that may follow a call that happened', () => {
    assert.deepEqual(dispatchFailure(HR.UIA_E_ELEMENTNOTAVAILABLE), { outcome: 'unknown', callMade: 'unknown' });
    assert.deepEqual(dispatchFailure(HR.UIA_E_TIMEOUT), { outcome: 'unknown', callMade: 'unknown' });
    assert.deepEqual(dispatchFailure(HR.E_FAIL), { outcome: 'unknown', callMade: 'unknown' });
    assert.deepEqual(dispatchFailure(HR.UIA_E_ELEMENTNOTENABLED), { outcome: 'failed', callMade: true });
    assert.deepEqual(dispatchFailure(HR.UIA_E_INVALIDOPERATION), { outcome: 'failed', callMade: true });
  });

  it('decodes VARIANTs of every kind UIA properties use', () => {
    assert.equal(decodeVariant(Buffer.alloc(VARIANT_SIZE), noMemory), undefined);
    assert.equal(decodeVariant(encodeVariant(VT.I4, 50000), noMemory), 50000);
    assert.equal(decodeVariant(encodeVariant(VT.BOOL, true), noMemory), true);
    assert.equal(decodeVariant(encodeVariant(VT.BOOL, false), noMemory), false);
    assert.equal(decodeVariant(encodeVariant(VT.R8, 0.5), noMemory), 0.5);
    const bstr = encodeVariant(VT.BSTR, 0x1234n);
    assert.equal(decodeVariant(bstr, { ...noMemory, bstr: (p) => (p === 0x1234n ? 'Сохранить' : '?') }), 'Сохранить');
    assert.equal(decodeVariant(encodeVariant(VT.BSTR, 0n), noMemory), '', 'a null BSTR is the empty string');
    const unknown = Buffer.alloc(VARIANT_SIZE);
    unknown.writeUInt16LE(VT.UNKNOWN, 0);
    assert.deepEqual(decodeVariant(unknown, noMemory), { unsupported: VT.UNKNOWN }, 'UIA’s not-supported sentinel is an IUnknown');
    assert.throws(() => decodeVariant(Buffer.alloc(8), noMemory), /24 bytes/);
  });

  it('decodes SAFEARRAYs: a RuntimeId (VT_I4) and a BoundingRectangle (VT_R8)', () => {
    const header = (count: number, size: number): Buffer => {
      const h = Buffer.alloc(32);
      h.writeUInt16LE(1, 0);
      h.writeUInt32LE(size, 4);
      h.writeUInt32LE(count, 24);
      return h;
    };
    const ints = Buffer.alloc(16);
    [42, 65616, -3, 7].forEach((v, i) => ints.writeInt32LE(v, i * 4));
    assert.deepEqual(
      decodeSafeArray(header(4, 4), () => ints, VT.I4),
      [42, 65616, -3, 7],
    );
    const doubles = Buffer.alloc(32);
    [10, 20, 300.5, 40].forEach((v, i) => doubles.writeDoubleLE(v, i * 8));
    assert.deepEqual(
      decodeSafeArray(header(4, 8), () => doubles, VT.R8),
      [10, 20, 300.5, 40],
    );
    const variant = Buffer.alloc(VARIANT_SIZE);
    variant.writeUInt16LE(VT.ARRAY | VT.I4, 0);
    variant.writeBigUInt64LE(0x99n, 8);
    assert.deepEqual(decodeVariant(variant, { ...noMemory, safeArray: () => ({ header: header(4, 4), data: () => ints }) }), [42, 65616, -3, 7]);
    const twoDims = header(1, 4);
    twoDims.writeUInt16LE(2, 0);
    assert.throws(() => decodeSafeArray(twoDims, () => ints, VT.I4), /one-dimensional/);
    assert.throws(() => decodeSafeArray(header(4, 8), () => ints, VT.I4), /8-byte elements/);
  });
});
