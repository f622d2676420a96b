import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OverseerError, type ConnectionConfig } from '../../../protocol/index.js';
import { FakeClock, flush } from '../../testing/fakeClock.js';
import { fakeHelperProcess, type FakeHelperProcess } from '../../testing/fakeHelperProcess.js';
import { HelperSupervisor } from '../helperLink/helperSupervisor.js';
import { localTarget } from './localTarget.js';
import { ConnectionManager } from './manager.js';
import { ConnectionRegistry } from './registry.js';
import type { ConnectionTarget } from './target.js';

/** A transport that starts fake helpers and records what was asked of it. */
interface FakeTarget extends ConnectionTarget {
  spawned: FakeHelperProcess[];
  closed: number;
  prepared: number;
  tests: number;
}

function fakeTarget(config: ConnectionConfig, failSpawn = false): FakeTarget {
  const t: FakeTarget = {
    name: config.name,
    kind: config.kind,
    where: 'fake',
    spawned: [],
    closed: 0,
    prepared: 0,
    tests: 0,
    prepare: () => {
      t.prepared++;
      return Promise.resolve();
    },
    spawnHelper: () => {
      const p = fakeHelperProcess();
      // A transport that fails at once: the helper's stream closes before its handshake.
      if (failSpawn) queueMicrotask(() => p.die());
      t.spawned.push(p);
      return p;
    },
    exec: () => Promise.resolve({ exit_code: 0, stdout: 'hi', stderr: '', stdout_truncated: false, stderr_truncated: false, duration_ms: 1 }),
    test: async () => {
      t.tests++;
      await new Promise((r) => setTimeout(r, 20));
      return { name: config.name, reachable: true, authenticated: true };
    },
    close: () => {
      t.closed++;
      return Promise.resolve();
    },
  };
  return t;
}

async function rig(dir: string) {
  const clock = new FakeClock();
  const local: FakeHelperProcess[] = [];
  const localHelper = new HelperSupervisor({
    env: {},
    log: () => {},
    clock,
    spawn: () => {
      const p = fakeHelperProcess();
      local.push(p);
      return p;
    },
  });
  await localHelper.start();
  const targets = new Map<string, FakeTarget[]>();
  let changes = 0;
  const registry = new ConnectionRegistry(dir);
  const m = new ConnectionManager({
    registry,
    local: localHelper,
    localTarget: localTarget(),
    makeTarget: (config) => {
      const t = fakeTarget(config, config.name === 'broken');
      targets.set(config.name, [...(targets.get(config.name) ?? []), t]);
      return t;
    },
    context: { dataDir: dir, log: () => {} },
    helperEnv: {},
    log: () => {},
    clock,
    idleStopMs: 60_000,
    exclusions: () => ({}),
    onChange: () => changes++,
  });
  await m.start();
  return { clock, m, local, localHelper, targets, changes: () => changes };
}

const ssh = (name: string): ConnectionConfig => ({ name, kind: 'ssh', enabled: true, host: 'h' });

async function codeOf(p: Promise<unknown>): Promise<{ code: string; data: Record<string, unknown> | undefined } | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    assert.ok(e instanceof OverseerError, String(e));
    return { code: e.code, data: e.info.data };
  }
}

describe('the connection manager: one helper supervisor per connection', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'overseer-manager-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  it('starts a remote helper on first use (after prepare), routes each call by name, and stops it when idle', async () => {
    const t = await rig(await mkdtemp(join(dir, 'idle-')));
    await t.m.add(ssh('lab'));
    assert.equal(t.m.running('lab'), false, 'nothing starts before it is used');
    const hello = await t.m.call('hello', {}, { connection: 'lab' });
    const lab = t.targets.get('lab')?.[0];
    assert.equal(lab?.prepared, 1);
    assert.equal(lab?.spawned.length, 1);
    assert.equal(hello.pid, lab?.spawned[0]?.child.pid, 'the call went to the lab helper');
    assert.equal((await t.m.call('hello', {}, { connection: 'local' })).pid, t.local[0]?.child.pid, 'local to local');
    assert.equal(t.m.list().find((c) => c.name === 'lab')?.status, 'up');
    await t.clock.tick(59_000);
    assert.equal(t.m.running('lab'), true, 'used a minute ago: still running');
    await t.clock.tick(16_000);
    await flush();
    assert.equal(t.m.running('lab'), false, 'idle past the limit: stopped');
    assert.equal(lab?.closed, 1, 'and its target closed');
    assert.equal(t.localHelper.health.state, 'ready', 'local always runs');
    await t.m.call('hello', {}, { connection: 'lab' });
    assert.equal(t.targets.get('lab')?.length, 2, 'used again: started again through a new target');
    const none = await codeOf(t.m.call('hello', {}, {}));
    assert.equal(none?.code, 'internal', 'a call that names no connection goes nowhere');
    await t.m.stop();
    await t.localHelper.stop();
  });

  it('the emergency stop suspends every helper and closes every target; re-arm resumes those that ran', async () => {
    const t = await rig(await mkdtemp(join(dir, 'brakes-')));
    await t.m.add(ssh('a'));
    await t.m.add(ssh('b'));
    await t.m.add(ssh('c'));
    await t.m.call('hello', {}, { connection: 'a' });
    await t.m.call('hello', {}, { connection: 'b' });
    await t.m.suspendAll();
    assert.equal(t.localHelper.health.state, 'stopped');
    assert.equal(t.targets.get('a')?.[0]?.closed, 1);
    assert.equal(t.targets.get('b')?.[0]?.closed, 1);
    assert.equal(t.targets.get('c'), undefined, 'never used: nothing to close');
    assert.deepEqual(t.targets.get('a')?.[0]?.spawned[0]?.signals, ['SIGKILL'], 'the helper was killed');
    assert.equal((await codeOf(t.m.call('hello', {}, { connection: 'c' })))?.code, 'braked', 'nothing starts during the emergency stop');
    await t.m.resumeAll();
    await t.clock.tick(10);
    await flush();
    assert.equal(t.localHelper.health.state, 'ready');
    await t.m.call('hello', {}, { connection: 'a' });
    assert.equal(t.targets.get('a')?.length, 2, 're-arm spawned a through a fresh target');
    assert.equal(t.targets.get('a')?.[1]?.prepared, 1, 'prepared again');
    assert.equal(t.m.running('c'), false);
    await t.m.stop();
    await t.localHelper.stop();
  });

  it('a flood of tests of one connection runs one test of its transport at a time, shared by all who asked', async () => {
    const t = await rig(await mkdtemp(join(dir, 'tests-')));
    await t.m.add(ssh('lab'));
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.m.test('lab')));
    assert.equal(answers.length, 50);
    assert.ok(answers.every((a) => a.reachable && a.authenticated));
    const target = t.targets.get('lab')?.[0];
    assert.equal(target?.tests, 1, 'fifty callers at once, one test');
    const aborted = new AbortController();
    const cancelled = t.m.test('lab', aborted.signal);
    aborted.abort();
    assert.equal((await codeOf(cancelled))?.code, 'timeout', 'a caller that gives up stops waiting');
    await t.m.test('lab');
    assert.equal(target?.tests, 2, 'the test the cancelled caller began went on, and the next caller shared it');
    await t.m.test('lab');
    assert.equal(target?.tests, 3, 'a test asked after the last one ended runs anew');
    await t.m.stop();
    await t.localHelper.stop();
  });

  it('disabling or removing a connection stops its helper and answers connection_unavailable, never another helper', async () => {
    const t = await rig(await mkdtemp(join(dir, 'disable-')));
    await t.m.add(ssh('lab'));
    await t.m.call('hello', {}, { connection: 'lab' });
    await t.m.setEnabled('lab', false);
    await flush();
    assert.equal(t.m.running('lab'), false);
    assert.deepEqual((await codeOf(t.m.call('hello', {}, { connection: 'lab' })))?.data?.['reason'], 'disabled');
    assert.equal((await codeOf(t.m.exec('lab', 'lab', 'true', { timeoutMs: 1000, maxBytes: 10 })))?.code, 'connection_unavailable');
    await t.m.setEnabled('lab', true);
    await t.m.call('hello', {}, { connection: 'lab' });
    assert.equal(t.m.tagOf('lab'), 'lab');
    await t.m.remove('lab');
    await flush();
    assert.equal(t.m.tagOf('lab'), undefined);
    const removed = await codeOf(t.m.call('hello', {}, { connection: 'lab' }));
    assert.equal(removed?.code, 'connection_unavailable');
    assert.equal(removed?.data?.['reason'], 'removed');
    assert.equal(
      (await codeOf(t.m.exec('local', 'local', 'true', { timeoutMs: 1000, maxBytes: 10 })))?.data?.['reason'],
      'local',
      'remote_exec never runs on local',
    );
    await t.m.add(ssh('lab'));
    assert.equal(t.m.tagOf('lab'), 'lab~2', 'added again, its window ids are qualified anew: none of the earlier one is its');
    const stale = await codeOf(t.m.exec('lab', 'lab', 'true', { timeoutMs: 1000, maxBytes: 10 }));
    assert.equal(stale?.data?.['reason'], 'changed', 'a command approved for the earlier "lab" never runs on the new one');
    await t.m.stop();
    await t.localHelper.stop();
  });

  it("notices another writer's change of connections.json (the CLI) and stops a removed connection's helper without being used", async () => {
    const sub = await mkdtemp(join(dir, 'cli-'));
    const t = await rig(sub);
    await t.m.add(ssh('lab'));
    await t.m.call('hello', {}, { connection: 'lab' });
    const cli = new ConnectionRegistry(sub);
    await cli.load();
    await cli.remove('lab');
    await cli.add(ssh('other'));
    for (let i = 0; i < 50 && t.m.running('lab'); i++) {
      await t.clock.tick(2000);
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(t.m.running('lab'), false);
    assert.equal(t.targets.get('lab')?.[0]?.closed, 1);
    assert.deepEqual(
      t.m.list().map((c) => c.name),
      ['local', 'other'],
    );
    assert.equal((await codeOf(t.m.call('hello', {}, { connection: 'lab' })))?.data?.['reason'], 'removed');
    await t.m.stop();
    await t.localHelper.stop();
  });

  it('a helper that does not start answers connection_unavailable with its reason, and the status says down', async () => {
    const t = await rig(await mkdtemp(join(dir, 'broken-')));
    await t.m.add(ssh('broken'));
    const call = t.m.call('hello', {}, { connection: 'broken' });
    const err = await codeOf(call);
    assert.equal(err?.code, 'connection_unavailable');
    assert.equal(err?.data?.['reason'], 'down');
    const info = t.m.list().find((c) => c.name === 'broken');
    assert.equal(info?.status, 'down');
    assert.ok(info?.last_error !== undefined && info.checked_at !== undefined);
    assert.equal(t.m.running('broken'), false);
    await t.m.stop();
    await t.localHelper.stop();
  });
});
