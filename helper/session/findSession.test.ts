import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OverseerError } from '../../protocol/index.js';
import { findSession, type SessionRoots } from './findSession.js';

const uid = process.getuid?.() ?? 0;
const dirs: string[] = [];
const servers: Server[] = [];

/** A fake /proc (each pid's environ), /run/user and /tmp/.X11-unix, owned by this user. */
async function roots(procs: Record<string, string>[], options: { userBus?: boolean; xSockets?: string[] } = {}): Promise<SessionRoots> {
  const dir = mkdtempSync(join(tmpdir(), 'overseer-findsession-'));
  dirs.push(dir);
  procs.forEach((env, i) => {
    mkdirSync(join(dir, 'proc', String(50_000 + i)), { recursive: true });
    writeFileSync(
      join(dir, 'proc', String(50_000 + i), 'environ'),
      `${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\0')}\0`,
    );
  });
  mkdirSync(join(dir, 'proc', 'self'), { recursive: true });
  mkdirSync(join(dir, 'run', String(uid)), { recursive: true });
  mkdirSync(join(dir, 'x11'), { recursive: true });
  const listen = (path: string): Promise<void> =>
    new Promise((resolve) => {
      const server = createServer();
      servers.push(server);
      server.listen(path, resolve);
    });
  if (options.userBus === true) await listen(join(dir, 'run', String(uid), 'bus'));
  for (const name of options.xSockets ?? []) await listen(join(dir, 'x11', name));
  return { proc: join(dir, 'proc'), runUser: join(dir, 'run'), x11Sockets: join(dir, 'x11'), uid };
}

function refused(f: () => unknown): OverseerError {
  try {
    f();
  } catch (error) {
    assert.ok(error instanceof OverseerError);
    assert.equal(error.code, 'connection_unavailable');
    assert.equal(error.info.data?.['reason'], 'no_session');
    return error;
  }
  assert.fail('expected no_session');
}

describe('findSession: the remote user graphical session', () => {
  after(() => {
    for (const s of servers) s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps what the connection gave', async () => {
    const found = findSession({ DISPLAY: ':5', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, await roots([]));
    assert.deepEqual(found.env, {});
  });

  it("takes the display and bus most of the desktop's processes use, and nothing else of their environment", async () => {
    const r = await roots([
      { DISPLAY: ':1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus', XAUTHORITY: '/home/u/.Xauthority', SECRET: 'x' },
      { DISPLAY: ':1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' },
      { DISPLAY: ':1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/stray' },
      { PATH: '/usr/bin' },
    ]);
    const found = findSession({}, r);
    assert.deepEqual(found.env, { DISPLAY: ':1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus', XAUTHORITY: '/home/u/.Xauthority' });
    assert.equal(found.type, 'x11');
  });

  it('finds the bus of the display it was given', async () => {
    const r = await roots([
      { DISPLAY: ':1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/a' },
      { DISPLAY: ':2', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/b' },
    ]);
    assert.deepEqual(findSession({ DISPLAY: ':2' }, r).env, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/b' });
  });

  it('never guesses between two desktops: it names them', async () => {
    const r = await roots([
      { DISPLAY: ':1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/a' },
      { DISPLAY: ':2', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/b' },
    ]);
    const error = refused(() => findSession({}, r));
    assert.match(error.info.detail, /DISPLAY=:1, DISPLAY=:2/);
  });

  it("takes no other user's processes", async () => {
    const r = await roots([{ DISPLAY: ':1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/a' }]);
    const error = refused(() => findSession({}, { ...r, uid: uid + 4242 }));
    assert.match(error.info.detail, /0 process\(es\) of uid/);
  });

  it('falls back to the user bus and the one X socket of the user', async () => {
    const r = await roots([], { userBus: true, xSockets: ['X7'] });
    const found = findSession({}, r);
    assert.deepEqual(found.env, { DBUS_SESSION_BUS_ADDRESS: `unix:path=${r.runUser}/${uid}/bus`, DISPLAY: ':7' });
  });

  it('says everything it tried when there is no session', async () => {
    const r = await roots([], { xSockets: ['X3', 'X4'] });
    const error = refused(() => findSession({}, r));
    const tried = error.info.data?.['tried'] as string[];
    assert.ok(tried.some((t) => t.includes('0 process(es)')));
    assert.ok(tried.some((t) => t.endsWith('/bus: missing')));
    assert.ok(tried.some((t) => t.includes('2 X socket(s)')));
    assert.match(String(error.info.data?.['hint']), /set display and bus/);
  });
});
