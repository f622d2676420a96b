// The osworld_http transport end to end: the project's OSWorld-compatible server drives a private
// "VM" desktop (the fixture and the canvas); the connection's helper runs here with this machine's
// own private desktop in its environment, which must stay untouched throughout. remote_exec's exit
// codes, bounded output and timeout; the read-only tree with rects and element_act refused; clicks
// that land in the VM; and failing closed: the server answering 500, hanging (outcome unknown, never
// retried: the server counts what it saw), and stopping in the middle of a call.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { constants, crc32, createDeflate } from 'node:zlib';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { OverseerError, type OsworldConnectionConfig } from '../../../protocol/index.js';
import { startOsworldServer, type OsworldServer } from '../../testing/osworldServer.js';
import { decodePng, rgbAt } from '../../testing/pngDecode.js';
import { until } from '../../testing/until.js';
import type { HelperProcess } from '../helperLink/helperProcess.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { osworldTarget } from './osworldTarget.js';
import type { ConnectionTarget } from './target.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
/** The canvas in the VM, right of the fixture (which the test desktop places at 0,0, 1000 px wide). */
const VM_CANVAS = { x: 1020, y: 120 };

const isCode = (code: string, reason?: string) => (e: unknown) =>
  e instanceof OverseerError && e.code === code && (reason === undefined || e.info.data?.['reason'] === reason);

/** The canvas's logged input lines (press, release, scroll, key) on a desktop. */
function canvasInput(desktop: PrivateDesktop): Record<string, unknown>[] {
  const logs = path.join(desktop.dir, 'logs');
  const file = readdirSync(logs).find((f) => f.includes('python3') && f.endsWith('.out.log') && readFileSync(path.join(logs, f), 'utf8').includes('"ready"'));
  if (file === undefined) return [];
  return readFileSync(path.join(logs, file), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{') && l.endsWith('}'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e['ev'] !== 'ready');
}

/** A PNG chunk with its CRC. */
function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/**
 * A PNG bomb: a valid RGB PNG of width × height black pixels whose image data is one zlib stream of
 * every row's zeros, deflated run by run so a 16384 × 16384 image (805 MB inflated) is under 1 MB.
 * The zeros are fed a row block at a time: the test never holds them whole either.
 */
async function pngBomb(width: number, height: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const deflate = createDeflate({ level: 9, strategy: constants.Z_RLE });
  const out: Buffer[] = [];
  deflate.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve, reject) => deflate.once('end', resolve).once('error', reject));
  const rows = Buffer.alloc(256 * (width * 3 + 1));
  for (let y = 0; y < height; y += 256) {
    const n = Math.min(256, height - y) * (width * 3 + 1);
    if (!deflate.write(rows.subarray(0, n))) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  const idat = Buffer.concat(out);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** The most memory a process has held (its peak resident set), in MiB. */
function peakRssMib(pid: number | undefined): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

describe('osworld_http connection through an OSWorld-compatible server', () => {
  let local: PrivateDesktop;
  let vm: PrivateDesktop;
  let server: OsworldServer;
  let target: ConnectionTarget;
  let helper: HelperProcess;
  const logLines: string[] = [];

  before(async () => {
    [local, vm] = await Promise.all([startPrivateDesktop({ width: 1024, height: 768 }), startPrivateDesktop({ width: 1440, height: 900 })]);
    await local.launch('/usr/bin/python3', [CANVAS, '--x', '100', '--y', '100'], { waitForWindow: 'Overseer Canvas' });
    await vm.launch('/usr/bin/python3', [CANVAS, '--x', String(VM_CANVAS.x), '--y', String(VM_CANVAS.y)], { waitForWindow: 'Overseer Canvas' });
    await vm.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
    server = await startOsworldServer(vm);
    const config: OsworldConnectionConfig = { name: 'vm1', kind: 'osworld_http', enabled: true, url: server.url, timeout_ms: 5000 };
    target = osworldTarget(config, { log: (l) => logLines.push(l) });
    // The helper gets this machine's desktop in its environment: nothing it does may land there.
    helper = target.spawnHelper({ ...local.env, OVERSEER_HELPER_SELF_CHECK: '1' });
  });

  after(async () => {
    await helper?.close();
    await target?.close();
    await server?.stop();
    await Promise.all([local?.stop(), vm?.stop()]);
  });

  it('tests reachable, names the platform and session, and where it goes', async (t) => {
    const test = await target.test();
    assert.deepEqual(
      [test.name, test.reachable, test.authenticated, test.platform, test.session_type, test.backend],
      ['vm1', true, true, 'linux', 'x11', 'osworld'],
    );
    assert.equal(target.where, server.url);
    t.diagnostic(`# test round trip ${test.round_trip_ms} ms`);
  });

  it('runs remote_exec in the VM: exit code, both outputs, bounded with truncated flags', async () => {
    const r = await target.exec('echo "$DISPLAY"; echo oops >&2; exit 3', { timeoutMs: 10_000, maxBytes: 1024 });
    assert.deepEqual([r.exit_code, r.stdout, r.stderr, r.stdout_truncated, r.stderr_truncated], [3, `${vm.display}\n`, 'oops\n', false, false]);
    const big = await target.exec('head -c 5000 /dev/zero | tr "\\0" a; printf "ж%.0s" $(seq 1 600) >&2', { timeoutMs: 10_000, maxBytes: 1001 });
    assert.deepEqual([big.exit_code, big.stdout.length, big.stdout_truncated, big.stderr_truncated], [0, 1001, true, true]);
    assert.equal(big.stderr, 'ж'.repeat(500), 'cut on a character boundary (1001 bytes hold 500 two-byte characters)');
  });

  it('ends a remote_exec past its timeout: timed_out, no exit code, sent once', async () => {
    const before = server.count('POST /execute');
    const r = await target.exec('sleep 5', { timeoutMs: 500, maxBytes: 1024 });
    assert.deepEqual([r.timed_out, r.exit_code], [true, null]);
    await sleep(1000);
    assert.equal(server.count('POST /execute'), before + 1, 'never sent again');
  });

  it('lists the VM windows without pids and reads the fixture as a tree with rects', async () => {
    const list = await helper.call('window_list', {});
    const fixture = list.windows.find((w) => w.title === 'Overseer Fixture');
    assert.ok(fixture !== undefined, JSON.stringify(list.windows) + helper.stderr());
    assert.match(fixture.window, /^osworld:.+~\d+\/\d+$/);
    assert.equal(fixture.pid, 0, 'the VM names no processes');
    assert.ok(list.windows.some((w) => w.title === 'Overseer Canvas'));
    const read = await helper.call('window_read', { window: fixture.window });
    const text = JSON.stringify(read);
    assert.match(text, /"Counter"/);
    const found = await helper.call('element_find', { window: fixture.window, selector: { role: 'button', name: 'Counter' } });
    assert.equal(found.match_count, 1);
    const counter = found.matches[0];
    assert.ok(counter?.rect !== undefined && counter.rect.w > 0 && counter.rect.h > 0, JSON.stringify(counter));
  });

  it('refuses element_act pattern_unsupported, naming the screen tier instead, and nothing happens', async () => {
    const list = await helper.call('window_list', {});
    const fixture = list.windows.find((w) => w.title === 'Overseer Fixture');
    assert.ok(fixture !== undefined);
    const before = server.count('POST /execute');
    const act = await helper.call('element_act', { window: fixture.window, selector: { role: 'button', name: 'Counter' }, action: 'invoke' });
    assert.equal(act.refusal?.code, 'pattern_unsupported', JSON.stringify(act));
    assert.equal(act.refusal.data?.['reason'], 'read_only_connection');
    assert.match(String(act.refusal.data?.['instead']), /screenshot/);
    assert.equal(server.count('POST /execute'), before, 'nothing was sent to the VM');
    const labels = await helper.call('element_find', { window: fixture.window, selector: { name_contains: 'Clicks:' } });
    assert.equal(labels.matches[0]?.name, 'Clicks: 0');
  });

  it('captures the VM screen and clicks land on the VM canvas, never on this desktop', async () => {
    const shot = await helper.call('screen_capture', { format: 'png', max_width: 1440, max_height: 900 });
    const png = decodePng(Buffer.from(shot.image.data, 'base64'));
    assert.deepEqual([png.width, png.height], [1440, 900]);
    assert.deepEqual(rgbAt(png, VM_CANVAS.x + 50, VM_CANVAS.y + 50), [255, 0, 0]);
    const at = { x: VM_CANVAS.x + 123, y: VM_CANVAS.y + 45 };
    const r = await helper.call('screen_input', { op: 'click', point: at, button: 'left', count: 1 });
    assert.equal(r.dispatched, true);
    const events = await until(
      () => {
        const evs = canvasInput(vm);
        return evs.some((e) => e['ev'] === 'release') ? evs : undefined;
      },
      'the VM canvas click',
      10_000,
    );
    assert.deepEqual(
      events.map((e) => [e['ev'], e['x'], e['y']]),
      [
        ['press', at.x, at.y],
        ['release', at.x, at.y],
      ],
    );
    assert.deepEqual(canvasInput(local), [], 'this desktop saw nothing');
  });

  it('binds input to its screenshot as locally: the VM screen changed, stale_screen, nothing sent', async () => {
    const shot = await helper.call('screen_capture', { keep: true });
    const at = { x: VM_CANVAS.x + 200, y: VM_CANVAS.y + 60 };
    const first = await helper.call('screen_input', { op: 'click', point: at, button: 'left', count: 1, bound: shot.capture });
    assert.equal(first.dispatched, true);
    await until(() => (canvasInput(vm).filter((e) => e['ev'] === 'release').length >= 2 ? true : undefined), 'the bound click', 10_000);
    const seen = canvasInput(vm).length;
    // The VM's screen changes under the screenshot: its canvas moves away (a command run in the VM, as an agent's remote_exec would).
    const moved = await target.exec(`xdotool search --name 'Overseer Canvas' windowmove ${VM_CANVAS.x} ${VM_CANVAS.y + 400}`, {
      timeoutMs: 10_000,
      maxBytes: 1024,
    });
    assert.equal(moved.exit_code, 0, moved.stderr);
    const sent = server.count('POST /execute');
    await assert.rejects(helper.call('screen_input', { op: 'click', point: at, button: 'left', count: 1, bound: shot.capture }), isCode('stale_screen'));
    assert.equal(server.count('POST /execute'), sent, 'the refused click was never sent');
    await target.exec(`xdotool search --name 'Overseer Canvas' windowmove ${VM_CANVAS.x} ${VM_CANVAS.y}`, { timeoutMs: 10_000, maxBytes: 1024 });
    await sleep(300);
    assert.equal(canvasInput(vm).length, seen);
    assert.deepEqual(canvasInput(local), []);
  });

  it('refuses a PNG bomb from the VM by its header, fast and small, and the helper answers on', async (t) => {
    const bomb = await pngBomb(16384, 16384);
    assert.ok(bomb.length < 1024 * 1024, `the bomb is ${bomb.length} bytes`);
    // One within the pixel budget but not the VM screen's size (1440x900): refused by size, never inflated.
    const mislabelled = await pngBomb(4096, 4096);
    server.serveScreenshot(bomb);
    try {
      const started = performance.now();
      await assert.rejects(helper.call('screen_capture', { format: 'png' }), (e: unknown) => {
        assert.ok(isCode('capture_unavailable', 'bad_answer')(e), String(e));
        assert.match((e as OverseerError).message, /16384x16384 pixels is past the budget/);
        assert.equal((e as OverseerError).info.data?.['connection'], 'vm1');
        return true;
      });
      const ms = performance.now() - started;
      server.serveScreenshot(mislabelled);
      await assert.rejects(helper.call('screen_capture', { format: 'png' }), (e: unknown) => {
        assert.ok(isCode('capture_unavailable', 'size_mismatch')(e), String(e));
        assert.match((e as OverseerError).message, /4096x4096 but the screen is 1440x900/);
        return true;
      });
      t.diagnostic(`# bomb refused in ${Math.round(ms)} ms; helper peak RSS ${Math.round(peakRssMib(helper.child.pid))} MiB`);
      assert.ok(ms < 2000, `refused in ${Math.round(ms)} ms`);
      assert.ok(peakRssMib(helper.child.pid) < 400, 'the helper never held the inflated image');
    } finally {
      server.serveScreenshot(undefined);
    }
    const shot = await helper.call('screen_capture', { format: 'png', max_width: 1440, max_height: 900 });
    const png = decodePng(Buffer.from(shot.image.data, 'base64'));
    assert.deepEqual([png.width, png.height], [1440, 900]);
  });

  it('fails closed on a 500: input_unavailable naming the server error, nothing done', async () => {
    const seen = canvasInput(vm).length;
    server.setMode('error500', 'POST /execute');
    try {
      await assert.rejects(
        helper.call('screen_input', { op: 'click', point: { x: VM_CANVAS.x + 10, y: VM_CANVAS.y + 10 }, button: 'left', count: 1 }),
        isCode('input_unavailable', 'server_error'),
      );
    } finally {
      server.setMode('normal');
    }
    await sleep(300);
    assert.equal(canvasInput(vm).length, seen);
    assert.deepEqual(canvasInput(local), []);
  });

  it('fails closed on a hanging server: connection_unavailable, outcome unknown, never retried', async () => {
    const before = server.count('POST /execute');
    server.setMode('hang', 'POST /execute');
    try {
      await assert.rejects(
        helper.call('screen_input', { op: 'click', point: { x: VM_CANVAS.x + 11, y: VM_CANVAS.y + 11 }, button: 'left', count: 1 }, { timeoutMs: 30_000 }),
        (e: unknown) => {
          assert.ok(isCode('connection_unavailable', 'timeout')(e), String(e));
          assert.equal((e as OverseerError).info.data?.['outcome'], 'unknown');
          assert.equal((e as OverseerError).info.data?.['connection'], 'vm1');
          return true;
        },
      );
      await sleep(1500);
      assert.equal(server.count('POST /execute'), before + 1, 'the timed-out input was sent once, never again');
    } finally {
      server.setMode('normal');
    }
    assert.deepEqual(canvasInput(local), [], 'this desktop saw nothing');
  });

  it('fails closed when the server stops in the middle of a call, and stays closed', async () => {
    const seen = canvasInput(vm).length;
    server.setMode('stop_mid_call', 'POST /execute');
    await assert.rejects(
      helper.call('screen_input', { op: 'click', point: { x: VM_CANVAS.x + 12, y: VM_CANVAS.y + 12 }, button: 'left', count: 1 }),
      (e: unknown) => {
        assert.ok(isCode('connection_unavailable', 'connection_lost')(e), String(e));
        assert.equal((e as OverseerError).info.data?.['outcome'], 'unknown');
        return true;
      },
    );
    await server.stopped;
    await assert.rejects(helper.call('window_list', {}), isCode('connection_unavailable', 'down'));
    await assert.rejects(helper.call('screen_capture', {}), isCode('connection_unavailable', 'down'));
    await assert.rejects(target.test(), isCode('connection_unavailable', 'down'));
    await assert.rejects(target.exec('true', { timeoutMs: 1000, maxBytes: 10 }), isCode('connection_unavailable', 'down'));
    assert.equal(canvasInput(vm).length, seen, 'the VM did nothing: the server stopped before running the command');
    assert.deepEqual(canvasInput(local), [], 'this desktop saw nothing, then or since');
  });
});
