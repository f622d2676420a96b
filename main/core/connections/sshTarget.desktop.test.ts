// The ssh transport against a real OpenSSH server (a private sshd on 127.0.0.1) whose sessions see a
// second private desktop, while a local desktop runs beside it and is checked untouched at the end.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_REMOTE_OUTPUT, OverseerError, type SshConnectionConfig } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { SSHD_FORCED_OUTPUT, startPrivateSshd, type PrivateSshd } from '../../testing/privateSshd.js';
import { buildRemoteHelperForTest } from '../../testing/remoteHelperBuild.js';
import { spawnHelper, type HelperProcess } from '../helperLink/helperProcess.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { sshTarget } from './sshTarget.js';
import type { ConnectionTarget } from './target.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const FREEZE_S = 20;

/** Rejects with connection_unavailable; answers its data. */
async function unavailable(p: Promise<unknown>, reason: string): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof OverseerError, String(error));
    assert.equal(error.code, 'connection_unavailable', error.message);
    const data = error.info.data ?? {};
    assert.equal(data['reason'], reason, error.message);
    assert.equal(typeof data['hint'], 'string');
    return { ...data, detail: error.info.detail };
  }
  assert.fail(`expected connection_unavailable ${reason}, but it succeeded`);
}

describe('ssh connection: a private sshd whose sessions see a second desktop', () => {
  let local: PrivateDesktop;
  let remote: PrivateDesktop;
  let sshd: PrivateSshd;
  let bundle: string;
  let localHelper: HelperProcess;
  let localBefore: string;
  const dataDirs: string[] = [];
  const targets: ConnectionTarget[] = [];
  const newDataDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'overseer-ssh-data-'));
    dataDirs.push(d);
    return d;
  };
  const entry = (extra: Partial<SshConnectionConfig> = {}): SshConnectionConfig => ({
    name: 'lab',
    kind: 'ssh',
    enabled: true,
    host: sshd.alias,
    ssh_config: sshd.clientConfig,
    display: remote.display,
    bus: remote.env['DBUS_SESSION_BUS_ADDRESS'],
    ...extra,
  });
  const target = (extra: Partial<SshConnectionConfig> = {}, dataDir = newDataDir()): ConnectionTarget => {
    const t = sshTarget(entry(extra), { dataDir, log: () => {}, bundle });
    targets.push(t);
    return t;
  };
  /** What the local fixture shows: its window read whole (the counter's label, the entry's text). */
  const localState = async (): Promise<string> => {
    const list = await localHelper.call('window_list', {});
    const w = list.windows.find((x) => x.title === 'Local Fixture');
    assert.ok(w, 'the local fixture is listed');
    const read = await localHelper.call('window_read', { window: w.window, format: 'flat', max_nodes: 5000 });
    return JSON.stringify(read.elements.map((e) => [e.role, e.name, e.value]));
  };

  before(async () => {
    bundle = buildRemoteHelperForTest();
    [local, remote] = await Promise.all([startPrivateDesktop({ width: 1280, height: 800 }), startPrivateDesktop({ width: 1280, height: 800 })]);
    await Promise.all([
      local.launch('/usr/bin/python3', [FIXTURE, '--title', 'Local Fixture', '--rows', '20'], { waitForWindow: 'Local Fixture' }),
      remote.launch('/usr/bin/python3', [FIXTURE, '--rows', '20', '--freeze-seconds', String(FREEZE_S)], { waitForWindow: 'Overseer Fixture' }),
    ]);
    sshd = await startPrivateSshd();
    localHelper = spawnHelper(local.env);
    localBefore = await localState();
  });

  after(async () => {
    for (const t of targets) await t.close();
    await localHelper?.close();
    await sshd?.stop();
    await Promise.all([local?.stop(), remote?.stop()]);
    for (const d of [...dataDirs, ...(bundle !== undefined ? [dirname(bundle)] : [])]) await rm(d, { recursive: true, force: true });
  });

  it('tests the connection: reachable, authenticated, Linux on X11, the helper installed under its hash (0600 in a 0700 folder)', async () => {
    const dataDir = newDataDir();
    const t = target({}, dataDir);
    const tested = await t.test();
    assert.equal(tested.reachable, true);
    assert.equal(tested.authenticated, true);
    assert.equal(tested.platform, 'linux');
    assert.equal(tested.session_type, 'x11');
    assert.equal(tested.backend, 'atspi');
    assert.match(tested.helper_version ?? '', /^\d+\.\d+\.\d+$/);
    assert.ok((tested.capabilities ?? []).length > 0);
    console.log(`[ssh test] round trip of a call through ssh: ${tested.round_trip_ms} ms`);
    const cache = join(sshd.remoteCache, 'overseer');
    const files = spawnSync('ls', [cache], { encoding: 'utf8' }).stdout.trim().split('\n');
    assert.equal(files.length, 1, files.join(' '));
    assert.match(files[0] ?? '', /^helper-[0-9a-f]{16}\.mjs$/);
    assert.equal(statSync(cache).mode & 0o777, 0o700);
    const installed = join(cache, files[0] ?? '');
    assert.equal(statSync(installed).mode & 0o777, 0o600);
    // Installed once: a second preparation finds it by its hash and copies nothing.
    const mtime = statSync(installed).mtimeMs;
    await t.prepare?.();
    assert.equal(statSync(installed).mtimeMs, mtime);
    // One master served all of it, its socket in a folder only this user enters; close ends it.
    const control = join(dataDir, 'ssh');
    assert.equal(statSync(control).mode & 0o777, 0o700);
    assert.equal(readdirSync(control).length, 1);
    await t.close();
    assert.deepEqual(readdirSync(control), []);
  });

  it('refuses a login with a key the remote does not accept, and never prompts', async () => {
    const config = join(sshd.dir, 'wrong_key_config');
    writeFileSync(config, readFileSync(sshd.clientConfig, 'utf8').replace(/IdentityFile .*/, `IdentityFile ${join(sshd.dir, 'other_host_key')}`));
    const data = await unavailable(target({ ssh_config: config }).test(), 'unauthenticated');
    assert.match(String(data['hint']), /ssh-agent/);
    assert.match(String(data['detail']), /Permission denied/);
  });

  it('runs the helper there: it lists and reads the remote fixture, never the local one', async () => {
    const t = target();
    await t.prepare?.();
    const helper = t.spawnHelper({});
    try {
      const list = await helper.call('window_list', {});
      const titles = list.windows.map((w) => w.title);
      assert.ok(titles.includes('Overseer Fixture'), titles.join(', '));
      assert.ok(!titles.includes('Local Fixture'), titles.join(', '));
      // A screenshot there is encoded on a worker thread that runs the one installed file (no encodeWorker.mjs beside it).
      const shot = await helper.call('screen_capture', { format: 'jpeg', quality: 80 }, { timeoutMs: 60_000 });
      assert.equal(shot.image.mime, 'image/jpeg');
      assert.deepEqual([shot.region.width, shot.region.height], [1280, 800]);
      assert.match(helper.stderr(), /encoder worker ready/);
      assert.doesNotMatch(helper.stderr(), /encoding on the helper's own thread/);
    } finally {
      await helper.close();
    }
  });

  it('answers helper_missing when the remote has no such node, or its cached helper was removed (prepare installs it again)', async () => {
    const data = await unavailable(target({ node: '/opt/no-such-node/bin/node' }).test(), 'helper_missing');
    assert.match(String(data['hint']), /Node\.js 20/);
    const t = target();
    await t.prepare?.();
    await rm(join(sshd.remoteCache, 'overseer'), { recursive: true, force: true });
    await unavailable(t.spawnHelper({}).call('hello', {}), 'helper_missing');
    await t.prepare?.();
    const helper = t.spawnHelper({});
    try {
      assert.equal((await helper.call('hello', {})).backend, 'atspi');
    } finally {
      await helper.close();
    }
  });

  it('finds the session itself from the display alone (the bus from the desktop processes), and refuses to guess between two desktops', async () => {
    const found = await target({ bus: undefined }).test();
    assert.equal(found.session_type, 'x11');
    // This user runs two desktops here (the local one and the remote one): the helper names them and picks neither.
    const data = await unavailable(target({ bus: undefined, display: undefined }).test(), 'no_session');
    assert.match(String(data['detail']), /more than one graphical session/);
    assert.match(String(data['detail']), new RegExp(`DISPLAY=${remote.display}`));
    assert.equal(data['connection'], 'lab');
    assert.ok(Array.isArray(data['tried']));
  });

  it('remote_exec: exit codes (255 included), bounded stdout and stderr, a timeout that ends the command', async () => {
    const t = target();
    const ok = await t.exec('echo hello; echo warn >&2', { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT });
    assert.deepEqual([ok.exit_code, ok.stdout, ok.stderr, ok.stdout_truncated, ok.stderr_truncated], [0, 'hello\n', 'warn\n', false, false]);
    const three = await t.exec('exit 3', { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT });
    assert.equal(three.exit_code, 3);
    // The command's own 255 is its answer, not a connection failure.
    const own255 = await t.exec('echo before; exit 255', { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT });
    assert.deepEqual([own255.exit_code, own255.stdout], [255, 'before\n']);
    const big = await t.exec("head -c 200000 /dev/zero | tr '\\0' o; head -c 100000 /dev/zero | tr '\\0' e >&2", {
      timeoutMs: 20_000,
      maxBytes: MAX_REMOTE_OUTPUT,
    });
    assert.equal(big.exit_code, 0);
    assert.equal(big.stdout.length, MAX_REMOTE_OUTPUT);
    assert.equal(big.stderr.length, MAX_REMOTE_OUTPUT);
    assert.ok(big.stdout_truncated && big.stderr_truncated);
    assert.match(big.stderr, /^e+$/, 'the exit marker never shows in stderr');
    const slow = await t.exec('echo started; sleep 47.25; echo never', { timeoutMs: 1000, maxBytes: MAX_REMOTE_OUTPUT });
    assert.equal(slow.timed_out, true);
    assert.equal(slow.exit_code, null);
    assert.equal(slow.stdout, 'started\n');
    console.log(`[ssh test] remote_exec with a 1 s timeout ended after ${slow.duration_ms} ms`);
    const left = await t.exec("ps -eo args | grep -c '^sleep 47.25' || true", { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT });
    assert.equal(left.stdout.trim(), '0', 'the timed-out command was ended on the remote');
  });

  it('remote_exec: its caller leaving or the emergency stop ends the whole command on the remote, children included', async () => {
    const t = target();
    const dir = mkdtempSync(join(tmpdir(), 'overseer-exec-stop-'));
    try {
      const loop = (file: string, tag: string): string => `sleep ${tag} & while :; do echo x >> ${file}; sleep 0.1; done`;
      const stillRunning = async (file: string, tag: string): Promise<{ grew: boolean; sleeps: string }> => {
        const size = statSync(file).size;
        await new Promise((r) => setTimeout(r, 1200));
        const ps = await t.exec(`ps -eo args | grep -c '^sleep ${tag}' || true`, { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT });
        return { grew: statSync(file).size > size, sleeps: ps.stdout.trim() };
      };

      const left = new AbortController();
      const file1 = join(dir, 'left');
      const running = t.exec(loop(file1, '61.25'), { timeoutMs: 60_000, maxBytes: MAX_REMOTE_OUTPUT, signal: left.signal });
      await new Promise((r) => setTimeout(r, 1000));
      left.abort(new Error('the agent left'));
      const out = await running;
      assert.equal(out.stopped, 'ended');
      assert.equal(out.exit_code, null);
      assert.doesNotMatch(out.stderr, /overseer-exit/, 'the process group line is never shown');
      assert.deepEqual(await stillRunning(file1, '61.25'), { grew: false, sleeps: '0' }, 'the loop and its child were ended there');

      const file2 = join(dir, 'braked');
      const braked = t.exec(loop(file2, '61.5'), { timeoutMs: 60_000, maxBytes: MAX_REMOTE_OUTPUT });
      await new Promise((r) => setTimeout(r, 1000));
      const t0 = performance.now();
      await t.endCommands?.('the emergency stop');
      assert.equal((await braked).stopped, 'ended');
      console.log(`[ssh test] endCommands ended a running remote_exec in ${(performance.now() - t0).toFixed(0)} ms`);
      assert.deepEqual(await stillRunning(file2, '61.5'), { grew: false, sleeps: '0' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('never lets two connections to one login share a master: a key held to a forced command stays held to it', async () => {
    const shared = newDataDir();
    const free = target({}, shared);
    const forced = target({ host: sshd.forcedAlias }, shared);
    assert.equal((await free.exec('echo free', { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT })).stdout, 'free\n');
    const held = await forced.exec('echo escaped', { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT });
    assert.equal(held.stdout.trim(), SSHD_FORCED_OUTPUT, "the forced key ran its forced command, not the free login's master");
    assert.equal((await free.exec('echo still-free', { timeoutMs: 10_000, maxBytes: MAX_REMOTE_OUTPUT })).stdout, 'still-free\n');
    await Promise.all([free.close(), forced.close()]);
  });

  it('refuses an unknown host key naming its fingerprint and the command that accepts it, which works', async () => {
    sshd.forgetHostKey();
    try {
      const data = await unavailable(target().test(), 'host_key_unknown');
      assert.equal(data['fingerprint'], sshd.fingerprint);
      assert.match(String(data['hint']), new RegExp(sshd.fingerprint.replace(/[+/]/g, '\\$&')));
      const accept = String(data['accept_command']);
      assert.match(accept, /StrictHostKeyChecking=accept-new/);
      assert.ok(String(data['hint']).includes(accept));
      // Nothing was installed or run: the helper never started there. The person runs the command they were given:
      const run = spawnSync('sh', ['-c', accept], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const tested = await target().test();
      assert.equal(tested.authenticated, true);
    } finally {
      sshd.trustHostKey();
    }
  });

  it('refuses a changed host key, naming the new fingerprint and how to remove the old key', async () => {
    sshd.changeHostKey();
    try {
      const data = await unavailable(target().test(), 'host_key_changed');
      assert.equal(data['fingerprint'], sshd.fingerprint);
      assert.match(String(data['remove_command']), /ssh-keygen .*-R/);
      // remote_exec and the helper are refused the same way: nothing runs there.
      await unavailable(target().exec('touch /tmp/never', { timeoutMs: 5000, maxBytes: 1024 }), 'host_key_changed');
      const helper = target().spawnHelper({});
      await unavailable(helper.call('window_list', {}), 'host_key_changed');
    } finally {
      sshd.trustHostKey();
    }
  });

  it('fails closed when sshd dies mid-call: the read and the act in flight are connection_unavailable (the act outcome unknown), and so is what follows', async () => {
    const t = target();
    await t.prepare?.();
    const helper = t.spawnHelper({});
    const list = await helper.call('window_list', {});
    const window = list.windows.find((w) => w.title === 'Overseer Fixture')?.window;
    assert.ok(window);
    // The Freeze button blocks the fixture once clicked: the act reads back from it, and the read waits
    // for it; both are in flight when the machine goes away, within the second before the helper would
    // leave the silent fixture alone (docs/compatibility.md#an-application-that-stops-answering). Each is
    // checked as it is made, so whichever fails first is never an unhandled rejection while another is awaited.
    const act = unavailable(helper.call('element_act', { window, selector: { automation_id: 'freeze' }, action: 'invoke' }), 'down');
    await new Promise((r) => setTimeout(r, 150));
    const read = unavailable(helper.call('window_read', { window, timeout_ms: 15_000 }), 'down');
    const exec = unavailable(t.exec('sleep 30', { timeoutMs: 60_000, maxBytes: 1024 }), 'down');
    await new Promise((r) => setTimeout(r, 350));
    sshd.kill();
    const [acted, , execed] = await Promise.all([act, read, exec]);
    assert.equal(acted['outcome'], 'unknown');
    assert.equal(execed['outcome'], 'unknown');
    await unavailable(t.test(), 'down');
    await unavailable(t.spawnHelper({}).call('hello', {}), 'down');
  });

  it('left the local desktop untouched throughout', async () => {
    assert.equal(await localState(), localBefore);
  });
});
