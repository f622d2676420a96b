// npm run bench (second part): the supervisor's overhead on a window_read against calling the helper
// directly, per transport, with a measured breakdown of one call; memory after 1,000 and 10,000 calls;
// the size of a delta after one field changes; compact text against JSON for the same tree.
//
//   npx tsx bench/supervisor.ts            (ROUNDS=100 MEMORY_CALLS=10000 by default)
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { DEFAULT_SETTINGS, type HelperReadParams, type WindowReadAnswer, type WindowReadArgs } from '../protocol/index.js';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnHelper } from '../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { FixtureDriver } from '../main/testing/fixtureDriver.js';
import { activateTiers, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../main/testing/serveHarness.js';

/**
 * The helper params the supervisor sends for an agent's window_read with `args` and the default
 * settings: a copy of windowRead in main/core/tools/readTools.ts, so the direct call reads exactly
 * what the supervisor asks for. Change both together (e.g. `rects: args.output === 'json'`).
 */
function helperReadParams(args: WindowReadArgs): HelperReadParams {
  return {
    ...(args.window !== undefined ? { window: args.window } : {}),
    format: args.format ?? 'tree',
    identity: args.targets ?? args.window !== undefined,
    rects: args.output === 'json',
    max_nodes: args.max_nodes ?? DEFAULT_SETTINGS.read_max_nodes,
    timeout_ms: args.timeout_ms ?? DEFAULT_SETTINGS.read_timeout_ms,
  };
}

/** The overhead goal: MCP p50 minus direct p50, per transport. */
const GOAL_MS = 3;
/** Memory goal: RSS after MEMORY_CALLS within this ratio of RSS after 1,000. */
const MEMORY_GOAL = 0.1;
const ROUNDS = Number(process.env['ROUNDS'] ?? 100);
const PROFILE_ROUNDS = Number(process.env['PROFILE_ROUNDS'] ?? 40);
const MEMORY_CALLS = Number(process.env['MEMORY_CALLS'] ?? 10_000);
const WARMUP = 5;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const tokens = (s: string): number => Math.ceil(s.length / 4);
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const pass = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

/** Times `fn` (ms). */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Resident memory of a process (MiB), from /proc/<pid>/status. */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** CPU time a process has used so far (ms, user + system), from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5), counted from the state field (3) here.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
/** Clock ticks a second (getconf CLK_TCK; 100 on Linux). */
const CLOCK_TICKS = 100;

/** The served supervisor's helper: its child process running helper/main.ts. */
function helperPidOf(supervisorPid: number): number {
  for (const task of readdirSync(`/proc/${supervisorPid}/task`)) {
    for (const pid of readFileSync(`/proc/${supervisorPid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number)) {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('helper/main.ts')) return pid;
    }
  }
  throw new Error(`no helper process under supervisor pid ${supervisorPid}`);
}

/**
 * One window_read as an agent makes it: the SDK client's call (which checks the answer against the
 * tool's outputSchema), without the test harness's own checks, which are no part of MCP.
 */
async function read(client: Client, args: WindowReadArgs): Promise<void> {
  const r = await client.callTool({ name: 'window_read', arguments: args }, undefined, { timeout: 60_000 });
  if (r.isError === true) throw new Error(`window_read failed: ${JSON.stringify(r.content).slice(0, 300)}`);
}

/** An MCP client over the stdio bridge (`overseer mcp`) of a served supervisor. */
async function stdioClient(served: Served): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'bench-stdio-agent', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/overseer.mjs', 'mcp', '--data-dir', served.dataDir],
    cwd: REPO_ROOT,
    env: { ...process.env } as Record<string, string>,
    stderr: 'pipe',
  });
  await client.connect(transport);
  await activateTiers(client);
  await client.listTools();
  return { client, pid: transport.pid ?? 0 };
}

const TRANSPORTS = ['HTTP, text (default)', 'HTTP, json', 'stdio bridge, text'] as const;
type Transport = (typeof TRANSPORTS)[number];

const desktop = await startPrivateDesktop();
const out: Record<string, unknown> = { created_at: new Date().toISOString(), goal_ms: GOAL_MS, rounds: ROUNDS };
try {
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '200'], { waitForWindow: 'Overseer Fixture' });
  const helper = spawnHelper(desktop.env);
  const win = (await helper.call('window_list', {})).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
  const big: WindowReadArgs = { window: win, max_nodes: 400 };
  const calls: Record<Transport, { args: WindowReadArgs; direct: HelperReadParams }> = {
    'HTTP, text (default)': { args: big, direct: helperReadParams(big) },
    'HTTP, json': { args: { ...big, output: 'json' }, direct: helperReadParams({ ...big, output: 'json' }) },
    'stdio bridge, text': { args: big, direct: helperReadParams(big) },
  };

  // 1. Overhead, against a supervisor that profiles nothing; every round calls each path once, interleaved.
  const served = await serve(desktop.env);
  const agent = await httpClient(served, 'bench-agent');
  const { client: stdio } = await stdioClient(served);
  const driver = await FixtureDriver.connect(desktop.a11yBusAddress);
  try {
    const via = (t: Transport): Promise<void> => read(t === 'stdio bridge, text' ? stdio : agent, calls[t].args);
    const direct: Record<Transport, number[]> = { 'HTTP, text (default)': [], 'HTTP, json': [], 'stdio bridge, text': [] };
    const mcp: Record<Transport, number[]> = { 'HTTP, text (default)': [], 'HTTP, json': [], 'stdio bridge, text': [] };
    let cpuBefore = 0;
    for (let i = 0; i < ROUNDS + WARMUP; i++) {
      if (i === WARMUP) cpuBefore = cpuMs(served.child.pid ?? 0);
      for (const t of TRANSPORTS) {
        const d = await timed(() => helper.call('window_read', calls[t].direct));
        const m = await timed(() => via(t));
        if (i >= WARMUP) {
          direct[t].push(d);
          mcp[t].push(m);
        }
      }
    }
    const overhead: Record<string, unknown> = {};
    for (const t of TRANSPORTS) {
      const d = median(direct[t]);
      const m = median(mcp[t]);
      overhead[t] = { direct_p50_ms: d, mcp_p50_ms: m, overhead_ms: m - d, pass: m - d <= GOAL_MS };
      console.log(
        `read p50 (${t}): helper direct ${ms(d)}, through the supervisor over MCP ${ms(m)}: overhead ${ms(m - d)} (goal ≤ ${GOAL_MS} ms: ${pass(m - d <= GOAL_MS)})`,
      );
    }
    // CPU is what a busy machine inflates least: the supervisor's own work, averaged over the three kinds of call.
    const cpuPerCall = (cpuMs(served.child.pid ?? 0) - cpuBefore) / (ROUNDS * TRANSPORTS.length);
    overhead['supervisor_cpu_ms_per_call'] = cpuPerCall;
    console.log(`supervisor CPU a call over these reads (user + system, all three transports): ${ms(cpuPerCall)}`);
    out['overhead'] = overhead;

    // 2. Memory: a small read, many times, over MCP; RSS after 1,000 and after MEMORY_CALLS (0: skipped).
    const small: WindowReadArgs = { window: win, max_nodes: 20 };
    const pids = { supervisor: served.child.pid ?? 0, helper: helperPidOf(served.child.pid ?? 0) };
    const rss: Record<string, Record<string, number>> = {};
    const started = performance.now();
    for (let i = 1; i <= (MEMORY_CALLS >= 1000 ? MEMORY_CALLS : 0); i++) {
      await read(agent, small);
      if (i === 1000 || i === MEMORY_CALLS) rss[String(i)] = { supervisor: rssMiB(pids.supervisor), helper: rssMiB(pids.helper) };
    }
    const perCall = (performance.now() - started) / MEMORY_CALLS;
    const memory: Record<string, unknown> = { calls: MEMORY_CALLS, per_call_ms: perCall, read: small };
    for (const who of MEMORY_CALLS >= 1000 ? (['supervisor', 'helper'] as const) : []) {
      const first = rss['1000']?.[who] ?? NaN;
      const last = rss[String(MEMORY_CALLS)]?.[who] ?? NaN;
      const ratio = last / first;
      memory[who] = { pid: pids[who], rss_1000_mib: first, [`rss_${MEMORY_CALLS}_mib`]: last, ratio, pass: Math.abs(ratio - 1) <= MEMORY_GOAL };
      console.log(
        `${who} RSS after 1,000 window_reads ${first.toFixed(1)} MiB, after ${MEMORY_CALLS.toLocaleString('en')} ${last.toFixed(1)} MiB: ×${ratio.toFixed(3)} (goal within ${100 * MEMORY_GOAL}%: ${pass(Math.abs(ratio - 1) <= MEMORY_GOAL)}; ${perCall.toFixed(1)} ms a call)`,
      );
    }
    out['memory'] = memory;

    // 3. Delta size and text against JSON.
    const full = await toolJson<WindowReadAnswer>(agent, 'window_read', big);
    await driver.setText('name_entry', 'Bench Bella');
    const delta = await toolJson<WindowReadAnswer>(agent, 'window_read', { ...big, since: full.observation });
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
      `delta after one field changed (the fixture also updates its status label): ${deltaBytes} chars vs full ${fullBytes} = ${((100 * deltaBytes) / fullBytes).toFixed(1)}% (goal ≤ 10%: ${pass(deltaBytes / fullBytes <= 0.1)})`,
    );
    const text = (await tool(agent, 'window_read', big)).text;
    const json = JSON.stringify(await toolJson<WindowReadAnswer>(agent, 'window_read', big));
    out['text_vs_json'] = {
      text_tokens: tokens(text),
      json_tokens: tokens(json),
      ratio: tokens(text) / tokens(json),
      pass: tokens(text) / tokens(json) <= 0.4,
      nodes: full.node_count,
    };
    console.log(
      `compact text vs JSON for the same ${full.node_count}-element tree: ${tokens(text)} vs ${tokens(json)} tokens (≈4 chars a token) = ${((100 * tokens(text)) / tokens(json)).toFixed(1)}% (goal ≤ 40%: ${pass(tokens(text) / tokens(json) <= 0.4)})`,
    );
  } finally {
    driver.close();
    await stdio.close();
    await agent.close();
    await served.kill();
    await removeDataDir(served.dataDir);
  }

  // 4. Where one call's overhead goes: a second supervisor with OVERSEER_PROF=1 logs each call's phases
  // (its AsyncLocalStorage costs a little, so it is not the one measured above).
  const profiledServe = await serve({ ...desktop.env, OVERSEER_PROF: '1' });
  const profAgent = await httpClient(profiledServe, 'bench-prof-agent');
  const { client: profStdio, pid: bridgePid } = await stdioClient(profiledServe);
  const supervisorPid = profiledServe.child.pid ?? 0;
  try {
    const breakdown: Record<string, unknown> = {};
    console.log(
      'where a call goes: client_and_wire = the MCP call as the agent times it minus the supervisor from arrival to written; transport_in_out = the SDK and HTTP/stdio handling in the supervisor; ' +
        'journal = append with its two fsyncs (the render runs meanwhile); each a p50 of its own, so they need not add up',
    );
    for (const t of TRANSPORTS) {
      const client = t === 'stdio bridge, text' ? profStdio : profAgent;
      const from = profiledServe.stderr().length;
      const clientMs: number[] = [];
      const directMs: number[] = [];
      let cpu = { supervisor: 0, bridge: 0 };
      for (let i = 0; i < PROFILE_ROUNDS + WARMUP; i++) {
        if (i === WARMUP) cpu = { supervisor: cpuMs(supervisorPid), bridge: cpuMs(bridgePid) };
        const d = await timed(() => helper.call('window_read', calls[t].direct));
        const m = await timed(() => read(client, calls[t].args));
        if (i >= WARMUP) {
          clientMs.push(m);
          directMs.push(d);
        }
      }
      // CPU is what a busy machine cannot inflate: the supervisor's (and the bridge's) own work per call.
      const cpuPerCall = {
        supervisor: (cpuMs(supervisorPid) - cpu.supervisor) / PROFILE_ROUNDS,
        ...(t === 'stdio bridge, text' ? { bridge: (cpuMs(bridgePid) - cpu.bridge) / PROFILE_ROUNDS } : {}),
      };
      const lines = profiledServe
        .stderr()
        .slice(from)
        .split('\n')
        .filter((l) => l.startsWith('[prof] '))
        .map((l) => JSON.parse(l.slice('[prof] '.length)) as Record<string, number>)
        .slice(WARMUP);
      const p = (f: (l: Record<string, number>) => number): number => median(lines.map(f));
      const g = (l: Record<string, number>, k: string): number => l[k] ?? 0;
      const phases = {
        client_and_wire: median(clientMs.map((m, i) => m - g(lines[i] ?? {}, 'total'))),
        transport_in_out: p((l) => g(l, 'total') - g(l, 'handler')),
        arguments: p((l) => g(l, 'args')),
        helper_round_trip: p((l) => g(l, 'helper') - g(l, 'helper_check')),
        helper_answer_check: p((l) => g(l, 'helper_check')),
        tool_body: p((l) => g(l, 'tool') - g(l, 'helper')),
        journal: p((l) => g(l, 'journal')),
        render: p((l) => g(l, 'render')),
        // The render runs inside the journal's time (during its fsyncs).
        rest_of_handler: p((l) => g(l, 'handler') - g(l, 'args') - g(l, 'tool') - g(l, 'journal')),
      };
      breakdown[t] = { calls: lines.length, direct_p50_ms: median(directMs), mcp_p50_ms: median(clientMs), phases_p50_ms: phases, cpu_ms_per_call: cpuPerCall };
      console.log(
        `  where a call goes (${t}, OVERSEER_PROF=1, p50 ms): ${Object.entries(phases)
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(', ')} (direct ${ms(median(directMs))}, MCP ${ms(median(clientMs))}; CPU a call: ${Object.entries(cpuPerCall)
          .map(([k, v]) => `${k} ${ms(v)}`)
          .join(', ')})`,
      );
    }
    out['breakdown'] = breakdown;
  } finally {
    await profStdio.close();
    await profAgent.close();
    await profiledServe.kill();
    await removeDataDir(profiledServe.dataDir);
    await helper.close();
  }
} finally {
  await desktop.stop();
}
await mkdir(`${REPO_ROOT}.artifacts`, { recursive: true });
await writeFile(`${REPO_ROOT}.artifacts/bench-supervisor.json`, JSON.stringify(out, null, 2));
