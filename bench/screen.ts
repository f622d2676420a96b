// `npm run bench` (screen tier): the project's screenshot, click and token figures against the
// command-line peers, measured in the same run on the project's private desktop. Prints figures and
// ratios; asserts nothing timed. `npx tsx bench/screen.ts` runs it alone.
//
//   1. Screenshot = capture the whole screen, fit it into 1280x800, encode a PNG. Ours: the X11
//      backend in-process (helper/screen/x11, MIT-SHM GetImage when usable), then
//      helper/screen/image's encodeFittedPng (defaults), the screen service's path. Peers: ImageMagick's import piped
//      into convert, import to a file then convert, scrot to a file then convert. On a 1280x800 and
//      a 2560x1600 desktop, each painted with bench/busyDesktop.ts (bench/backdropApp.py; a bare
//      Xvfb screen is nearly flat and flatters every encoder) with desktop/apps/canvasApp.py on top.
//      Rounds interleave ours and every peer, so a change of load hits all of them alike.
//   2. Click = the backend's click() (XTEST motion, press, release, then the round trip that tells
//      the server processed them) against spawning `xdotool mousemove X Y click 1`, interleaved.
//      Every click of both sides is confirmed in the canvas app's event log: press and release of
//      button 1 at exactly X,Y.
//   3. Tokens = a screenshot of a real window at (width × height) / 750 (Anthropic's estimate for
//      an image) against the compact text an agent gets from window_read of the same window
//      (main/core/tools readTools + render, the helper over RPC) at ≈ 4 characters a token.
//
// Results also go to .artifacts/bench-screen.json. Exit code 0 unless something crashed.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPrivateDesktop, type PrivateDesktop } from '../desktop/privateDesktop.js';
import { downscale } from '../helper/screen/image/downscale.js';
import { encodeFittedPng, encodePng } from '../helper/screen/image/png.js';
import { openX11Backend, type X11ScreenBackend } from '../helper/screen/x11/x11Backend.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { busyDesktop } from './busyDesktop.js';
import { CanvasLog, outLogs } from './canvasEvents.js';
import { measureClicks, type ClickFigures } from './screenClicks.js';
import { measureTokens, type TokenFigures } from './screenTokens.js';
import { missingPeer, pngSize, SCREENSHOT_PEERS } from './screenPeers.js';

const PYTHON = '/usr/bin/python3';
const BACKDROP = path.join(REPO_ROOT, 'bench', 'backdropApp.py');
const CANVAS = path.join(REPO_ROOT, 'desktop', 'apps', 'canvasApp.py');
/** Where the canvas window sits (no window manager: it stays there). */
const CANVAS_AT = { x: 100, y: 100, width: 400, height: 300 } as const;
const FIT = { width: 1280, height: 800 } as const;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 2560, height: 1600 },
] as const;
const WARMUP_ROUNDS = 1;
const ROUNDS = 11;
const GOAL_SCREENSHOT = 5;
const OURS_LABEL = 'ours (encodePng defaults: Up, level 3)';
/** Other zlib levels of ours, shown beside the default for the size/time trade. */
const INFORMATIONAL_LEVELS = [1, 6] as const;

const log = (line: string): void => {
  process.stderr.write(`[bench-screen] ${line}\n`);
};
const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const p50 = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const ms = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : '–');
const ratio = (peer: number, ours: number): string => (Number.isFinite(peer / ours) ? `${(peer / ours).toFixed(1)}×` : '–');

/** One screenshot pipeline's figures at one screen size. */
interface PipelineFigures {
  label: string;
  p50_ms: number;
  min_ms: number;
  /** CPU time of this process and the peer's processes, per frame. */
  cpu_p50_ms: number;
  runs_ms: number[];
  cpu_ms: number[];
  /** Ours only: capture, and fit + encode (one pass) of each frame. */
  stages_ms: Array<{ capture: number; encode: number }>;
  /** Size of the last frame (every frame was checked to be a 1280x800 PNG). */
  png_kib: number;
  skipped?: string;
  error?: string;
}

/** The private desktop of one run: busy backdrop, canvas on top, the X11 backend connected. */
interface Stage {
  desktop: PrivateDesktop;
  backend: X11ScreenBackend;
  canvas: CanvasLog;
}

/** Paints the desktop's backdrop, puts the canvas on top, connects the backend, and waits until a capture shows both. */
async function stage(desktop: PrivateDesktop, size: { width: number; height: number }): Promise<Stage> {
  const frame = busyDesktop(size.width, size.height);
  const image = path.join(desktop.dir, 'backdrop.png');
  writeFileSync(image, encodePng(downscale(frame, size.width, size.height), { level: 1 }));
  await desktop.launch(PYTHON, [BACKDROP, '--image', image], { waitForWindow: 'Overseer Backdrop', timeoutMs: 30_000 });
  const logs = path.join(desktop.dir, 'logs');
  const before = outLogs(logs);
  await desktop.launch(PYTHON, [CANVAS, '--x', String(CANVAS_AT.x), '--y', String(CANVAS_AT.y)], { waitForWindow: 'Overseer Canvas', timeoutMs: 30_000 });
  const canvas = CanvasLog.since(logs, before);
  if ((await canvas.until((evs) => evs.some((e) => e.ev === 'ready'), 15_000)) === null) throw new Error('the canvas app never printed ready');
  const backend = await openX11Backend({ display: desktop.display });
  // A backdrop pixel in the noisy area and a canvas pixel (red quadrant) must both be on screen.
  const probe = { x: Math.floor(size.width * 0.8), y: Math.floor(size.height * 0.8) };
  const want = (x: number, y: number): string => {
    const o = (y * frame.width + x) * 4;
    return [frame.data[o + 2], frame.data[o + 1], frame.data[o]].join();
  };
  for (let i = 0; ; i++) {
    const img = await backend.capture();
    const got = (x: number, y: number): string => {
      const o = y * img.stride + x * 4;
      return [img.data[o + 2], img.data[o + 1], img.data[o]].join();
    };
    if (got(probe.x, probe.y) === want(probe.x, probe.y) && got(CANVAS_AT.x + 50, CANVAS_AT.y + 50) === '255,0,0') break;
    if (i >= 200) {
      await backend.close();
      throw new Error('the screen never showed the backdrop and the canvas');
    }
    await sleep(50);
  }
  return { desktop, backend, canvas };
}

/** Milliseconds of CPU (user + system) this process and its exited children have used: a peer's processes count once reaped. */
function cpuMs(): number {
  const own = process.cpuUsage();
  // /proc/self/stat fields 16 and 17 (cutime, cstime), in clock ticks of 1/100 s; field 2 may hold spaces, so count after its ')'.
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  const children = (Number(fields[13]) + Number(fields[14])) * 10;
  return (own.user + own.system) / 1000 + (Number.isFinite(children) ? children : 0);
}

/** One frame of a pipeline: the PNG, and for ours the time of each stage. */
interface Frame {
  png: Buffer;
  stages?: { capture: number; encode: number };
}

/** Ours: capture, fit into 1280x800 and encode in one pass; the PNG level is encodePng's default unless given. */
async function ourFrame(backend: X11ScreenBackend, level?: number): Promise<Frame> {
  const t0 = performance.now();
  const img = await backend.capture();
  const t1 = performance.now();
  const raw = { width: img.width, height: img.height, data: img.data, stride: img.stride, format: 'bgrx' } as const;
  const { png } = encodeFittedPng(raw, FIT.width, FIT.height, 3, level === undefined ? {} : { level });
  return { png, stages: { capture: t1 - t0, encode: performance.now() - t1 } };
}

/** Every pipeline at the stage's screen size, in interleaved rounds. */
async function measureScreenshots(s: Stage): Promise<{ capture_path: string; pipelines: PipelineFigures[] }> {
  const env = s.desktop.env;
  const scratch = path.join(s.desktop.dir, 'peers');
  mkdirSync(scratch, { recursive: true });
  const capturePath = (await s.backend.capabilities()).capture.path;
  const blank = (label: string, skipped: string | null = null): PipelineFigures => ({
    label,
    p50_ms: Number.NaN,
    min_ms: Number.NaN,
    cpu_p50_ms: Number.NaN,
    runs_ms: [],
    cpu_ms: [],
    stages_ms: [],
    png_kib: 0,
    ...(skipped !== null ? { skipped } : {}),
  });
  const pipelines: Array<{ figures: PipelineFigures; frame: (i: number) => Promise<Frame> }> = [
    { figures: blank(OURS_LABEL), frame: () => ourFrame(s.backend) },
    ...INFORMATIONAL_LEVELS.map((level) => ({ figures: blank(`ours, PNG level ${level} (informational)`), frame: () => ourFrame(s.backend, level) })),
    ...SCREENSHOT_PEERS.map((p) => ({
      figures: blank(p.label, missingPeer(p.label, p.needs, env['PATH'])),
      frame: async (i: number): Promise<Frame> => ({ png: await p.frame(env, scratch, i) }),
    })),
  ];
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    log(`screenshots round ${round + 1}/${WARMUP_ROUNDS + ROUNDS}${round < WARMUP_ROUNDS ? ' (warm-up)' : ''}`);
    for (const p of pipelines) {
      const f = p.figures;
      if (f.skipped !== undefined || f.error !== undefined) continue;
      try {
        const c0 = cpuMs();
        const t0 = performance.now();
        const frame = await p.frame(round);
        const took = performance.now() - t0;
        const cpu = cpuMs() - c0;
        const got = pngSize(frame.png);
        const shape = got === null ? `not a PNG (${frame.png.length} bytes)` : `${got.width}x${got.height}`;
        if (shape !== `${FIT.width}x${FIT.height}`) {
          f.error = `answered ${shape}, not ${FIT.width}x${FIT.height}`;
          continue;
        }
        f.png_kib = Math.round(frame.png.length / 1024);
        if (round < WARMUP_ROUNDS) continue;
        f.runs_ms.push(Number(took.toFixed(2)));
        f.cpu_ms.push(Number(cpu.toFixed(2)));
        const st = frame.stages;
        if (st !== undefined) f.stages_ms.push({ capture: Number(st.capture.toFixed(2)), encode: Number(st.encode.toFixed(2)) });
      } catch (error) {
        f.error = errorText(error);
      }
    }
  }
  for (const { figures: f } of pipelines) {
    if (f.runs_ms.length === 0) continue;
    f.p50_ms = p50(f.runs_ms);
    f.min_ms = Math.min(...f.runs_ms);
    f.cpu_p50_ms = p50(f.cpu_ms);
  }
  return { capture_path: capturePath, pipelines: pipelines.map((p) => p.figures) };
}

interface SizeResult {
  screen: string;
  capture_path?: string;
  pipelines?: PipelineFigures[];
  clicks?: ClickFigures;
  tokens?: TokenFigures;
  error?: string;
}

function screenshotLines(r: SizeResult): string[] {
  const out = [
    `Screenshot of the whole ${r.screen} screen, fitted into 1280x800, as PNG (ours captures through ${r.capture_path ?? '?'}); ` +
      `p50 of ${ROUNDS} after ${WARMUP_ROUNDS} warm-up round, min, and CPU p50 (this process + the peer's processes):`,
  ];
  const pipelines = r.pipelines ?? [];
  const ours = pipelines.find((p) => p.label === OURS_LABEL);
  const oursP50 = ours?.p50_ms ?? Number.NaN;
  for (const p of pipelines) {
    const head = `  ${p.label.padEnd(40)}`;
    const figures = `p50 ${ms(p.p50_ms)} (min ${ms(p.min_ms)}, CPU ${ms(p.cpu_p50_ms)}), ${p.png_kib} KiB`;
    if (p.skipped !== undefined) out.push(`${head} ${p.skipped} — ratio skipped`);
    else if (p.error !== undefined) out.push(`${head} FAILED: ${p.error.split('\n')[0] ?? ''}`);
    else if (p.stages_ms.length > 0) {
      const stage = (k: 'capture' | 'encode'): string => ms(p50(p.stages_ms.map((x) => x[k])));
      out.push(`${head} ${figures}; capture ${stage('capture')}, fit + encode ${stage('encode')} (p50 each)`);
    } else {
      const r50 = p.p50_ms / oursP50;
      out.push(
        `${head} ${figures} — ours is ${ratio(p.p50_ms, oursP50)} faster ` +
          `(goal ≥ ${GOAL_SCREENSHOT}×: ${r50 >= GOAL_SCREENSHOT ? 'PASS' : 'MISS'}; min/min ${ratio(p.min_ms, ours?.min_ms ?? Number.NaN)}, CPU ${ratio(p.cpu_p50_ms, ours?.cpu_p50_ms ?? Number.NaN)})`,
      );
    }
  }
  return out;
}

async function main(): Promise<void> {
  const wallStart = performance.now();
  const loadStart = os.loadavg();
  const results: SizeResult[] = [];
  let crashed = false;
  for (const size of SIZES) {
    const result: SizeResult = { screen: `${size.width}x${size.height}` };
    results.push(result);
    let desktop: PrivateDesktop | undefined;
    let backend: X11ScreenBackend | undefined;
    try {
      desktop = await startPrivateDesktop(size);
      const s = await stage(desktop, size);
      backend = s.backend;
      log(`desktop ${s.desktop.display} ${result.screen} up, backdrop and canvas on screen`);
      Object.assign(result, await measureScreenshots(s));
      log(`screenshots measured at ${result.screen}`);
      if (size === SIZES[0]) {
        result.clicks = await measureClicks(s.backend, s.canvas, s.desktop.env, CANVAS_AT);
        log('clicks measured');
        result.tokens = await measureTokens(s.desktop, s.backend, FIT);
        log('tokens measured');
      }
    } catch (error) {
      crashed = true;
      result.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`crashed at ${result.screen}: ${result.error}`);
    } finally {
      await backend?.close().catch(() => undefined);
      if (desktop !== undefined) await desktop.stop().catch((error: unknown) => log(`desktop stop failed: ${errorText(error)}`));
    }
  }

  const out: string[] = [''];
  for (const r of results) {
    if (r.pipelines !== undefined) out.push(...screenshotLines(r), '');
    if (r.clicks !== undefined) out.push(...r.clicks.lines, '');
    if (r.tokens !== undefined) out.push(...r.tokens.lines, '');
    if (r.error !== undefined) out.push(`${r.screen}: CRASHED: ${r.error.split('\n')[0] ?? ''}`, '');
  }
  const loadEnd = os.loadavg();
  const busy = Math.max(loadStart[0] ?? 0, loadEnd[0] ?? 0) > os.cpus().length;
  out.push(
    `wall time ${((performance.now() - wallStart) / 1000).toFixed(1)} s; ${os.cpus().length} CPUs; load average (1 min) ` +
      `${(loadStart[0] ?? 0).toFixed(2)} at start, ${(loadEnd[0] ?? 0).toFixed(2)} at end${busy ? ' (busy machine: figures are noisy)' : ''}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  try {
    const dir = path.join(REPO_ROOT, '.artifacts');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'bench-screen.json');
    const json = { created_at: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg: [loadStart, loadEnd], results, crashed };
    writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
    process.stdout.write(`results written to ${path.relative(REPO_ROOT, file)}\n`);
  } catch (error) {
    log(`could not write .artifacts/bench-screen.json: ${errorText(error)}`);
  }
  if (crashed) process.exitCode = 1;
}

await main();
