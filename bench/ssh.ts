// `npm run bench` (ssh connections): window_read and a screenshot through an ssh connection against
// the local helper on the SAME private desktop, in the same run. The ssh side is the real path: a
// private sshd on 127.0.0.1 (main/testing/privateSshd.ts), the system ssh client with its shared
// master, the remote helper bundle installed under its hash. The goal: through ssh at
// most 1.3× local plus one round trip (an empty hello through the same channel). Rounds interleave
// local and ssh so load hits both alike. Prints figures; asserts nothing timed. `npx tsx bench/ssh.ts`
// runs it alone; results also go to .artifacts/bench-ssh.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { sshTarget } from '../main/core/connections/sshTarget.js';
import { spawnHelper, type HelperProcess } from '../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { startPrivateSshd } from '../main/testing/privateSshd.js';
import { buildRemoteHelperForTest } from '../main/testing/remoteHelperBuild.js';

const ROUNDS = 21;
const WARMUP = 3;
const GOAL_RATIO = 1.3;

const log = (line: string): void => {
  process.stderr.write(`[bench-ssh] ${line}\n`);
};
const pct = (xs: readonly number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? Number.NaN;

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const bundle = buildRemoteHelperForTest();
  const dataDir = mkdtempSync(join(tmpdir(), 'overseer-bench-ssh-'));
  const desktop = await startPrivateDesktop({ width: 1920, height: 1080 });
  const sshd = await startPrivateSshd();
  const target = sshTarget(
    {
      name: 'bench',
      kind: 'ssh',
      enabled: true,
      host: sshd.alias,
      ssh_config: sshd.clientConfig,
      display: desktop.display,
      ...(desktop.env['DBUS_SESSION_BUS_ADDRESS'] !== undefined ? { bus: desktop.env['DBUS_SESSION_BUS_ADDRESS'] } : {}),
    },
    { dataDir, log, bundle },
  );
  let local: HelperProcess | undefined;
  let remote: HelperProcess | undefined;
  try {
    await desktop.launch('/usr/bin/python3', [join(REPO_ROOT, 'desktop/apps/fixtureApp.py'), '--rows', '200'], { waitForWindow: 'Overseer Fixture' });
    await target.prepare?.();
    local = spawnHelper(desktop.env);
    remote = target.spawnHelper({});
    const sides = { local, ssh: remote } as const;
    const windowOf = async (h: HelperProcess): Promise<string> => {
      const list = await h.call('window_list', {});
      const w = list.windows.find((x) => x.title === 'Overseer Fixture');
      if (w === undefined) throw new Error('the fixture is not listed');
      return w.window;
    };
    const windows = { local: await windowOf(local), ssh: await windowOf(remote) };
    const figures: Record<string, Record<'local' | 'ssh', number[]>> = {
      hello: { local: [], ssh: [] },
      window_read: { local: [], ssh: [] },
      screenshot: { local: [], ssh: [] },
    };
    let readBytes = 0;
    let shotBytes = 0;
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const side of round % 2 === 0 ? (['local', 'ssh'] as const) : (['ssh', 'local'] as const)) {
        const h = sides[side];
        const hello = await timed(() => h.call('hello', {}));
        const read = await timed(async () => {
          const r = await h.call('window_read', { window: windows[side] });
          readBytes = JSON.stringify(r).length;
        });
        const shot = await timed(async () => {
          const r = await h.call('screen_capture', { keep: false }, { timeoutMs: 60_000 });
          shotBytes = r.bytes;
        });
        if (round < WARMUP) continue;
        figures['hello']?.[side].push(hello);
        figures['window_read']?.[side].push(read);
        figures['screenshot']?.[side].push(shot);
      }
    }
    const rtt = pct(figures['hello']?.ssh ?? [], 0.5);
    const rows: Record<string, unknown> = {};
    log(
      `${ROUNDS} rounds (after ${WARMUP} warm-up), interleaved; one desktop, 1920x1080; window_read answer ${(readBytes / 1024).toFixed(1)} KiB, screenshot PNG ${(shotBytes / 1024).toFixed(0)} KiB`,
    );
    log(`round trip through ssh (hello): p50 ${rtt.toFixed(2)} ms (local hello p50 ${pct(figures['hello']?.local ?? [], 0.5).toFixed(2)} ms)`);
    for (const name of ['window_read', 'screenshot'] as const) {
      const f = figures[name];
      if (f === undefined) continue;
      const l50 = pct(f.local, 0.5);
      const s50 = pct(f.ssh, 0.5);
      const goal = GOAL_RATIO * l50 + rtt;
      rows[name] = {
        local_p50_ms: l50,
        ssh_p50_ms: s50,
        local_p95_ms: pct(f.local, 0.95),
        ssh_p95_ms: pct(f.ssh, 0.95),
        ratio: s50 / l50,
        goal_ms: goal,
        within_goal: s50 <= goal,
      };
      log(
        `${name}: local p50 ${l50.toFixed(1)} ms, ssh p50 ${s50.toFixed(1)} ms (${(s50 / l50).toFixed(2)}×; goal ≤ ${GOAL_RATIO}× + one round trip = ${goal.toFixed(1)} ms: ${s50 <= goal ? 'met' : 'NOT met'}); p95 ${pct(f.local, 0.95).toFixed(1)} / ${pct(f.ssh, 0.95).toFixed(1)} ms`,
      );
    }
    mkdirSync(join(REPO_ROOT, '.artifacts'), { recursive: true });
    writeFileSync(join(REPO_ROOT, '.artifacts', 'bench-ssh.json'), `${JSON.stringify({ rounds: ROUNDS, round_trip_ms: rtt, ...rows }, null, 2)}\n`);
  } finally {
    await local?.close();
    await remote?.close();
    await target.close();
    await sshd.stop();
    await desktop.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dirname(bundle), { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
