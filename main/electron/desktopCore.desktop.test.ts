import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { PendingApproval, Receipt, UiSnapshot, WindowListAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../core/runtime/paths.js';
import { activateTiers, httpClient, removeDataDir, tool, toolJson } from '../testing/serveHarness.js';
import { startDesktopCore, type DesktopCore } from './desktopCore.js';
import { desktopLayout } from './desktopLayout.js';

// The desktop app's supervisor without Electron: the bundled helper started the way the app
// starts it (its own Node with ELECTRON_RUN_AS_NODE), and an agent launched with exactly the
// stdio snippet the Settings view shows for the installed app.
describe('the desktop app core with its bundled helper and CLI', () => {
  let desktop: PrivateDesktop;
  let dataDir: string;
  let core: DesktopCore;
  let agent: Client;
  const layout = desktopLayout({ appPath: REPO_ROOT.replace(/\/$/, ''), packaged: false, execPath: process.execPath });
  const log: string[] = [];

  before(async () => {
    for (const bundle of [layout.helper.args[0] as string, layout.cli, layout.preload, join(layout.rendererRoot, 'index.html')])
      assert.ok(existsSync(bundle), `${bundle} is built by npm run build (npm ci runs it)`);
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    dataDir = await mkdtemp(join(tmpdir(), 'overseer-desktop-'));
    core = await startDesktopCore({ layout, dataDir, port: 0, execPath: process.execPath, env: desktop.env, log: (l) => log.push(l) });
  });

  after(async () => {
    await agent?.close().catch(() => {});
    await core?.stop();
    await desktop?.stop();
    if (dataDir !== undefined) await removeDataDir(dataDir);
  });

  it('runs the bundled helper on the app’s own Node', async () => {
    const pid = core.supervisor.helper.pid;
    assert.ok(pid !== undefined);
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    assert.deepEqual(cmdline.slice(0, 2), [process.execPath, layout.helper.args[0]]);
    const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
    assert.ok(environ.includes('ELECTRON_RUN_AS_NODE=1'));
    assert.equal(core.supervisor.helper.health.state, 'ready');
  });

  it('serves an agent launched with the Settings snippet, and asks the person before acting', async () => {
    const snapshot = (await core.supervisor.ui.invoke('snapshot', {})) as { ok: true; result: UiSnapshot };
    const {
      stdio_command: [command = '', ...args],
      stdio_env,
      mcp_url,
    } = snapshot.result.connection;
    assert.deepEqual(args, [layout.cli, 'mcp', '--data-dir', dataDir]);
    assert.deepEqual(stdio_env, { ELECTRON_RUN_AS_NODE: '1' });
    assert.equal(mcp_url, core.mcpUrl);
    // What an MCP client does with the snippet: run the command with its env (and nothing of ours but PATH).
    agent = new Client({ name: 'snippet-agent', version: '1.0.0' });
    await agent.connect(new StdioClientTransport({ command, args, env: { PATH: process.env['PATH'] ?? '', ...stdio_env }, cwd: tmpdir(), stderr: 'pipe' }));
    await activateTiers(agent);
    const list = await toolJson<WindowListAnswer>(agent, 'window_list');
    const win = list.windows.find((w) => w.title === 'Overseer Fixture')?.window;
    assert.ok(win !== undefined, JSON.stringify(list));
    const answer = toolJson<Receipt>(
      agent,
      'element_act',
      { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'From the desktop app' },
      { timeout: 60_000 },
    );
    let card: PendingApproval | undefined;
    for (let i = 0; i < 100 && card === undefined; i++) {
      card = core.supervisor.approvals.list().find((p) => p.kind === 'element' && p.target.automation_id === 'name_entry');
      if (card === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(card !== undefined, 'the action waits for a person');
    const approved = await core.supervisor.ui.invoke('approve', { approval_id: card.approval_id });
    assert.equal(approved.ok, true);
    const receipt = await answer;
    assert.equal(receipt.outcome, 'completed', JSON.stringify(receipt));
    assert.equal(receipt.verification, 'verified');
  });

  it('keeps its token across launches, and serves MCP over HTTP with it', async () => {
    const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
    assert.equal(token, core.token);
    const http = await httpClient({ mcpUrl: core.mcpUrl, token });
    try {
      assert.match((await tool(http, 'window_list')).text, /Overseer Fixture/);
    } finally {
      await http.close();
    }
    await agent.close();
    await core.stop();
    core = await startDesktopCore({ layout, dataDir, port: 0, execPath: process.execPath, env: desktop.env, log: (l) => log.push(l) });
    assert.equal(core.token, token, 'agents configured with the token keep working after a restart');
  });
});
