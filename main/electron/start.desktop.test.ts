import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startPrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../core/runtime/paths.js';

describe('npm start', () => {
  it('without the Electron binary says so in one line and serves the UI in browser mode', async () => {
    const desktop = await startPrivateDesktop();
    const dir = await mkdtemp(join(tmpdir(), 'overseer-start-'));
    const child = spawn('npm', ['start', '--silent', '--', '--port', '0', '--data-dir', dir, '--token', 'start-token-0123456789'], {
      cwd: REPO_ROOT,
      env: desktop.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    try {
      for (let i = 0; i < 300 && !out.includes('MCP: '); i++) await new Promise((r) => setTimeout(r, 100));
      const said = err.split('\n').filter((l) => l.startsWith('overseer: '));
      assert.equal(said.length, 1, err);
      assert.match(said[0] ?? '', /Electron's binary is not installed.*browser mode/);
      const ui = /Overseer UI: (\S+)/.exec(out)?.[1];
      assert.ok(ui, out + err);
      const page = await fetch(ui);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<div id="root">/, 'the built UI is served');
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await rm(dir, { recursive: true, force: true });
      await desktop.stop();
    }
  });
});
