// npm run bench (part): what agents that leave without saying so cost the supervisor. Bursts of
// 300 MCP clients each initialize, read once and close without DELETE; their sessions must idle
// out, the agents list must stay bounded, and the supervisor must give back what they took. The
// supervisor runs in this process so the heap can be measured after a full GC (RSS only shows
// the high-water mark V8 keeps); the peer is the same supervisor before the bursts, same run.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { startHttpServer } from '../main/core/server/httpServer.js';
import { Supervisor } from '../main/core/supervisor.js';
import { httpClient, tool } from '../main/testing/serveHarness.js';

const CLIENTS = 300;
const BURSTS = 3;
const IDLE_S = 5;
const TOKEN = 'bench-token-0123456789abcdef';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc (npm run bench does)');
/** Heap in use after a full collection, MB. */
const heapMb = async (): Promise<number> => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const desktop = await startPrivateDesktop();
const dataDir = await mkdtemp(join(tmpdir(), 'overseer-bench-sessions-'));
const out: Record<string, unknown> = { created_at: new Date().toISOString(), clients: CLIENTS, bursts: BURSTS };
try {
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '200'], { waitForWindow: 'Overseer Fixture' });
  const supervisor = await Supervisor.start({ dataDir, helperEnv: desktop.env, log: () => {}, connection: { mcp_url: '', stdio_command: [] } });
  const http = await startHttpServer(supervisor, { host: '127.0.0.1', port: 0, token: TOKEN, log: () => {} });
  const served = { mcpUrl: `http://127.0.0.1:${http.port}/mcp`, token: TOKEN };
  try {
    await supervisor.settings.update({ agent_idle_s: IDLE_S }, supervisor.policy.list());
    const burst = async (n: number, name: string): Promise<{ ms: number; most: number }> => {
      let most = 0;
      const started = performance.now();
      for (let i = 0; i < n; i++) {
        const c = await httpClient(served, `${name}-${i}`);
        await tool(c, 'window_read', { max_nodes: 200 });
        await c.close(); // no DELETE
        most = Math.max(most, supervisor.agents.size);
      }
      const ms = performance.now() - started;
      while (supervisor.agents.size > 0) await new Promise((r) => setTimeout(r, 200));
      return { ms, most };
    };
    // Warm up every path a client takes, so the baseline is the steady state, not the cold one.
    await burst(20, 'warm');
    const before = await heapMb();
    const after: number[] = [];
    let most = 0;
    let ms = 0;
    for (let b = 0; b < BURSTS; b++) {
      const r = await burst(CLIENTS, `departing-${b}`);
      most = Math.max(most, r.most);
      ms += r.ms;
      after.push(await heapMb());
    }
    // The first burst fills what is bounded by design (the UI's last 500 receipts, caches, JIT); a
    // leak is what every further burst adds. Both ratios are printed; the goal is on the second.
    const last = after.at(-1) ?? NaN;
    const first = after[0] ?? NaN;
    const total = last / before;
    const growth = last / first;
    out['memory'] = {
      heap_before_mb: before,
      heap_after_each_burst_mb: after,
      growth_over_all: total,
      growth_after_first_burst: growth,
      most_agents: most,
      ms_per_client: ms / (BURSTS * CLIENTS),
      rss_mb: process.memoryUsage().rss / 1024 / 1024,
      pass: growth <= 1.05 && most <= 64,
    };
    console.log(
      `${BURSTS} × ${CLIENTS} clients that left without DELETE (${(ms / (BURSTS * CLIENTS)).toFixed(1)} ms each): agents at most ${most} (bound 64); supervisor heap after GC ${before.toFixed(1)} MB before, ${after.map((m) => m.toFixed(1)).join(' → ')} MB once each burst idled out: ${total.toFixed(2)}× overall, ${growth.toFixed(2)}× from the first burst to the last (goal ≤ 1.05×: ${growth <= 1.05 ? 'PASS' : 'MISS'})`,
    );
  } finally {
    await http.close();
    await supervisor.stop();
  }
} finally {
  await desktop.stop();
  await rm(dataDir, { recursive: true, force: true });
}
await mkdir(`${REPO_ROOT}.artifacts`, { recursive: true });
await writeFile(`${REPO_ROOT}.artifacts/bench-sessions.json`, JSON.stringify(out, null, 2));
