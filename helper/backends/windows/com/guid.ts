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
export const IID_IUIAutomation2 = '{34723aff-0c9d-49d0-9896-7ab52df8cd8a}';
export const IID_IUIAutomationCacheRequest = '{b32a92b5-bc25-4078-9c08-d7ee95c48e03}';

/** The pattern interfaces element_act dispatches through. */
export const PATTERN_IIDS = {
  invoke: '{fb377fbe-8ea6-46d5-9c73-6499642d3059}',
  value: '{a94cd8b1-0844-4cd6-9d2d-640537ab39e9}',
  range_value: '{59213f4f-7346-49e5-b120-80555987a148}',
  toggle: '{94cf8058-9b8d-4ab9-8bfd-4cd0a33c8c70}',
  expand_collapse: '{619be086-1f4e-4ee4-bafa-210128738730}',
  selection_item: '{a8efa66a-0fda-421a-9194-38021f3578ea}',
  scroll_item: '{b488300f-d015-4f19-9c29-bb595e3645ef}',
} as const;
