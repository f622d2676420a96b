import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPrivateDesktop, type PrivateDesktop } from '../desktop/privateDesktop.js';
import { REPO_ROOT } from './core/paths.js';
import { httpClient, removeDataDir, serve, tool } from './testing/serveHarness.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const overseer = (args: string[], env: Record<string, string | undefined> = process.env) => spawnSync(process.execPath, ['bin/overseer.mjs', ...args], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });

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
    const records = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; tool?: string; hash: string });
    assert.ok(records.some((r) => r.kind === 'tool_call' && r.tool === 'window_list'));
    assert.ok(records.every((r) => /^[0-9a-f]{64}$/.test(r.hash)));
    const verified = overseer(['journal', 'verify', '--data-dir', s.dataDir]);
    assert.equal(verified.status, 0, verified.stdout);
    await removeDataDir(s.dataDir);
  });

  it('serve --demo brings its own desktop with sample applications and takes it down again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'overseer-demo-'));
    const child = spawn(process.execPath, ['bin/overseer.mjs', 'serve', '--demo', '--port', '0', '--data-dir', dir, '--token', 'demo-token-0123456789'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
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
      const display = /\[demo\] private desktop (:\d+)/.exec(err)?.[1];
      assert.ok(display, err);
      const agent = await httpClient({ mcpUrl: /MCP: (\S+)/.exec(out)?.[1] ?? '', token: 'demo-token-0123456789' });
      const list = await tool(agent, 'window_list');
      assert.match(list.text, /Overseer Fixture/);
      await agent.close();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      const leftovers = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes(`Xvfb ${display} `));
      assert.deepEqual(leftovers, [], 'the demo desktop is stopped with the supervisor');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
