import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPrivateDesktop, type PrivateDesktop } from '../desktop/privateDesktop.js';
import { isAlive, listPids, readStat } from '../desktop/procs.js';
import { packageSet } from '../desktop/systemPackages.js';

import type { Rect } from '../protocol/index.js';
import { REPO_ROOT } from './core/runtime/paths.js';
import { httpClient, removeDataDir, serve, tool, toolJson } from './testing/serveHarness.js';

/** Every package the demo desktop and the tests need: install-deps --test counts them. */
const ALL_PACKAGES = new Set(packageSet(true).map((p) => p.name)).size;

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
/**
 * Every process of a running demo, with its start time: the serve process, its children (the
 * helper), and the demo desktop's (found from its Xvfb: the lock file names it, and its marker
 * variable names the desktop's folder, which every desktop process carries).
 */
function demoProcesses(stderr: string, servePid: number): { pid: number; startTime: string; comm: string }[] {
  const display = /\[demo\] private desktop :(\d+)/.exec(stderr)?.[1];
  assert.ok(display, stderr);
  const xvfb = Number(readFileSync(`/tmp/.X${display}-lock`, 'utf8').trim());
  const marker = readFileSync(`/proc/${xvfb}/environ`, 'utf8')
    .split('\0')
    .find((e) => e.startsWith('OVERSEER_TEST_DESKTOP='));
  assert.ok(marker, 'Xvfb carries the desktop marker');
  const stats = listPids().flatMap((pid) => readStat(pid) ?? []);
  // The launcher and everything below it (npx: npm, sh, node, the helper)...
  const tree = new Set([servePid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of stats) {
      if (!tree.has(s.pid) && tree.has(s.ppid)) {
        tree.add(s.pid);
        grew = true;
      }
    }
  }
  // ...and the desktop's processes, wherever they were re-parented.
  const marked = (pid: number): boolean => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker);
    } catch {
      return false;
    }
  };
  return stats.filter((s) => tree.has(s.pid) || marked(s.pid)).map((s) => ({ pid: s.pid, startTime: s.startTime, comm: s.comm }));
}

async function waitUntil(test: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

const overseer = (args: string[], env: Record<string, string | undefined> = process.env) =>
  spawnSync(process.execPath, ['bin/overseer.mjs', ...args], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });

describe('overseer commands', () => {
  let desktop: PrivateDesktop;
  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
  });
  after(async () => {
    await desktop?.stop();
  });

  it('doctor reports a readable desktop, and explains a missing one', () => {
    const ok = overseer(['doctor'], desktop.env);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /"Overseer Fixture" \(fixtureApp\.py, pid \d+\): \d+ elements readable/);
    const env = { ...process.env };
    delete env['DISPLAY'];
    delete env['DBUS_SESSION_BUS_ADDRESS'];
    const bad = overseer(['doctor'], env);
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /FAIL no DISPLAY/);
    assert.match(bad.stdout, /no_interactive_desktop/);
  });

  it('refuses a non-loopback listener and says so', () => {
    const r = overseer(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', join(tmpdir(), 'overseer-never')], desktop.env);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /not a loopback address/);
  });

  it('mcp says clearly when no supervisor is running', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'overseer-none-'));
    try {
      const r = overseer(['mcp', '--data-dir', dir]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /no Overseer supervisor/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('journal export prints every record and verify checks them', async () => {
    const s = await serve(desktop.env);
    try {
      const agent = await httpClient(s);
      await tool(agent, 'window_list');
      await agent.close();
    } finally {
      await s.kill();
    }
    const exported = overseer(['journal', 'export', '--data-dir', s.dataDir]);
    assert.equal(exported.status, 0);
    const records = exported.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; tool?: string; hash: string });
    assert.ok(records.some((r) => r.kind === 'tool_call' && r.tool === 'window_list'));
    assert.ok(records.every((r) => /^[0-9a-f]{64}$/.test(r.hash)));
    const verified = overseer(['journal', 'verify', '--data-dir', s.dataDir]);
    assert.equal(verified.status, 0, verified.stdout);
    await removeDataDir(s.dataDir);
  });

  // How a person stops it: Ctrl-C in a terminal signals the whole foreground group; a process manager signals the one pid it started.
  const stops = [
    { launcher: 'node bin/overseer.mjs', argv: [process.execPath, 'bin/overseer.mjs'], signal: 'SIGINT', group: true },
    { launcher: 'npx overseer', argv: ['npx', 'overseer'], signal: 'SIGINT', group: true },
    { launcher: 'npx overseer', argv: ['npx', 'overseer'], signal: 'SIGTERM', group: false },
  ] as const;
  for (const how of stops) {
    it(`serve --demo (${how.launcher}) puts its apps side by side on its own desktop, keeps its data in a temp dir, and ${how.signal} to the ${how.group ? 'process group' : 'launcher alone'} stops it all with one line`, async () => {
      await demoRound(how);
    });
  }

  async function demoRound(how: (typeof stops)[number]): Promise<void> {
    // HOME points at an empty folder: the person's real ~/.local/share/overseer must stay untouched.
    const home = await mkdtemp(join(tmpdir(), 'overseer-home-'));
    const npmCache = await mkdtemp(join(tmpdir(), 'overseer-npm-'));
    const env = { ...process.env, HOME: home, XDG_DATA_HOME: undefined, npm_config_cache: npmCache, npm_config_update_notifier: 'false' };
    const [command, ...args] = how.argv;
    // Its own process group, so that a signal can reach it as a terminal's Ctrl-C does: the whole group.
    const child = spawn(command, [...args, 'serve', '--demo', '--port', '0', '--token', 'demo-token-0123456789'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let processes: ReturnType<typeof demoProcesses> = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed:\n${err}`)), 60_000);
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString('utf8');
          if (out.includes('MCP: ')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const dataDir = /\[demo\] data dir (\S+)/.exec(err)?.[1] ?? '';
      assert.ok(dataDir.startsWith(tmpdir()) || dataDir.startsWith('/tmp/'), err);
      assert.ok(existsSync(join(dataDir, 'token')), "the token is written to the demo's own data dir");
      processes = demoProcesses(err, child.pid ?? 0);
      assert.ok(
        processes.some((p) => p.comm === 'Xvfb') && processes.some((p) => p.comm === 'openbox') && processes.some((p) => p.comm === 'dbus-daemon'),
        JSON.stringify(processes),
      );

      const agent = await httpClient({ mcpUrl: /MCP: (\S+)/.exec(out)?.[1] ?? '', token: 'demo-token-0123456789' });
      const list = await toolJson<{ windows: { title: string; rect?: Rect }[] }>(agent, 'window_list');
      await agent.close();
      const wanted = ['Overseer Fixture', 'Mousepad', 'Calculator'];
      const windows = wanted.map((t) => list.windows.find((w) => w.title.includes(t)));
      const rects = windows.map((w, i) => {
        assert.ok(w?.rect, `${wanted[i] ?? ''} is listed with its rect: ${JSON.stringify(list.windows)}`);
        return { title: w.title, ...w.rect };
      });
      for (const r of rects)
        assert.ok(
          r.x >= 0 && r.y >= 0 && r.x + r.w <= 1920 && r.y + r.h <= 1080 && r.w > 100 && r.h > 100,
          `${r.title} lies on the 1920x1080 screen: ${JSON.stringify(r)}`,
        );
      for (const [i, a] of rects.entries()) {
        for (const b of rects.slice(i + 1)) {
          const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
          assert.ok(apart, `${a.title} ${JSON.stringify(a)} and ${b.title} ${JSON.stringify(b)} do not overlap`);
        }
      }

      const before = err.length;
      process.kill(how.group ? -(child.pid ?? 0) : (child.pid ?? 0), how.signal);
      const end = await exited;
      // node exits 0; npm (through its `sh -c`) ends by the signal it was sent, as a shell does on Ctrl-C.
      assert.deepEqual(end, how.argv[0] === 'npx' ? { code: null, signal: how.signal } : { code: 0, signal: null }, err);
      // The helper warms its cache in the background whenever a window comes forward, and says so; such a line may land just
      // before the signal. Every other line after the signal is the one stop line, and it is the last.
      const stopLine = '[demo] stopped: desktop, helper and data dir removed';
      await waitUntil(() => err.slice(before).includes(stopLine), 20_000);
      const said = err
        .slice(before)
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('[prefetch] '));
      assert.deepEqual(said, [stopLine], err.slice(before));
      assert.ok(err.endsWith(`${stopLine}\n`), err.slice(before));
      assert.ok(!existsSync(dataDir), "the demo's data dir is removed");
      assert.deepEqual(readdirSync(home), [], "nothing is written to the person's home");
      await waitUntil(() => processes.every((p) => !isAlive(p.pid, p.startTime)), 10_000);
      const left = processes.filter((p) => isAlive(p.pid, p.startTime));
      assert.deepEqual(left, [], 'no process of the demo is left');
    } finally {
      // After a failure: ask what is left of the group to stop, and give it time to take its desktop down.
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid ?? 0), 'SIGTERM');
      await waitUntil(() => processes.every((p) => !isAlive(p.pid, p.startTime)), 15_000);
      await rm(home, { recursive: true, force: true });
      await rm(npmCache, { recursive: true, force: true });
    }
  }

  it('on a machine without the packages, serve --demo, doctor and the test runner name them and install-deps', () => {
    // A fresh machine as dpkg sees it: a dpkg-query that knows no package (what it says for unknown names).
    const bin = mkdtempSync(join(tmpdir(), 'overseer-fresh-'));
    try {
      writeFileSync(join(bin, 'dpkg-query'), '#!/bin/sh\necho "dpkg-query: no packages found matching $3" >&2\nexit 1\n', { mode: 0o755 });
      const env = { ...desktop.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` };
      const demo = overseer(['serve', '--demo', '--port', '0'], env);
      assert.equal(demo.status, 1);
      assert.match(
        demo.stderr,
        /^overseer: serve --demo: missing system packages for the demo desktop: xvfb dbus at-spi2-core openbox .*gnome-calculator — install them with: npx overseer install-deps\n$/,
      );
      assert.doesNotMatch(demo.stderr, /\[demo\] (data dir|private desktop)/, 'nothing is started');
      const doc = overseer(['doctor'], env);
      assert.equal(doc.status, 1);
      assert.match(doc.stdout, /FAIL at-spi2-core \(the accessibility bus\) is not installed\n {5}fix: npx overseer install-deps/);
      assert.match(doc.stdout, /note serve --demo cannot run here: missing system packages for the demo desktop: xvfb /);
      const dry = overseer(['install-deps', '--test', '--dry-run'], env);
      assert.equal(dry.status, 0);
      assert.match(
        dry.stdout,
        new RegExp(
          `would install ${ALL_PACKAGES} packages for the demo desktop and the tests: xvfb .* chromium .*yad wine wine64 gcc-mingw-w64-x86-64 openssh-server gnome-shell .* libglib2.0-bin kwin-wayland xdg-desktop-portal-kde qtwayland5 plasma-workspace\\n`,
        ),
      );
      const tests = spawnSync(process.execPath, ['scripts/runTests.mjs', '--desktop'], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(tests.status, 1);
      assert.match(
        tests.stderr,
        /\[tests\] the desktop tests cannot run: missing system packages for the tests: xvfb .* — install them with: npx overseer install-deps --test/,
      );
      assert.equal(tests.stdout, '', 'no test ran');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('with the packages installed, doctor says nothing about them and install-deps has nothing to do', () => {
    const doc = overseer(['doctor'], desktop.env);
    assert.doesNotMatch(doc.stdout, /install-deps|not installed/);
    const r = overseer(['install-deps', '--test']);
    assert.equal(r.status, 0, r.stdout);
    assert.equal(r.stdout, `[install-deps] nothing to install: all ${ALL_PACKAGES} packages of the demo desktop and the tests are installed\n`);
  });
});
