/** A GUID string (`{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}`) as the 16 bytes of a GUID struct. */
export function guid(text: string): Buffer {
  const m = /^\{?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\}?$/i.exec(text);
  if (m === null) throw new Error(`"${text}" is not a GUID`);
  const [, d1, d2, d3, d4, d5] = m as unknown as [string, string, string, string, string, string];
  const b = Buffer.alloc(16);
  b.writeUInt32LE(parseInt(d1, 16), 0);
  b.writeUInt16LE(parseInt(d2, 16), 4);
  b.writeUInt16LE(parseInt(d3, 16), 6);
  Buffer.from(d4 + d5, 'hex').copy(b, 8);
  return b;
}

/** CLSID of the UI Automation client object, and the interfaces this backend asks of it. */
export const CLSID_CUIAutomation = '{ff48dba4-60ef-4201-aa87-54103eef594e}';
export const IID_IUIAutomation = '{30cbe57d-d9d0-452a-ab13-7ac5ac4825ee}';
export const IID_IUnknown = '{00000000-0000-0000-c000-000000000046}';
