// `npx tsx bench/getItemsDecode.ts`: the structural load of a big window (the fixture's
// --big 10000, ≈10.2k accessibles) through dbus-next's generic decode and through the raw
// GetItems reader (helper/backends/atspi/cacheItems.ts), measured in the same run, interleaved
// round by round, on a private test desktop. Prints p50s and ratios; asserts nothing timed, only
// that both paths give identical nodes.
//
//   decode  one captured GetItems body: dbus-next (DBusBuffer.read + messageToJsFmt) and nodes
//           from that, against nodes read from the bytes directly. Pure CPU, no bus.
//   call    the live GetItems call: decoded by dbus-next against kept raw (includes the app's
//           own time to build and send the reply, the same for both).
//   load    a cold AppCache.load (call, nodes, maps): the generic path (a bus that does not ask
//           for the raw reply) against the real one.
//
// ROUNDS=n (default 15) sets the rounds; PROF=<file> also writes a CPU profile of 10 cold loads.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { AppCache } from '../helper/backends/atspi/appCache.js';
import { CACHE_ITEMS_SIGNATURE, decodedItemNodes, readCacheItems } from '../helper/backends/atspi/cacheItems.js';
import { A11yBus, RawBody } from '../helper/backends/atspi/dbus.js';
import { Deadline } from '../helper/core/deadline.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 15);
const PROF = process.env['PROF'];
const ACCESSIBLE = 'org.a11y.atspi.Accessible';
const CACHE = ['/org/a11y/atspi/cache', 'org.a11y.atspi.Cache', 'GetItems'] as const;

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const log = (line: string): void => console.log(`[getItemsDecode] ${line}`);

/** Finds the application connection of a process on the a11y bus. */
async function busOf(bus: A11yBus, pid: number): Promise<string> {
  const [apps] = await bus.call('org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', ACCESSIBLE, 'GetChildren', 5000);
  for (const [name] of apps as [string, string][]) {
    const [owner] = await bus.daemon('GetConnectionUnixProcessID', 5000, 's', [name]);
    if (owner === pid) return name;
  }
  throw new Error(`no application connection of pid ${pid}`);
}

/** GTK3 makes accessibles on first access: one walk so that the cache holds the whole window. */
async function walk(bus: A11yBus, busName: string): Promise<number> {
  let level: [string, string][] = [[busName, '/org/a11y/atspi/accessible/root']];
  let seen = 0;
  while (level.length > 0) {
    seen += level.length;
    const next = await Promise.all(level.map(([b, path]) => bus.call(b, path, ACCESSIBLE, 'GetChildren', 30_000)));
    level = next.flatMap(([kids]) => kids as [string, string][]);
  }
  return seen;
}

/** The same bus, minus the request for a raw reply: AppCache then takes dbus-next's generic path. */
function genericBus(bus: A11yBus): A11yBus {
  return new Proxy(bus, {
    get(target, prop, receiver) {
      if (prop === 'call') return (...args: Parameters<A11yBus['call']>) => target.call(...(args.slice(0, 7) as Parameters<A11yBus['call']>));
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function timed(fn: () => unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const desktop = await startPrivateDesktop();
try {
  const app = await desktop.launch('/usr/bin/python3', ['desktop/apps/fixtureApp.py', '--big', '10000'], { waitForWindow: 'Overseer Big', timeoutMs: 60_000 });
  process.env['AT_SPI_BUS_ADDRESS'] = desktop.a11yBusAddress;
  const bus = await A11yBus.connect();
  try {
    // Registering a listener makes the GTK bridge publish its Cache object.
    await bus.call('org.a11y.atspi.Registry', '/org/a11y/atspi/registry', 'org.a11y.atspi.Registry', 'RegisterEvent', 3000, 'sass', ['object:', [], '']);
    const busName = await busOf(bus, app.pid);
    log(`big fixture ${busName}: ${await walk(bus, busName)} accessibles walked`);

    const [raw] = await bus.call(busName, ...CACHE, 30_000, '', [], CACHE_ITEMS_SIGNATURE);
    assert.ok(raw instanceof RawBody, 'the connection keeps GetItems replies raw');
    const fast = readCacheItems(raw);
    assert.ok(fast !== undefined, 'the raw reader accepts the real reply');
    assert.deepStrictEqual(fast, decodedItemNodes(raw.decode()[0]));
    log(`GetItems body: ${raw.bytes.length} bytes, ${fast.length} items; both paths give identical nodes`);

    const t = { decode: [] as number[], genericNodes: [] as number[], generic: [] as number[], raw: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      let body: unknown[] = [];
      t.decode.push(await timed(() => (body = raw.decode())));
      t.genericNodes.push(await timed(() => decodedItemNodes(body[0])));
      t.generic.push((t.decode.at(-1) ?? 0) + (t.genericNodes.at(-1) ?? 0));
      t.raw.push(await timed(() => readCacheItems(raw)));
    }
    log(
      `decode: generic ${ms(p50(t.generic))} (dbus-next ${ms(p50(t.decode))} + nodes ${ms(p50(t.genericNodes))}), ` +
        `raw reader ${ms(p50(t.raw))}: ${(p50(t.generic) / p50(t.raw)).toFixed(1)}× less`,
    );

    const generic = genericBus(bus);
    const live = { callGeneric: [] as number[], callRaw: [] as number[], loadGeneric: [] as number[], load: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      live.callGeneric.push(await timed(() => bus.call(busName, ...CACHE, 30_000)));
      live.callRaw.push(await timed(() => bus.call(busName, ...CACHE, 30_000, '', [], CACHE_ITEMS_SIGNATURE)));
      live.loadGeneric.push(await timed(() => new AppCache(generic, busName).load(new Deadline(60_000))));
      live.load.push(await timed(() => new AppCache(bus, busName).load(new Deadline(60_000))));
    }
    log(`call: decoded by dbus-next ${ms(p50(live.callGeneric))}, kept raw ${ms(p50(live.callRaw))}`);
    log(`load: generic ${ms(p50(live.loadGeneric))}, raw ${ms(p50(live.load))}: ${(p50(live.loadGeneric) / p50(live.load)).toFixed(1)}× less`);
    log(`(p50 over ${ROUNDS} interleaved rounds; the call includes the app's own time to answer)`);

    if (PROF !== undefined) {
      const session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      for (let i = 0; i < 10; i++) await new AppCache(bus, busName).load(new Deadline(60_000));
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(PROF, JSON.stringify(profile));
      session.disconnect();
      log(`CPU profile of 10 cold loads: ${PROF}`);
    }
  } finally {
    bus.disconnect();
    await app.stop();
  }
} finally {
  await desktop.stop();
}
