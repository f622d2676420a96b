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
    // As dbus-next reads strings (DBusBuffer.readString), so invalid UTF-8 reads the same.
    return len === 0 ? '' : this.buf.toString('utf8', this.pos - len - 1, this.pos - 1);
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
  // The last bus name and parent path read, by position: consecutive items mostly repeat them.
  let busAt = -1;
  let busLen = -1;
  let bus = '';
  let parentAt = -1;
  let parentLen = -1;
  let parentKey: string | undefined;
  while (r.pos < end) {
    r.align(8);
    // (so) the object
    let len = r.skipString();
    if (len !== busLen || !r.same(r.pos - len - 1, busAt, len)) {
      busAt = r.pos - len - 1;
      busLen = len;
      bus = len === 0 ? '' : bytes.toString('utf8', busAt, busAt + len);
    }
    const objectBus = bus;
    const path = r.string();
    // (so) the application: not used
    r.align(8);
    r.skipString();
    r.skipString();
    // (so) the parent
    r.align(8);
    len = r.skipString();
    const parentBusAt = r.pos - len - 1;
    const parentBusLen = len;
    len = r.skipString();
    const pathAt = r.pos - len - 1;
    // The parent is the last one when its encoding (bus name length to path end) is the same.
    const parentRange = pathAt + len - (parentBusAt - 4);
    if (parentRange !== parentLen || !r.same(parentBusAt - 4, parentAt, parentRange)) {
      parentAt = parentBusAt - 4;
      parentLen = parentRange;
      const parentBus = parentBusLen === 0 ? '' : bytes.toString('utf8', parentBusAt, parentBusAt + parentBusLen);
      const parentPath = len === 0 ? '' : bytes.toString('utf8', pathAt, pathAt + len);
      parentKey = parentPath === NULL_PATH ? undefined : keyOf(parentBus, parentPath);
    }
    const index = r.i32();
    const childCount = r.i32();
    const interfaces = readInterfaces(r);
    const name = r.string();
    const role = r.u32();
    r.skipString(); // description: not used
    const stateBytes = r.u32();
    if (stateBytes % 4 !== 0 || r.pos + stateBytes > end) throw new Malformed('bad state set');
    const states: number[] = [];
    for (let i = 0; i < stateBytes; i += 4) states.push(r.u32());
    nodes.push(makeNode(objectBus, path, parentKey, index, childCount, interfaces, name, role, states));
  }
  if (r.pos !== end) throw new Malformed('items overrun the array');
  return nodes;
}

/** Reads an `as` of interface names, shared with every other item that lists the same bytes. */
function readInterfaces(r: Reader): readonly string[] {
  const blob = r.u32();
  const start = r.pos;
  const stop = start + blob;
  if (stop > r.buf.length) throw new Malformed('bad interface list');
  const key = r.buf.toString('latin1', start, stop);
  const known = interfaceLists.get(key);
  if (known !== undefined) {
    r.pos = stop;
    return known;
  }
  const list: string[] = [];
  while (r.pos < stop) list.push(r.string());
  if (r.pos !== stop) throw new Malformed('bad interface list');
  if (interfaceLists.size >= INTERFACE_LIST_LIMIT) interfaceLists.clear();
  const frozen = Object.freeze(list);
  interfaceLists.set(key, frozen);
  return frozen;
}
