// The COM layer against real COM objects, run inside the Windows build of Node (the Wine lane
// bundles and runs this file; it prints one JSON line). Under Wine 8 UI Automation cannot be
// created, but Scripting.Dictionary can: it exercises vtable calls, BSTRs, VARIANTs in and out,
// SAFEARRAYs and reference counting exactly as the UIA backend uses them.
import { writeSync } from 'node:fs';
import { createAutomation } from '../uia/uiaFactory.js';
import { ComPtr, allocBstr, createInstance, freeBstr, ole32, ptr, readBstr, takeVariant, using } from './com.js';
import { VT, encodeVariant } from './variant.js';

const CLSID_Dictionary = '{ee09b103-97e0-11cf-978f-00a02463e06f}';
const IID_IDictionary = '{42c642c1-97e1-11cf-978f-00a02463e06f}';
// IDictionary (scrrun.idl): IUnknown 0–2, IDispatch 3–6, then its own methods.
const DICT = { get_Item: 9, Add: 10, get_Count: 11, Exists: 12 } as const;

const results: Record<string, unknown> = {};
const liveBefore = ComPtr.liveCount;
try {
  const original = 'Привет, мир — BSTR';
  const b = allocBstr(original);
  results['bstr'] = readBstr(b);
  freeBstr(b);

  const k = ole32().koffi;
  const oa = k.load('oleaut32.dll');
  const create = oa.func('void * __stdcall SafeArrayCreateVector(uint16_t vt, int32_t lbound, uint32_t count)') as (
    vt: number,
    lb: number,
    n: number,
  ) => unknown;
  const put = oa.func('int32_t __stdcall SafeArrayPutElement(void *psa, const int32_t *index, const int32_t *value)') as (
    psa: bigint,
    i: number[],
    v: number[],
  ) => number;
  const array = ptr(create(VT.I4, 0, 3));
  [10, 20, -30].forEach((v, i) => put(array, [i], [v]));
  const variant = Buffer.alloc(24);
  variant.writeUInt16LE(VT.ARRAY | VT.I4, 0);
  variant.writeBigUInt64LE(array, 8);
  results['array'] = takeVariant(variant);

  const dict = createInstance(CLSID_Dictionary, IID_IDictionary, 'IDictionary');
  using([dict], () => {
    const key = allocBstr('name');
    const value = allocBstr('Мария');
    const half = allocBstr('half');
    try {
      dict.call('Add', DICT.Add, ['uint8_t *', 'uint8_t *'], [encodeVariant(VT.BSTR, key), encodeVariant(VT.BSTR, value)]);
      dict.call('Add', DICT.Add, ['uint8_t *', 'uint8_t *'], [encodeVariant(VT.BSTR, half), encodeVariant(VT.R8, 0.5)]);
      const count = [0];
      dict.call('get_Count', DICT.get_Count, ['_Out_ int32_t *'], [count]);
      results['count'] = count[0];
      const out = Buffer.alloc(24);
      dict.call('get_Item', DICT.get_Item, ['uint8_t *', '_Out_ uint8_t *'], [encodeVariant(VT.BSTR, key), out]);
      results['name'] = takeVariant(out);
      const out2 = Buffer.alloc(24);
      dict.call('get_Item', DICT.get_Item, ['uint8_t *', '_Out_ uint8_t *'], [encodeVariant(VT.BSTR, half), out2]);
      results['half'] = takeVariant(out2);
      const exists = [0];
      dict.call('Exists', DICT.Exists, ['uint8_t *', '_Out_ int16_t *'], [encodeVariant(VT.BSTR, half), exists]);
      results['exists'] = exists[0] === -1;
      const dispatch = dict.query('{00020400-0000-0000-c000-000000000046}', 'IDispatch');
      results['queryDispatch'] = dispatch !== undefined;
      dispatch?.release();
      results['queryMissing'] = dict.query('{30cbe57d-d9d0-452a-ab13-7ac5ac4825ee}', 'IUIAutomation') === undefined;
      const second = dict.addRef();
      second.release();
      second.release();
      results['doubleReleaseIsNoop'] = true;
    } finally {
      freeBstr(key);
      freeBstr(value);
      freeBstr(half);
    }
  });

  const uia = createAutomation();
  results['uia'] = 'reason' in uia ? uia.reason : 'created';
  if ('automation' in uia) uia.automation.release();
  results['live'] = ComPtr.liveCount - liveBefore;
} catch (error) {
  results['error'] = error instanceof Error ? (error.stack ?? error.message) : String(error);
}
writeSync(1, `${JSON.stringify(results)}\n`);
