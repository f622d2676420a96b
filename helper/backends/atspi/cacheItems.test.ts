import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import compat from 'dbus-next/lib/marshall-compat.js';
import marshall from 'dbus-next/lib/marshall.js';
import messageModule from 'dbus-next/lib/message.js';
import { CACHE_ITEMS_SIGNATURE, cacheItemNodes, decodedItemNodes, readCacheItems } from './cacheItems.js';
import { I, patternsOf, type AtspiNode } from './atspiNode.js';
import { RawBody, enableRawReplies, expectRaw } from './rawReplies.js';
import { NULL_PATH, ROOT_PATH, keyOf } from './refs.js';
import { mapRole, mapState, stateSet } from './roles.js';

type Ref = [string, string];
/** One GetItems item as dbus-next decodes it: ref, app, parent, index, child count, interfaces, name, role, description, states. */
type Item = [Ref, Ref, Ref, number, number, string[], string, number, string, number[]];

const A = ':1.2';
const p = (n: number | string): string => `/org/a11y/atspi/accessible/${n}`;
const item = (
  ref: Ref,
  parent: Ref,
  over: Partial<{ index: number; count: number; ifaces: string[]; name: string; role: number; states: number[] }> = {},
): Item => [
  ref,
  [ref[0], ROOT_PATH],
  parent,
  over.index ?? 0,
  over.count ?? 0,
  over.ifaces ?? [I.accessible, I.component],
  over.name ?? 'Cell',
  over.role ?? 29,
  'a description',
  over.states ?? [0x0200_0300, 0],
];

/** Items covering what the reader shares between items and the values at the edges of their types. */
const ITEMS: Item[] = [
  item([A, p(1)], [A, ROOT_PATH], { index: 0, count: 3, ifaces: [I.accessible, I.component, 'org.a11y.atspi.Collection'], name: 'Overseer Big', role: 69 }),
  item([A, p(2)], [A, p(1)], { index: 0, ifaces: [], name: '' }),
  item([A, p(3)], [A, p(1)], { index: 1, name: 'Café ✓ 日本語 🎉', states: [0xffff_ffff, 0xffff_ffff] }),
  item([A, p(4)], [A, p(1)], { index: 2_147_483_647, count: -1, role: 999, states: [0, 1 << 9] }),
  item([A, p(5)], [A, NULL_PATH], { index: -1, count: 2_147_483_647, role: 0, states: [] }),
  item([A, ROOT_PATH], [A, NULL_PATH], { role: 75, states: [1, 2, 3] }),
  // bus names and parents that differ from the previous item only slightly
  item([':1.23', p(6)], [':1.23', p(1)], { ifaces: [I.accessible, I.action, I.text, I.editableText], role: 79, states: [1 << 7, 0] }),
  item([':1.2', p(7)], [':1.2', p(12)]),
  item([':1.2', p(8)], [':1.21', p(2)]),
  item([':1.2', '/other/path'], [':1.2', '/other'], { name: 'outside the accessible prefix' }),
  item([A, p(9)], [A, p(1)], { ifaces: [I.accessible, I.component, 'org.a11y.atspi.Collection'], role: 43, states: [(1 << 8) | (1 << 24) | (1 << 11), 0] }),
];

/** Encodes items as a GetItems body, in either byte order (dbus-next writes only little-endian). */
function encode(items: readonly Item[], littleEndian: boolean): Buffer {
  const chunks: number[] = [];
  const pad = (n: number): void => {
    while (chunks.length % n !== 0) chunks.push(0);
  };
  const u32 = (v: number): void => {
    pad(4);
    const b = Buffer.alloc(4);
    if (littleEndian) b.writeUInt32LE(v >>> 0);
    else b.writeUInt32BE(v >>> 0);
    chunks.push(...b);
  };
  const s = (v: string): void => {
    const b = Buffer.from(v, 'utf8');
    u32(b.length);
    chunks.push(...b, 0);
  };
  const ref = ([bus, path]: Ref): void => {
    pad(8);
    s(bus);
    s(path);
  };
  u32(0);
  const lengthAt = chunks.length - 4;
  pad(8);
  const start = chunks.length;
  for (const [r, app, parent, index, count, ifaces, name, role, description, states] of items) {
    pad(8);
    ref(r);
    ref(app);
    ref(parent);
    u32(index);
    u32(count);
    u32(0);
    const ifacesAt = chunks.length - 4;
    for (const i of ifaces) s(i);
    setLength(ifacesAt, chunks.length - ifacesAt - 4);
    s(name);
    u32(role);
    s(description);
    u32(states.length * 4);
    for (const w of states) u32(w);
  }
  setLength(lengthAt, chunks.length - start);
  return Buffer.from(chunks);

  function setLength(at: number, length: number): void {
    const b = Buffer.alloc(4);
    if (littleEndian) b.writeUInt32LE(length);
    else b.writeUInt32BE(length);
    b.forEach((byte, i) => (chunks[at + i] = byte));
  }
}

const raw = (bytes: Buffer, littleEndian = true): RawBody => new RawBody(CACHE_ITEMS_SIGNATURE, bytes, littleEndian);
/** The nodes the generic path gives: dbus-next's decode, then one node per decoded item. */
const generic = (body: RawBody): ReturnType<typeof decodedItemNodes> => decodedItemNodes(body.decode()[0]);

describe('cacheItems: GetItems bodies read directly give the nodes the generic decode gives', () => {
  it('the test encoder writes what dbus-next writes', () => {
    assert.deepEqual(encode(ITEMS, true), marshall(CACHE_ITEMS_SIGNATURE, [ITEMS]));
  });

  it('reads every edge case the same (empty interface list, non-ASCII, NULL parent, extreme numbers, lookalike buses)', () => {
    const body = raw(encode(ITEMS, true));
    const nodes = cacheItemNodes([body]);
    assert.deepStrictEqual(readCacheItems(body), nodes, 'read directly, not through the fallback');
    assert.equal(nodes.length, ITEMS.length);
    assert.deepStrictEqual(nodes, generic(body));
    // and the generic decode is what it was: spot checks against the items themselves
    assert.equal(nodes[2]?.name, 'Café ✓ 日本語 🎉');
    assert.equal(nodes[3]?.index, 2_147_483_647);
    assert.equal(nodes[3]?.childCount, -1);
    assert.equal(nodes[4]?.parent, undefined);
    assert.equal(nodes[1]?.interfaces.size, 0);
    assert.equal(nodes[8]?.parent, ':1.21~2');
    assert.equal(nodes[9]?.key, ':1.2/other/path');
  });

  it('the nodes are the ones makeNode built before it shared anything between nodes', () => {
    const nodes = cacheItemNodes([raw(encode(ITEMS, true))]);
    const expected = ITEMS.map(([[bus, path], , [parentBus, parentPath], index, childCount, ifaces, name, roleNumber, , words]) => {
      const { role, nativeRole } = mapRole(roleNumber);
      const states = stateSet(words);
      const node: AtspiNode = {
        key: keyOf(bus, path),
        bus,
        path,
        parent: parentPath === NULL_PATH ? undefined : keyOf(parentBus, parentPath),
        children: undefined,
        childCount,
        role,
        nativeRole,
        name,
        state: mapState(states, nativeRole),
        patterns: [],
        detailed: false,
        unread: new Set(),
        interfaces: new Set(ifaces),
        index,
        states,
      };
      node.patterns = patternsOf(node);
      return node;
    });
    assert.deepStrictEqual(nodes, expected);
  });

  it('reads a big-endian body the same', () => {
    const body = raw(encode(ITEMS, false), false);
    assert.notEqual(readCacheItems(body), undefined);
    assert.deepStrictEqual(cacheItemNodes([body]), generic(body));
    assert.deepStrictEqual(cacheItemNodes([body]), cacheItemNodes([raw(encode(ITEMS, true))]));
  });

  it('reads an empty reply and a big repetitive one the same', () => {
    assert.deepStrictEqual(cacheItemNodes([raw(encode([], true))]), []);
    const many = Array.from({ length: 3000 }, (_, i) => item([A, p(i + 10)], [A, p(Math.floor(i / 50))], { index: i % 50, name: `Cell ${i}` }));
    const body = raw(encode(many, true));
    assert.notEqual(readCacheItems(body), undefined);
    assert.deepStrictEqual(cacheItemNodes([body]), generic(body));
  });

  it('nodes with the same interfaces share one set, and nodes stay independent where they are changed', () => {
    const nodes = cacheItemNodes([raw(encode(ITEMS, true))]);
    assert.equal(nodes[0]?.interfaces, nodes[10]?.interfaces);
    assert.notEqual(nodes[0]?.state, nodes[10]?.state);
    assert.notEqual(nodes[7]?.patterns, nodes[8]?.patterns);
    assert.notEqual(nodes[7]?.unread, nodes[8]?.unread);
  });

  it('falls back to the generic decode for a body it does not expect, never misreading it', () => {
    const good = encode(ITEMS, true);
    // trailing bytes: dbus-next ignores them, so must we
    const trailing = raw(Buffer.concat([good, Buffer.alloc(8)]));
    assert.equal(readCacheItems(trailing), undefined);
    assert.deepStrictEqual(cacheItemNodes([trailing]), generic(trailing));
    // a string without its terminating NUL where the generic decoder does not look
    const noNul = Buffer.from(good);
    const nameAt = noNul.indexOf('Overseer Big') + 'Overseer Big'.length;
    noNul[nameAt] = 0x21;
    assert.equal(readCacheItems(raw(noNul)), undefined);
    assert.deepStrictEqual(cacheItemNodes([raw(noNul)]), generic(raw(noNul)));
    // a truncated body fails the way the generic decoder fails, not with made-up nodes
    const truncated = raw(good.subarray(0, good.length - 5));
    assert.throws(() => generic(truncated));
    assert.equal(readCacheItems(truncated), undefined);
    assert.throws(() => cacheItemNodes([truncated]));
    // another signature goes the generic way entirely
    const other = new RawBody('a(so)', marshall('a(so)', [[[A, p(1)]]]), true);
    assert.deepStrictEqual(cacheItemNodes([other]), decodedItemNodes(other.decode()[0]));
  });

  it('reads a body dbus-next decoded (a fake bus, a connection without raw replies) as before', () => {
    const body = raw(encode(ITEMS, true));
    assert.deepStrictEqual(cacheItemNodes(body.decode()), generic(body));
    assert.deepStrictEqual(cacheItemNodes([]), []);
  });
});

describe('rawReplies: a connection that opts in gets only the replies it asked for raw', () => {
  const wire = (fields: Record<string, unknown>): Buffer => compat.marshallMessage({ flags: 0, ...fields })[0];
  const items = ITEMS.slice(0, 3);
  const reply = (serial: number, replySerial: number): Buffer =>
    wire({ type: 2, serial, replySerial, destination: ':1.9', sender: A, signature: CACHE_ITEMS_SIGNATURE, body: [items] });

  /** Feeds wire bytes through dbus-next's parser entry point (replaced or not) and collects the messages. */
  function parse(chunks: Buffer[], optIn: boolean, want: (stream: object) => void = () => {}): Record<string, unknown>[] {
    const stream = new PassThrough();
    if (optIn) assert.equal(enableRawReplies(stream), true);
    want(stream);
    const out: Record<string, unknown>[] = [];
    messageModule.unmarshalMessages(stream, (m) => out.push(m), {});
    for (const c of chunks) stream.write(c);
    return out;
  }

  it('keeps the wanted reply raw and parses every other message as dbus-next does', async () => {
    const messages = [
      reply(5, 40),
      reply(6, 41), // not wanted
      wire({ type: 4, serial: 7, path: p(1), interface: I.cache, member: 'AddAccessible', sender: A, signature: 'a(so)', body: [[[A, p(1)]]] }),
      wire({ type: 3, serial: 8, replySerial: 42, errorName: 'org.freedesktop.DBus.Error.UnknownMethod', sender: A, signature: 's', body: ['no'] }),
      wire({ type: 2, serial: 9, replySerial: 43, sender: A, signature: 's', body: ['other signature'] }),
    ];
    let wanted: ReturnType<typeof expectRaw>[] = [];
    const got = parse(messages, true, (stream) => (wanted = [40, 42, 43].map((serial) => expectRaw(stream, serial, CACHE_ITEMS_SIGNATURE))));
    const plain = parse(messages, false);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(got.length, 5);
    const raw40 = wanted[0]?.raw;
    assert.ok(raw40 instanceof RawBody);
    assert.deepStrictEqual(
      cacheItemNodes([raw40]),
      decodedItemNodes(compat.messageToJsFmt({ signature: CACHE_ITEMS_SIGNATURE, body: plain[0]?.['body'] as unknown[] }).body[0]),
    );
    assert.equal(got[0]?.['signature'], '', 'the raw reply carries no body for dbus-next to decode');
    assert.equal(got[0]?.['body'], undefined);
    assert.deepStrictEqual(got.slice(1), plain.slice(1));
    assert.equal(wanted[1]?.raw, undefined, 'an error reply is never raw');
    assert.equal(wanted[2]?.raw, undefined, 'a reply of another signature is never raw');
  });

  it('a message split over many chunks parses the same', async () => {
    const bytes = Buffer.concat([reply(5, 40), reply(6, 41)]);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
    let wanted: ReturnType<typeof expectRaw>;
    const got = parse(chunks, true, (stream) => (wanted = expectRaw(stream, 41, CACHE_ITEMS_SIGNATURE)));
    const plain = parse([bytes], false);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepStrictEqual(got[0], plain[0]);
    assert.ok(wanted?.raw instanceof RawBody);
    assert.deepStrictEqual(cacheItemNodes([wanted.raw]), cacheItemNodes([new RawBody(CACHE_ITEMS_SIGNATURE, encode(items, true), true)]));
  });
});
