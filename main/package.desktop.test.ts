import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startPrivateDesktop, type PrivateDesktop } from '../desktop/privateDesktop.js';
import { REPO_ROOT } from './core/runtime/paths.js';
import { activateTiers, toolJson } from './testing/serveHarness.js';

const run = promisify(execFile);
const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

/**
 * The product as a user installs it: `npm pack` of this repository, `npm install -g` of the tarball
 * into a fresh prefix, then the installed `overseer` command run from another folder.
 */
describe('the packed product (npm pack, npm install -g)', () => {
  let desktop: PrivateDesktop;
  let tmp: string;
  let bin: string;
  before(async () => {
    assert.ok(existsSync(join(REPO_ROOT, 'dist', 'renderer', 'index.html')), 'the UI is built (npm ci runs npm run build)');
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    tmp = await mkdtemp(join(tmpdir(), 'overseer-pack-'));
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp, '--json'], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    await run('npm', ['install', '--global', '--prefix', join(tmp, 'prefix'), join(tmp, filename), '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: tmp,
      timeout: 240_000,
      maxBuffer: 16 << 20,
    });
    bin = join(tmp, 'prefix', 'bin', 'overseer');
  });
  after(async () => {
    await desktop?.stop();
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });

  it('ships what it runs and nothing of the tests', async () => {
    const pkg = join(tmp, 'prefix', 'lib', 'node_modules', 'overseer');
    for (const file of ['bin/overseer.mjs', 'main/cli.ts', 'helper/main.ts', 'rpc/rpcPeer.ts', 'protocol/index.ts', 'dist/renderer/index.html'])
      assert.ok(existsSync(join(pkg, file)), `${file} is installed`);
    for (const file of ['main/testing', 'helper/testing', 'main/core/supervisor.desktop.test.ts', 'bench', 'e2e/ui'])
      assert.ok(!existsSync(join(pkg, file)), `${file} is not installed`);
  });

  it('gives a working overseer command: serve and mcp from another folder list windows', async () => {
    const elsewhere = join(tmp, 'elsewhere');
    const dataDir = join(tmp, 'data');
    await run('mkdir', ['-p', elsewhere]);
    const env = { ...desktop.env, PATH: `${join(tmp, 'prefix', 'bin')}:/usr/bin:/bin`, HOME: elsewhere };
    const served = spawn(bin, ['serve', '--port', '0', '--data-dir', dataDir], { cwd: elsewhere, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    served.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    try {
      const mcpUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start:\n${err}`)), 60_000);
        served.stdout.on('data', (b: Buffer) => {
          out += b.toString('utf8');
          const url = /MCP: (\S+)/.exec(out)?.[1];
          if (url !== undefined) {
            clearTimeout(timer);
            resolve(url);
          }
        });
        served.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${err}`)));
      });
      const page = await fetch(new URL('/', mcpUrl));
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<div id="root">/, 'the installed command serves the built UI');
      const client = new Client({ name: 'installed-client', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--data-dir', dataDir], cwd: elsewhere, env, stderr: 'pipe' }));
      await activateTiers(client);
      try {
        const list = await toolJson<{ windows: { title: string }[] }>(client, 'window_list');
        assert.ok(
          list.windows.some((w) => w.title === 'Overseer Fixture'),
          JSON.stringify(list),
        );
      } finally {
        await client.close();
      }
    } finally {
      served.kill('SIGTERM');
      await new Promise((resolve) => (served.exitCode === null ? served.once('exit', resolve) : resolve(undefined)));
    }
  });
});
