// npm run bench (second part): the supervisor against calling the helper directly, the size of a
// delta after one field changes, and compact text against JSON for the same tree.
import { mkdir, writeFile } from 'node:fs/promises';
import type { WindowReadAnswer } from '../protocol/index.js';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnHelper } from '../main/core/helperProcess.js';
import { REPO_ROOT } from '../main/core/paths.js';
import { FixtureDriver } from '../main/testing/fixtureDriver.js';
import { httpClient, removeDataDir, serve, tool, toolJson } from '../main/testing/serveHarness.js';

const ROUNDS = 40;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const tokens = (s: string): number => Math.ceil(s.length / 4);

const desktop = await startPrivateDesktop();
const out: Record<string, unknown> = { created_at: new Date().toISOString() };
try {
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '200'], { waitForWindow: 'Overseer Fixture' });
  const served = await serve(desktop.env);
  const helper = spawnHelper(desktop.env);
  const agent = await httpClient(served, 'bench-agent');
  const driver = await FixtureDriver.connect(desktop.a11yBusAddress);
  try {
    const win = (await helper.call('window_list', {})).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
    const params = { window: win, max_nodes: 400 };
    const stdio = new Client({ name: 'bench-stdio-agent', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['bin/overseer.mjs', 'mcp', '--data-dir', served.dataDir],
        cwd: REPO_ROOT,
        env: { ...process.env } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    const direct: number[] = [];
    const viaText: number[] = [];
    const viaJson: number[] = [];
    const viaStdio: number[] = [];
    for (let i = 0; i < ROUNDS + 5; i++) {
      const s0 = performance.now();
      await tool(stdio, 'window_read', params);
      if (i >= 5) viaStdio.push(performance.now() - s0);
      const t0 = performance.now();
      await helper.call('window_read', { ...params, identity: true });
      const t1 = performance.now();
      await tool(agent, 'window_read', params);
      const t2 = performance.now();
      await toolJson(agent, 'window_read', params);
      const t3 = performance.now();
      if (i >= 5) {
        direct.push(t1 - t0);
        viaText.push(t2 - t1);
        viaJson.push(t3 - t2);
      }
    }
    const d = median(direct);
    const allowed = Math.max(d * 0.15, 3);
    const overhead: Record<string, unknown> = { direct_p50_ms: d, allowed_ms: allowed };
    await stdio.close();
    for (const [label, xs] of [
      ['HTTP, text (default)', viaText],
      ['HTTP, json', viaJson],
      ['stdio bridge, text', viaStdio],
    ] as const) {
      const m = median(xs);
      overhead[label] = { mcp_p50_ms: m, overhead_ms: m - d, pass: m - d <= allowed };
      console.log(
        `read p50 (${label}): helper direct ${d.toFixed(1)} ms, through the supervisor over MCP ${m.toFixed(1)} ms: overhead ${(m - d).toFixed(1)} ms (goal ≤ ${allowed.toFixed(1)} ms: ${m - d <= allowed ? 'PASS' : 'MISS'})`,
      );
    }
    out['overhead'] = overhead;

    const full = await toolJson<WindowReadAnswer>(agent, 'window_read', params);
    await driver.setText('name_entry', 'Bench Bella');
    const delta = await toolJson<WindowReadAnswer>(agent, 'window_read', { ...params, since: full.observation });
    const fullBytes = JSON.stringify(full).length;
    const deltaBytes = JSON.stringify(delta).length;
    out['delta'] = {
      mode: delta.mode,
      changed: delta.delta?.changed.length,
      full_chars: fullBytes,
      delta_chars: deltaBytes,
      ratio: deltaBytes / fullBytes,
      pass: delta.mode === 'delta' && deltaBytes / fullBytes <= 0.1,
    };
    console.log(
      `delta after one field changed (the fixture also updates its status label): ${deltaBytes} chars vs full ${fullBytes} = ${((100 * deltaBytes) / fullBytes).toFixed(1)}% (goal ≤ 10%: ${deltaBytes / fullBytes <= 0.1 ? 'PASS' : 'MISS'})`,
    );

    const text = (await tool(agent, 'window_read', params)).text;
    const json = JSON.stringify(await toolJson<WindowReadAnswer>(agent, 'window_read', params));
    out['text_vs_json'] = {
      text_tokens: tokens(text),
      json_tokens: tokens(json),
      ratio: tokens(text) / tokens(json),
      pass: tokens(text) / tokens(json) <= 0.4,
      nodes: full.node_count,
    };
    console.log(
      `compact text vs JSON for the same ${full.node_count}-element tree: ${tokens(text)} vs ${tokens(json)} tokens (≈4 chars a token) = ${((100 * tokens(text)) / tokens(json)).toFixed(1)}% (goal ≤ 40%: ${tokens(text) / tokens(json) <= 0.4 ? 'PASS' : 'MISS'})`,
    );
  } finally {
    driver.close();
    await agent.close();
    await helper.close();
    await served.kill();
    await removeDataDir(served.dataDir);
  }
} finally {
  await desktop.stop();
}
await mkdir(`${REPO_ROOT}.artifacts`, { recursive: true });
await writeFile(`${REPO_ROOT}.artifacts/bench-supervisor.json`, JSON.stringify(out, null, 2));
