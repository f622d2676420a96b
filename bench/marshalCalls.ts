// `npx tsx bench/marshalCalls.ts`: the marshalling of outgoing AT-SPI method calls, dbus-next's
// generic marshallMessage against the hand marshaller (helper/backends/atspi/fastCalls.ts), in
// the same run, interleaved round by round, on the shapes a cold read sends (GetExtents 'u',
// Properties.Get 'ss', GetChildren '', GetText 'ii', GetConnectionUnixProcessID 's', ...).
// Pure CPU, no bus. Prints µs per message (p50 of the rounds) and the ratio; asserts nothing
// timed, only that both give the same bytes.
//
// N=n (default 10000) messages per round, ROUNDS=n (default 9).

import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import dbus from 'dbus-next';
import compat from 'dbus-next/lib/marshall-compat.js';
import { marshalCall } from '../helper/backends/atspi/fastCalls.js';

const N = Number(process.env['N'] ?? 10_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 9);
const APP = ':1.42';
const ACCESSIBLE = 'org.a11y.atspi.Accessible';

type Shape = [iface: string, member: string, signature: string, body: (i: number) => unknown[]];
const SHAPES: Shape[] = [
  ['org.a11y.atspi.Component', 'GetExtents', 'u', () => [0]],
  ['org.freedesktop.DBus.Properties', 'Get', 'ss', () => [ACCESSIBLE, 'Name']],
  ['org.a11y.atspi.Action', 'GetActions', '', () => []],
  ['org.a11y.atspi.Text', 'GetText', 'ii', () => [0, -1]],
  ['org.a11y.atspi.Action', 'GetName', 'i', (i) => [i % 3]],
  [ACCESSIBLE, 'GetChildren', '', () => []],
  ['org.freedesktop.DBus.Peer', 'Ping', '', () => []],
  ['org.freedesktop.DBus.Properties', 'GetAll', 's', () => [ACCESSIBLE]],
  [ACCESSIBLE, 'GetRole', '', () => []],
  [ACCESSIBLE, 'GetState', '', () => []],
  [ACCESSIBLE, 'GetInterfaces', '', () => []],
];

/** The messages of one round, as A11yBus.call builds them, each with its own serial. */
function messages(round: number): dbus.Message[] {
  const out: dbus.Message[] = [];
  for (let i = 0; i < N; i++) {
    const [iface, member, signature, body] = SHAPES[i % SHAPES.length] as Shape;
    const msg = new dbus.Message({ destination: APP, path: `/org/a11y/atspi/accessible/${1000 + i}`, interface: iface, member, signature, body: body(i) });
    msg.serial = round * N + i + 1;
    out.push(msg);
  }
  return out;
}

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const log = (line: string): void => console.log(`[marshalCalls] ${line}`);

// the same bytes first (one round, message by message)
const check = messages(0);
const generic = messages(0).map((m) => compat.marshallMessage(m as unknown as Record<string, unknown>)[0]);
check.forEach((m, i) => assert.ok(marshalCall(m)?.equals(generic[i] as Buffer), `message ${i} differs`));

const times = { generic: [] as number[], fast: [] as number[] };
let bytes = 0;
for (let round = 1; round <= ROUNDS + 1; round++) {
  const a = messages(round);
  const b = messages(round);
  const t0 = performance.now();
  for (const m of a) bytes += compat.marshallMessage(m as unknown as Record<string, unknown>)[0].length;
  const t1 = performance.now();
  for (const m of b) bytes += marshalCall(m)?.length ?? 0;
  const t2 = performance.now();
  if (round === 1) continue; // warm-up
  times.generic.push(((t1 - t0) * 1000) / N);
  times.fast.push(((t2 - t1) * 1000) / N);
}
const [g, f] = [p50(times.generic), p50(times.fast)];
log(`${N} messages × ${ROUNDS} rounds, shapes ${SHAPES.map((s) => `${s[1]} '${s[2]}'`).join(', ')}; ${bytes} bytes written`);
log(`dbus-next marshallMessage  ${g.toFixed(2)} µs/message`);
log(`fastCalls marshalCall      ${f.toFixed(2)} µs/message`);
log(`ratio                      ${(g / f).toFixed(1)}× faster`);
