// npm run bench (part): what agents that leave without saying so cost the supervisor. 300 MCP
// clients each initialize, read once and close without DELETE; their sessions must idle out, the
// agents list must stay bounded, and the supervisor's memory must come back to where it was
// (the peer is the same supervisor before the burst, measured in the same run).
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AgentInfo } from '../protocol/index.js';
import { startTestDesktop } from '../e2e/desktop/testDesktop.js';
import { REPO_ROOT } from '../helper/rpc/helperProcess.js';
import { UiClient, httpClient, removeDataDir, serve, tool } from '../main/testing/serveHarness.js';

const CLIENTS = 300;
const IDLE_S = 5;

/** Resident memory of a process, MB. */
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

const desktop = await startTestDesktop();
const out: Record<string, unknown> = { created_at: new Date().toISOString(), clients: CLIENTS };
try {
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}e2e/fixtures/fixtureApp.py`, '--rows', '200'], { waitForWindow: 'Overseer Fixture' });
  const served = await serve(desktop.env);
  const pid = served.child.pid ?? 0;
  const ui = await UiClient.connect(served);
  try {
    await ui.command('update_settings', { agent_idle_s: IDLE_S });
    // Warm up the paths a client takes, so the baseline is the steady state and not the cold one.
    for (let i = 0; i < 20; i++) {
      const c = await httpClient(served, `warm-${i}`);
      await tool(c, 'window_read', { max_nodes: 200 });
      await c.close();
    }
    await new Promise((r) => setTimeout(r, (IDLE_S + 2) * 1000));
    const before = rssMb(pid);
    const started = performance.now();
    for (let i = 0; i < CLIENTS; i++) {
      const c = await httpClient(served, `departing-${i}`);
      await tool(c, 'window_read', { max_nodes: 200 });
      await c.close(); // no DELETE
    }
    const burstMs = performance.now() - started;
    const during = rssMb(pid);
    const most = Math.max(0, ...ui.events.filter((e) => e.event === 'agents').map((e) => (e.data as AgentInfo[]).length));
    const mark = ui.mark();
    await ui.waitFor<AgentInfo[]>('agents', (a) => a.length === 0, 60_000, mark);
    await new Promise((r) => setTimeout(r, 3000));
    const afterExpiry = rssMb(pid);
    const growth = afterExpiry / before;
    out['memory'] = { before_mb: before, during_mb: during, after_expiry_mb: afterExpiry, growth, most_agents_listed: most, burst_ms: burstMs, pass: growth <= 1.1 && most <= 64 };
    console.log(`${CLIENTS} clients that left without DELETE (${(burstMs / CLIENTS).toFixed(1)} ms each): agents listed at most ${most} (bound 64), supervisor RSS ${before.toFixed(0)} MB before, ${during.toFixed(0)} MB right after, ${afterExpiry.toFixed(0)} MB once they idled out = ${growth.toFixed(2)}× (goal ≤ 1.10×: ${growth <= 1.1 ? 'PASS' : 'MISS'})`);
  } finally {
    ui.close();
    await served.kill();
    await removeDataDir(served.dataDir);
  }
} finally {
  await desktop.stop();
}
await mkdir(`${REPO_ROOT}.artifacts`, { recursive: true });
await writeFile(`${REPO_ROOT}.artifacts/bench-sessions.json`, JSON.stringify(out, null, 2));
