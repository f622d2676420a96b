import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import dbus from 'dbus-next';
import compat from 'dbus-next/lib/marshall-compat.js';
import { installFastCalls, marshalCall, type CallMessage } from './fastCalls.js';

// dbus-next 0.10.2 does not export its MessageFlags values
const [NO_REPLY_EXPECTED, NO_AUTO_START, ALLOW_INTERACTIVE_AUTHORIZATION] = [1, 2, 4];
type Options = ConstructorParameters<typeof dbus.Message>[0];
/** Fields to override; undefined removes a default (no interface, no destination). */
type Extra = { [K in keyof Options]?: Options[K] | undefined };

const long256 = 'é'.repeat(140); // 280 bytes
const long64k = 'x'.repeat(70_000);
const odd = ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'ünï', '日本語のテキスト', '🙂🚀', 'mixed ascii 🙂 and é', '\ud800 lone surrogate', long256, long64k];
const ints = [0, 1, 7, -1, -0x80000000, 0x7fffffff, 123456];
const uints = [0, 1, 255, 65536, 0x7fffffff, 0xffffffff];
const serials = [1, 2, 255, 65535, 0x7fffffff, 0xffffffff];
const bodies: [string, unknown[]][] = [['', []]];
for (const s of odd) bodies.push(['s', [s]], ['o', ['/org/a11y/atspi/accessible/' + String(s.length)]]);
for (const s of odd) for (const t of ['', 'name', 'org.a11y.atspi.Accessible', '🙂']) bodies.push(['ss', [s, t]]);
for (const i of ints) bodies.push(['i', [i]], ['ii', [i, -i | 0]], ['si', ['abc', i]], ['is', [i, 'de']]);
for (const u of uints) bodies.push(['u', [u]], ['su', ['org.a11y.atspi.Text', u]], ['uu', [u, 3]], ['sus', ['a', u, 'bcd']]);

function message(signature: string, body: unknown[], serial: number, extra: Extra = {}): dbus.Message {
  const m = new dbus.Message({
    destination: ':1.42',
    path: '/org/a11y/atspi/accessible/7',
    interface: 'org.a11y.atspi.Accessible',
    member: 'GetName',
    signature,
    body,
    ...extra,
  } as Options);
  m.serial = serial;
  return m;
}

/** What dbus-next writes, and the fields it leaves on the message afterwards. */
function both(make: () => dbus.Message): { fast: Buffer | undefined; generic: Buffer; fastMsg: dbus.Message; genericMsg: dbus.Message } {
  const fastMsg = make();
  const genericMsg = make();
  const fast = marshalCall(fastMsg);
  const [generic] = compat.marshallMessage(genericMsg as unknown as Record<string, unknown>);
  return { fast, generic, fastMsg, genericMsg };
}

function assertSame(make: () => dbus.Message, label: string): void {
  const { fast, generic, fastMsg, genericMsg } = both(make);
  assert.ok(fast !== undefined, `${label}: took the fast path`);
  assert.ok(fast.equals(generic), `${label}: bytes differ\n fast    ${fast.toString('hex')}\n generic ${generic.toString('hex')}`);
  assert.deepEqual({ ...fastMsg }, { ...genericMsg }, `${label}: the message is left as dbus-next leaves it`);
}

describe('fast method-call marshalling', () => {
  it('writes the same bytes as dbus-next for every simple body signature', () => {
    let n = 0;
    for (const [signature, body] of bodies)
      for (const serial of serials) {
        assertSame(() => message(signature, body, serial), `${signature} ${JSON.stringify(body).slice(0, 40)} #${serial}`);
        n++;
      }
    assert.ok(n > 500);
  });

  it('matches with and without interface and destination, with flags, and with long names', () => {
    const variants: Extra[] = [
      { interface: undefined },
      { destination: undefined },
      { interface: undefined, destination: undefined },
      { flags: NO_AUTO_START },
      { flags: NO_REPLY_EXPECTED | NO_AUTO_START | ALLOW_INTERACTIVE_AUTHORIZATION },
      { destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'GetConnectionUnixProcessID' },
      { path: '/' },
      { path: '/a', member: 'A', interface: 'a.b', destination: 'a.b' },
      { path: '/' + 'p'.repeat(300), member: 'M'.repeat(255), interface: 'i.' + 'n'.repeat(250) },
    ];
    for (const extra of variants)
      for (const [signature, body] of bodies.slice(0, 60))
        assertSame(() => message(signature, body, 9, extra), `${JSON.stringify(extra).slice(0, 60)} ${signature}`);
  });

  it('matches a message marshalled again after its first send (its body already in marshaller format)', () => {
    const fast = message('ss', ['org.a11y.atspi.Component', 'x'], 5);
    const generic = message('ss', ['org.a11y.atspi.Component', 'x'], 5);
    marshalCall(fast);
    compat.marshallMessage(generic as unknown as Record<string, unknown>);
    const again = marshalCall(fast);
    const [genericAgain] = compat.marshallMessage(generic as unknown as Record<string, unknown>);
    assert.ok(again?.equals(genericAgain));
  });

  it('leaves every other message to dbus-next', () => {
    const refused: [string, () => dbus.Message][] = [
      ['a variant body', () => message('ssv', ['a', 'b', new dbus.Variant('s', 'c')], 1)],
      ['an array body', () => message('as', [['a']], 1)],
      ['a struct body', () => message('(ii)', [[1, 2]], 1)],
      ['a byte', () => message('y', [1], 1)],
      ['a boolean', () => message('b', [true], 1)],
      ['a 64-bit integer', () => message('x', [1], 1)],
      ['a double', () => message('d', [1.5], 1)],
      ['a unix fd', () => message('h', [3], 1)],
      ['a signature', () => message('g', ['s'], 1)],
      ['a number where a string goes', () => message('s', [5], 1)],
      ['a Buffer where a string goes', () => message('s', [Buffer.from('abc')], 1)],
      ['a string where a number goes', () => message('u', ['5'], 1)],
      ['a fraction', () => message('i', [1.5], 1)],
      ['a negative u', () => message('u', [-1], 1)],
      ['a u past 32 bits', () => message('u', [2 ** 32], 1)],
      ['an i past 31 bits', () => message('i', [2 ** 31], 1)],
      ['NaN', () => message('i', [NaN], 1)],
      ['a bigint', () => message('u', [1n], 1)],
      ['a NUL in a string', () => message('s', ['a\0b'], 1)],
      ['too few body values', () => message('ss', ['a'], 1)],
      ['too many body values', () => message('s', ['a', 'b'], 1)],
      ['a signal', () => dbus.Message.newSignal('/a', 'a.b', 'C', 's', ['x'])],
      [
        'a method return',
        () =>
          Object.assign(new dbus.Message({ type: dbus.MessageType.METHOD_RETURN, replySerial: 3, destination: ':1.2' } as unknown as Options), { serial: 4 }),
      ],
      ['a sender', () => message('s', ['x'], 1, { sender: ':1.9' })],
      ['no serial', () => new dbus.Message({ path: '/a', member: 'B' })],
    ];
    for (const [label, make] of refused) {
      const msg = make();
      const before = { ...msg };
      assert.equal(marshalCall(msg as unknown as CallMessage), undefined, label);
      assert.deepEqual({ ...msg }, before, `${label}: the message is untouched`);
    }
  });
});

describe('the fast-call hook on a connection', () => {
  function fakeConnection(supportsUnixFd: boolean): {
    conn: { state: string; message: (m: unknown) => void; stream: object };
    writes: unknown[];
    generic: unknown[];
  } {
    const writes: unknown[] = [];
    const generic: unknown[] = [];
    const stream = { writable: true, supportsUnixFd, write: (data: unknown) => writes.push(data) };
    return { conn: { state: 'connected', message: (m: unknown) => generic.push(m), stream }, writes, generic };
  }

  it('writes simple calls itself and hands the rest to the connection it wraps', () => {
    const { conn, writes, generic } = fakeConnection(false);
    assert.equal(installFastCalls(conn), true);
    conn.message(message('u', [0], 3));
    const variant = message('ssv', ['a', 'b', new dbus.Variant('s', 'c')], 4);
    conn.message(variant);
    assert.equal(writes.length, 1);
    const [expected] = compat.marshallMessage(message('u', [0], 3) as unknown as Record<string, unknown>);
    assert.ok((writes[0] as Buffer).equals(expected));
    assert.deepEqual(generic, [variant]);
  });

  it('writes { data, fds } on a stream that passes file descriptors, as dbus-next does', () => {
    const { conn, writes } = fakeConnection(true);
    installFastCalls(conn);
    conn.message(message('', [], 3));
    const [expected] = compat.marshallMessage(message('', [], 3) as unknown as Record<string, unknown>);
    const written = writes[0] as { data: Buffer; fds: unknown[] };
    assert.ok(written.data.equals(expected));
    assert.deepEqual(written.fds, []);
  });

  it('leaves a closed stream and an unconnected connection to dbus-next', () => {
    const { conn, writes, generic } = fakeConnection(false);
    installFastCalls(conn);
    (conn.stream as { writable: boolean }).writable = false;
    conn.message(message('', [], 3));
    assert.deepEqual([writes.length, generic.length], [0, 1]);
    assert.equal(installFastCalls({ state: 'connecting', message: () => {}, stream: conn.stream }), false);
  });
});
