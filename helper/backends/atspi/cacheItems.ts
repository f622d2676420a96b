// Nodes from a Cache.GetItems reply. A big window's reply holds 10k items; decoded by dbus-next
// each becomes ~15 nested arrays (then copied once more into its JS format) before a node is made
// from it. Here the raw body is read straight into makeNode's arguments, with the values that
// repeat across items (bus names, parent keys, interface lists) read once. The nodes are the
// ones the generic decode gives (cacheItems.test.ts compares them); a body that is not exactly
// what this reader expects is decoded the generic way instead.

import { makeNode, type AtspiNode } from './atspiNode.js';
import { RawBody } from './rawReplies.js';
import { str } from './readSupport.js';
import { NULL_PATH, asRef, keyOf } from './refs.js';

/** The reply signature of org.a11y.atspi.Cache.GetItems (at-spi2-core 2.46). */
export const CACHE_ITEMS_SIGNATURE = 'a((so)(so)(so)iiassusau)';

/** Nodes of every item of a GetItems reply body: `[RawBody]` read directly, or as decoded by dbus-next. */
export function cacheItemNodes(body: readonly unknown[]): AtspiNode[] {
  const raw = body[0];
  if (!(raw instanceof RawBody)) return decodedItemNodes(raw);
  return readCacheItems(raw) ?? decodedItemNodes(raw.decode()[0]);
}

/** Nodes read directly from a raw GetItems body; undefined when it is not exactly what this reader expects. */
export function readCacheItems(raw: RawBody): AtspiNode[] | undefined {
  if (raw.signature !== CACHE_ITEMS_SIGNATURE) return undefined;
  try {
    return readItems(raw.bytes, raw.littleEndian);
  } catch (error) {
    if (error instanceof Malformed) return undefined;
    throw error;
  }
}

/** Nodes from a body decoded by dbus-next: `[[ref, app, parent, index, childCount, interfaces, name, role, description, states], …]`. */
export function decodedItemNodes(items: unknown): AtspiNode[] {
  const nodes: AtspiNode[] = [];
  if (!Array.isArray(items)) return nodes;
  for (const item of items as unknown[][]) {
    const ref = asRef(item[0]);
    const parent = asRef(item[2]);
    if (ref === undefined) continue;
    const parentKey = parent === undefined || parent.path === NULL_PATH ? undefined : keyOf(parent.bus, parent.path);
    nodes.push(
      makeNode(
        ref.bus,
        ref.path,
        parentKey,
        Number(item[3]),
        Number(item[4]),
        (item[5] as string[]) ?? [],
        str(item[6]),
        Number(item[7]),
        (item[9] as number[]) ?? [],
      ),
    );
  }
  return nodes;
}

/** The bytes are not a well-formed body of CACHE_ITEMS_SIGNATURE. */
class Malformed extends Error {}

/** Interface lists by their encoded bytes (as latin1): a few distinct lists cover a whole tree. */
const interfaceLists = new Map<string, readonly string[]>();
const INTERFACE_LIST_LIMIT = 1024;

const utf8Slice = (Buffer.prototype as { utf8Slice?: (this: Buffer, start: number, end: number) => string }).utf8Slice;

/** A bounds-checked cursor over a body; alignment is relative to byte 0 (see RawBody). */
class Reader {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly le: boolean,
  ) {}

  align(n: number): void {
    const pos = (this.pos + n - 1) & ~(n - 1);
    if (pos > this.buf.length) throw new Malformed('past the end');
    this.pos = pos;
  }

  u32(): number {
    this.align(4);
    if (this.pos + 4 > this.buf.length) throw new Malformed('past the end');
    const v = this.le ? this.buf.readUInt32LE(this.pos) : this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  i32(): number {
    this.align(4);
    if (this.pos + 4 > this.buf.length) throw new Malformed('past the end');
    const v = this.le ? this.buf.readInt32LE(this.pos) : this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** Steps over a string (s or o) and returns its length; its bytes start at pos − length − 1. */
  skipString(): number {
    const len = this.u32();
    const end = this.pos + len;
    if (end >= this.buf.length || this.buf[end] !== 0) throw new Malformed('bad string');
    this.pos = end + 1;
    return len;
  }

  string(): string {
    const len = this.skipString();
    return len === 0 ? '' : this.text(this.pos - len - 1, this.pos - 1);
  }

  /** UTF-8 text as dbus-next reads it (Buffer#toString), so invalid UTF-8 reads the same. */
  text(start: number, end: number): string {
    // Buffer's own slice method, without toString's argument handling (a third of the cost for short strings).
    return utf8Slice === undefined ? this.buf.toString('utf8', start, end) : utf8Slice.call(this.buf, start, end);
  }

  /** FNV-1a of len bytes at `at`. */
  hash(at: number, len: number): number {
    const buf = this.buf;
    let h = 0x811c9dc5;
    for (let i = at; i < at + len; i++) h = Math.imul(h ^ (buf[i] ?? 0), 0x01000193);
    return h;
  }

  /** True when the len bytes at a equal those at b. */
  same(a: number, b: number, len: number): boolean {
    const buf = this.buf;
    for (let i = 0; i < len; i++) if (buf[a + i] !== buf[b + i]) return false;
    return true;
  }
}

/** Reads the items of a raw GetItems body straight into nodes; throws Malformed on any surprise. */
function readItems(bytes: Buffer, littleEndian: boolean): AtspiNode[] {
  const r = new Reader(bytes, littleEndian);
  const nodes: AtspiNode[] = [];
  const arrayLength = r.u32();
  r.align(8);
  const end = r.pos + arrayLength;
  if (end !== bytes.length) throw new Malformed('array does not fill the body');
  // The last bus name read, by position: every item of one application repeats it.
  let busAt = -1;
  let busLen = -1;
  let bus = '';
  // Parents, by the hash of their encoding: items come in no particular order, but a few hundred
  // parents cover ten thousand items.
  const parents = new Map<number, { at: number; length: number; key: string | undefined }[]>();
  const lastList: LastList = { at: -1, length: -1, list: [] };
  const states: number[] = [];
  while (r.pos < end) {
    r.align(8);
    // (so) the object
    const len = r.skipString();
    if (len !== busLen || !r.same(r.pos - len - 1, busAt, len)) {
      busAt = r.pos - len - 1;
      busLen = len;
      bus = len === 0 ? '' : r.text(busAt, busAt + len);
    }
    const objectBus = bus;
    const path = r.string();
    // (so) the application: not used
    r.align(8);
    r.skipString();
    r.skipString();
    // (so) the parent, known by its encoding: from its bus name's length to the end of its path
    r.align(8);
    const parentAt = r.pos;
    const parentBusLen = r.skipString();
    const pathLen = r.skipString();
    const parentLen = r.pos - 1 - parentAt;
    const hash = r.hash(parentAt, parentLen);
    let candidates = parents.get(hash);
    let parent: { at: number; length: number; key: string | undefined } | undefined;
    for (const c of candidates ?? []) if (c.length === parentLen && r.same(c.at, parentAt, parentLen)) parent = c;
    if (parent === undefined) {
      const parentBus = parentBusLen === 0 ? '' : r.text(parentAt + 4, parentAt + 4 + parentBusLen);
      const parentPath = pathLen === 0 ? '' : r.text(r.pos - 1 - pathLen, r.pos - 1);
      parent = { at: parentAt, length: parentLen, key: parentPath === NULL_PATH ? undefined : keyOf(parentBus, parentPath) };
      if (candidates === undefined) parents.set(hash, (candidates = []));
      candidates.push(parent);
    }
    const parentKey = parent.key;
    const index = r.i32();
    const childCount = r.i32();
    const interfaces = readInterfaces(r, lastList);
    const name = r.string();
    const role = r.u32();
    r.skipString(); // description: not used
    const stateBytes = r.u32();
    if (stateBytes % 4 !== 0 || r.pos + stateBytes > end) throw new Malformed('bad state set');
    // One array for every item: makeNode keeps nothing of it.
    states.length = 0;
    for (let i = 0; i < stateBytes; i += 4) states.push(r.u32());
    nodes.push(makeNode(objectBus, path, parentKey, index, childCount, interfaces, name, role, states));
  }
  if (r.pos !== end) throw new Malformed('items overrun the array');
  return nodes;
}

/** The last interface list read: neighbouring items mostly list the same interfaces. */
interface LastList {
  at: number;
  length: number;
  list: readonly string[];
}

/** Reads an `as` of interface names, shared with every other item that lists the same bytes. */
function readInterfaces(r: Reader, last: LastList): readonly string[] {
  const blob = r.u32();
  const start = r.pos;
  const stop = start + blob;
  if (stop > r.buf.length) throw new Malformed('bad interface list');
  if (blob === last.length && r.same(start, last.at, blob)) {
    r.pos = stop;
    return last.list;
  }
  const key = r.buf.toString('latin1', start, stop);
  let list = interfaceLists.get(key);
  if (list === undefined) {
    const names: string[] = [];
    while (r.pos < stop) names.push(r.string());
    if (r.pos !== stop) throw new Malformed('bad interface list');
    if (interfaceLists.size >= INTERFACE_LIST_LIMIT) interfaceLists.clear();
    list = Object.freeze(names);
    interfaceLists.set(key, list);
  }
  r.pos = stop;
  last.at = start;
  last.length = blob;
  last.list = list;
  return list;
}
