// The screen bench's click part: the X11 backend's click() against spawning xdotool once per
// click, interleaved, every click confirmed by the canvas app's own event log.
import type { X11ScreenBackend } from '../helper/screen/x11/x11Backend.js';
import { leftClickAt, type CanvasLog } from './canvasEvents.js';
import { missingPeer, XDOTOOL, xdotoolClick } from './screenPeers.js';

const WARMUP = 3;
const ROUNDS = 25;
const GOAL = 10;

/** One side's clicks. */
export interface ClickSide {
  label: string;
  /** From the call until it resolved (ours: after the round trip; xdotool: the process exited). */
  dispatch_ms: number[];
  /** From the call until the canvas app's log showed the release (polled every 1 ms), for the clicks that landed. */
  reported_ms: number[];
  /** Clicks whose press and release of button 1 the app printed at exactly the aimed pixel. */
  landed: number;
  clicks: number;
  skipped?: string;
  error?: string;
}

/** Both sides, and the lines the bench prints. */
export interface ClickFigures {
  ours: ClickSide;
  xdotool: ClickSide;
  lines: string[];
}

const p50 = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const ms = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : '–');

/** The i-th aimed pixel: inside the canvas, off its 1-pixel border, far enough from the last that no two clicks make a double click. */
function point(at: { x: number; y: number; width: number; height: number }, i: number): { x: number; y: number } {
  return { x: at.x + 10 + ((i * 37) % (at.width - 20)), y: at.y + 10 + ((i * 53) % (at.height - 20)) };
}

async function click(side: ClickSide, canvas: CanvasLog, dispatch: () => Promise<unknown>, x: number, y: number, timed: boolean): Promise<void> {
  const t0 = performance.now();
  try {
    await dispatch();
  } catch (error) {
    side.error = error instanceof Error ? error.message : String(error);
    return;
  }
  const took = performance.now() - t0;
  const events = await canvas.until((evs) => evs.some((e) => e.ev === 'release'), 5000, 1);
  const reported = performance.now() - t0;
  if (!timed) return;
  side.clicks++;
  side.dispatch_ms.push(Number(took.toFixed(3)));
  if (events !== null && leftClickAt(events, x, y)) {
    side.landed++;
    side.reported_ms.push(Number(reported.toFixed(3)));
  }
}

function sideLine(s: ClickSide): string {
  const head = `  ${s.label.padEnd(46)}`;
  if (s.skipped !== undefined) return `${head} ${s.skipped} — ratio skipped`;
  const tail = s.error !== undefined ? `; FAILED: ${s.error.split('\n')[0] ?? ''}` : '';
  return (
    `${head} dispatch p50 ${ms(p50(s.dispatch_ms))} (min ${ms(Math.min(...s.dispatch_ms))}); ` +
    `landed at the exact pixel ${s.landed}/${s.clicks}; until the app printed it p50 ${ms(p50(s.reported_ms))}${tail}`
  );
}

/** Interleaved rounds: one click of ours, one of xdotool, each at its own pixel. */
export async function measureClicks(
  backend: X11ScreenBackend,
  canvas: CanvasLog,
  env: Record<string, string>,
  at: { x: number; y: number; width: number; height: number },
): Promise<ClickFigures> {
  const empty = (label: string): ClickSide => ({ label, dispatch_ms: [], reported_ms: [], landed: 0, clicks: 0 });
  const ours = empty('ours: backend click() (XTEST + its round trip)');
  const xdotool = empty('xdotool mousemove X Y click 1 (one process a click)');
  const missing = missingPeer('xdotool', [XDOTOOL], env['PATH']);
  if (missing !== null) xdotool.skipped = missing;
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const timed = i >= WARMUP;
    const a = point(at, 2 * i);
    if (ours.error === undefined) await click(ours, canvas, () => backend.click(a.x, a.y, 'left', 1), a.x, a.y, timed);
    const b = point(at, 2 * i + 1);
    if (xdotool.skipped === undefined && xdotool.error === undefined) await click(xdotool, canvas, () => xdotoolClick(env, b.x, b.y), b.x, b.y, timed);
  }
  const lines = [`Click dispatch, ${ROUNDS} clicks a side after ${WARMUP} warm-ups, interleaved; each confirmed in the canvas app's event log:`];
  lines.push(sideLine(ours), sideLine(xdotool));
  const r = p50(xdotool.dispatch_ms) / p50(ours.dispatch_ms);
  const bothLanded = ours.landed === ours.clicks && xdotool.landed === xdotool.clicks && ours.clicks > 0 && xdotool.clicks > 0;
  if (xdotool.skipped === undefined && Number.isFinite(r)) {
    lines.push(
      `  ours is ${r.toFixed(1)}× faster to dispatch (p50 vs p50; goal ≥ ${GOAL}×: ${r >= GOAL ? 'PASS' : 'MISS'})` +
        (bothLanded ? '; every click of both sides landed' : '; NOT every click landed: see above'),
    );
  }
  return { ours, xdotool, lines };
}
