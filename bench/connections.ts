// npm run bench (part): what 16 active connections cost the supervisor (docs/performance.md#connections). The real
// supervisor core runs in this process (as bench/sessions.ts does), so its heap is measured after
// a full GC; 16 connections are registered in connections.json: OSWORLD osworld_http ones against
// the project's OSWorld-compatible server (main/testing/osworldServer.ts, one shared by all) and
// SSH ssh ones against a private sshd on 127.0.0.1 (main/testing/privateSshd.ts, the remote helper
// bundle built fresh), all over one private desktop. 16 MCP agents each do the same work twice:
//
//   peer:    every agent on `local` (the 16 connections registered, none started): window_read of
//            the foreground window (the fixture), a screenshot; twice;
//   active:  every agent activates its own connection and does the same work there once, so each
//            connection's helper is started and used (osworld: a local helper whose backends talk
//            HTTP; ssh: the ssh client and its master here, the helper on the "remote").
//
// Then every agent goes back to local and leaves, every connection is disabled (helpers stopped), and the heap
// is measured again: what the connections took must come back. The supervisor's RSS is printed
// too (V8 keeps its high-water mark, so it is read as growth), and, apart, the RSS of the helper
// processes this machine runs for them (osworld helpers are local children; ssh ones run on the
// remote, here only their ssh clients). Prints figures, asserts nothing timed; results also go to
// .artifacts/bench-connections.json.
//
//   npx tsx --expose-gc bench/connections.ts      (OSWORLD=12 SSH=4 by default)
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ConnectionConfig } from '../protocol/index.js';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { makeTarget } from '../main/core/connections/makeTarget.js';
import { CONNECTIONS_FILE } from '../main/core/connections/registry.js';
import { sshTarget } from '../main/core/connections/sshTarget.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { startHttpServer } from '../main/core/server/httpServer.js';
import { Supervisor } from '../main/core/supervisor.js';
import { startOsworldServer } from '../main/testing/osworldServer.js';
import { startPrivateSshd } from '../main/testing/privateSshd.js';
import { buildRemoteHelperForTest } from '../main/testing/remoteHelperBuild.js';
import { httpClient, toolJson } from '../main/testing/serveHarness.js';

const OSWORLD = Number(process.env['OSWORLD'] ?? 12);
const SSH = Number(process.env['SSH'] ?? 4);
const CONNECTIONS = OSWORLD + SSH;
const TOKEN = 'bench-token-0123456789abcdef';
const FIXTURE = 'Overseer Fixture';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc (npm run bench does)');

const mb = (bytes: number): number => bytes / 1024 / 1024;
/** The supervisor's heap in use and RSS after a full collection, MB. */
const memory = async (): Promise<{ heap_mb: number; rss_mb: number }> => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return { heap_mb: mb(m.heapUsed), rss_mb: mb(m.rss) };
};

/** This process's child processes: pid and command line. */
function children(): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    let list = '';
    try {
      list = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const pid of list.split(' ').filter(Boolean).map(Number)) {
      try {
        out.push({ pid, cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ') });
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return out;
}

/** Resident memory of a process, MB (0 when it is gone). */
function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The helpers (`helper/main.ts`) and ssh clients this process runs, and their RSS. */
function helperProcesses(): { helpers: number; ssh: number; helper_rss_mb: number; ssh_rss_mb: number } {
  const kids = children();
  const helpers = kids.filter((k) => k.cmd.includes('helper/main.ts'));
  const ssh = kids.filter((k) => /^(\S*\/)?ssh /.test(k.cmd));
  const rss = (list: { pid: number }[]): number => list.reduce((s, k) => s + rssOf(k.pid), 0);
  return { helpers: helpers.length, ssh: ssh.length, helper_rss_mb: rss(helpers), ssh_rss_mb: rss(ssh) };
}

/** Reads that timed out on a loaded machine and were asked again (reads change nothing; printed). */
let retried = 0;

/** A read tool's answer; one that ran out of its budget is asked again, up to five times. */
async function readTool<T>(agent: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const r = await toolJson<T>(agent, name, args);
    if (r.error === undefined) return r;
    const timedOut = r.error.code === 'timeout' || r.error.data?.['reason'] === 'timeout';
    if (!timedOut || attempt === 5) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
    retried++;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * One agent's work where it is now: the foreground window's tree (the fixture, the desktop's only
 * window), then a screenshot. No window_list: over OSWorld a list asks for the whole tree within
 * the helper's 3 s list budget, which a loaded 2-core machine misses, and the server keeps walking
 * after the helper gave up, so the misses pile up; window_read takes a 20 s budget.
 */
async function work(agent: Client): Promise<void> {
  const read = await readTool<{ window?: { title?: string } }>(agent, 'window_read', { timeout_ms: 20_000, max_nodes: 200 });
  if (read.window?.title !== FIXTURE) throw new Error(`window_read read ${JSON.stringify(read.window?.title)}, not the fixture`);
  await readTool(agent, 'screenshot', { max_width: 640, max_height: 400 });
}

const bundle = SSH > 0 ? buildRemoteHelperForTest() : '';
const desktop = await startPrivateDesktop({ width: 1280, height: 800 });
const sshd = SSH > 0 ? await startPrivateSshd() : undefined;
const dataDir = await mkdtemp(join(tmpdir(), 'overseer-bench-connections-'));
const stopped: string[] = [];
const out: Record<string, unknown> = { created_at: new Date().toISOString(), osworld_http: OSWORLD, ssh: SSH };
try {
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`], { waitForWindow: FIXTURE });
  const osworld = await startOsworldServer(desktop);
  const bus = desktop.env['DBUS_SESSION_BUS_ADDRESS'];
  const entries: ConnectionConfig[] = [
    ...Array.from({ length: OSWORLD }, (_, i): ConnectionConfig => ({ name: `vm${i}`, kind: 'osworld_http', enabled: true, url: osworld.url })),
    ...Array.from({ length: SSH }, (_, i): ConnectionConfig => ({
      name: `lab${i}`,
      kind: 'ssh',
      enabled: true,
      host: sshd?.alias ?? '',
      ssh_config: sshd?.clientConfig ?? '',
      display: desktop.display,
      ...(bus !== undefined ? { bus } : {}),
    })),
  ];
  await writeFile(join(dataDir, CONNECTIONS_FILE), JSON.stringify({ version: 1, connections: entries }, null, 2), { mode: 0o600 });
  const supervisor = await Supervisor.start({
    dataDir,
    helperEnv: desktop.env,
    log: (line) => {
      if (line.includes('helper stopped (')) stopped.push(line);
    },
    connection: { mcp_url: '', stdio_command: [] },
    // The real transports; ssh with the bundle built from these sources (dist/ may predate them).
    makeTarget: (config, context) =>
      config.kind === 'ssh' ? sshTarget(config, { dataDir: context.dataDir, log: context.log, bundle }) : makeTarget(config, context),
  });
  const http = await startHttpServer(supervisor, { host: '127.0.0.1', port: 0, token: TOKEN, log: () => {} });
  const served = { mcpUrl: `http://127.0.0.1:${http.port}/mcp`, token: TOKEN };
  try {
    if (supervisor.connections.list().length !== CONNECTIONS + 1) throw new Error(`the registry did not load ${CONNECTIONS} connections`);
    const agents: Client[] = [];
    for (let i = 0; i < CONNECTIONS; i++) agents.push(await httpClient(served, `bench-agent-${i}`, { tiers: ['accessibility', 'screen', 'connections'] }));

    // Peer: the same supervisor, the same agents and work, every agent on local. Twice, so the
    // measured round is the steady state (JIT, caches), not the first.
    const baseline = await memory();
    let t = performance.now();
    for (let round = 0; round < 2; round++) for (const a of agents) await work(a);
    const phase = (what: string): void => {
      process.stderr.write(`[bench-connections] ${what}: ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      t = performance.now();
    };
    phase('peer (2 rounds on local)');
    const peer = { ...(await memory()), ...helperProcesses() };

    // Active: each agent on its own connection, doing the same work once. The first use starts each
    // connection's helper, one after another: 16 helpers run from the sources (tsx) starting at once
    // on a small loaded machine miss their 10 s hello, which is the start-up's budget, not memory.
    const t0 = performance.now();
    for (const [i, a] of agents.entries()) {
      const name = entries[i]?.name ?? '';
      const r = await toolJson<{ active: { name: string } }>(a, 'activate_connection', { name });
      if (r.error !== undefined || r.active.name !== name) throw new Error(`activate_connection ${name}: ${JSON.stringify(r)}`);
      await work(a);
    }
    phase('active (1 round, each connection started)');
    const activeMs = performance.now() - t0;
    const active = { ...(await memory()), ...helperProcesses() };
    const up = supervisor.connections.list().filter((c) => c.name !== 'local' && c.status === 'up').length;
    if (up !== CONNECTIONS) throw new Error(`${up} of ${CONNECTIONS} connections are up`);

    // Back: every agent back on local and gone, and every connection disabled as the CLI does it
    // (the file rewritten; the supervisor checks it every 2 s): each helper stops, each target closes.
    await Promise.all(agents.map((a) => toolJson(a, 'use_local')));
    await Promise.all(agents.map((a) => a.close()));
    const disabled = entries.map((e) => ({ ...e, enabled: false }));
    await writeFile(join(dataDir, CONNECTIONS_FILE), JSON.stringify({ version: 1, connections: disabled }, null, 2), { mode: 0o600 });
    const deadline = Date.now() + 60_000;
    while (stopped.length < CONNECTIONS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    phase('all disabled, helpers stopped');
    // An ssh client may still be ending its master (ssh -O exit) a moment after its helper stopped.
    for (let i = 0; i < 20 && helperProcesses().ssh > 0; i++) await new Promise((r) => setTimeout(r, 250));
    const after = { ...(await memory()), ...helperProcesses(), helpers_stopped: stopped.length };

    const perConnHeap = (active.heap_mb - peer.heap_mb) / CONNECTIONS;
    const perConnRss = (active.rss_mb - peer.rss_mb) / CONNECTIONS;
    out['memory'] = {
      baseline_before_work: baseline,
      peer_local_only: peer,
      active_16: active,
      after_all_disabled: after,
      heap_ratio: active.heap_mb / peer.heap_mb,
      rss_ratio: active.rss_mb / peer.rss_mb,
      per_connection_heap_mb: perConnHeap,
      per_connection_rss_mb: perConnRss,
      per_osworld_helper_rss_mb: OSWORLD > 0 ? (active.helper_rss_mb - peer.helper_rss_mb) / OSWORLD : 0,
      per_ssh_client_rss_mb: SSH > 0 ? active.ssh_rss_mb / SSH : 0,
      heap_after_over_peer: after.heap_mb / peer.heap_mb,
      connections_up: up,
      active_phase_ms: activeMs,
      reads_retried_on_timeout: retried,
      osworld_accessibility_requests: osworld.count('GET /accessibility'),
    };
    const f = (x: number): string => x.toFixed(1);
    console.log(
      `${CONNECTIONS} connections active (${OSWORLD} osworld_http, ${SSH} ssh), one agent each: supervisor heap after GC ${f(active.heap_mb)} MB against ${f(peer.heap_mb)} MB with only local active (${(active.heap_mb / peer.heap_mb).toFixed(2)}×, ${(perConnHeap * 1024).toFixed(0)} KB a connection); RSS ${f(active.rss_mb)} MB against ${f(peer.rss_mb)} MB (${(active.rss_mb / peer.rss_mb).toFixed(2)}×, ${f(perConnRss)} MB a connection)`,
    );
    console.log(
      `processes here: ${peer.helpers} helper(s) (${f(peer.helper_rss_mb)} MB RSS) with local only; ${active.helpers} helpers (${f(active.helper_rss_mb)} MB) and ${active.ssh} ssh clients (${f(active.ssh_rss_mb)} MB) with ${CONNECTIONS} active: ${f(OSWORLD > 0 ? (active.helper_rss_mb - peer.helper_rss_mb) / OSWORLD : 0)} MB an osworld connection, ${f(SSH > 0 ? active.ssh_rss_mb / SSH : 0)} MB an ssh one`,
    );
    console.log(
      `after the agents left and every connection was disabled (${after.helpers_stopped} of ${CONNECTIONS} helpers stopped): heap ${f(after.heap_mb)} MB (${(after.heap_mb / peer.heap_mb).toFixed(2)}× the peer), ${after.helpers} helper(s) and ${after.ssh} ssh client(s) left; ${retried} read(s) asked again after a timeout; the OSWorld server saw ${osworld.count('GET /accessibility')} GET /accessibility`,
    );
  } finally {
    await http.close();
    await supervisor.stop();
    await osworld.stop();
  }
} finally {
  await sshd?.stop();
  await desktop.stop();
  await rm(dataDir, { recursive: true, force: true });
}
await mkdir(`${REPO_ROOT}.artifacts`, { recursive: true });
await writeFile(`${REPO_ROOT}.artifacts/bench-connections.json`, JSON.stringify(out, null, 2));
