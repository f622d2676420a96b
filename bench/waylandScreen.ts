// `tsx bench/waylandScreen.ts` (part of `npm run bench`): the Wayland portal backend's screenshot and
// click against the X11 backend's, measured in the same run, interleaved, each on its own private
// 1280x800 desktop with the canvas app: a headless GNOME session (desktop/gnomeDesktop.ts; the
// consent dialogs answered once first) and an Xvfb desktop. Every click is confirmed at its pixel
// in the canvas app's log (window-relative on Wayland: the canvas is found in a screenshot). Prints
// figures and ratios; asserts nothing timed.
//
//   screenshot: capture() of the whole screen (portal: Screenshot request, PNG file read, decoded
//               and deleted; X11: MIT-SHM GetImage), without encoding for the agent.
//   click:      click() dispatched, and until the app logged the release.
//   type:       typeText() of text a 'us' layout lacks (Cyrillic, CJK, an emoji), until the app logged
//               all of it (portal: pasted through Xwayland's clipboard; X11: spare keycodes remapped).

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerRemoteDesktop, answerScreenshotQuestion } from '../desktop/gnomeDialogs.js';
import { startGnomeDesktop } from '../desktop/gnomeDesktop.js';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { findCanvas } from '../helper/screen/contract/portalLane.js';
import type { ScreenBackend } from '../helper/screen/screenBackend.js';
import { openWaylandBackend } from '../helper/screen/wayland/waylandBackend.js';
import { openX11Backend } from '../helper/screen/x11/x11Backend.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { CanvasLog, leftClickAt, outLogs, type CanvasEvent } from './canvasEvents.js';

const ROUNDS = 15;
const TYPE_ROUNDS = 5;
/** Beyond a 'us' layout: 12 code points. */
const UNICODE = 'Привет 漢字 😀ж';
const WARMUP = 2;
const SIZE = { width: 1280, height: 800 };
const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;

interface Lane {
  label: string;
  screen: ScreenBackend;
  /** The canvas's top-left on the screen, and what to add to the app's logged points to get screen points. */
  canvas: { x: number; y: number };
  logOffset: { x: number; y: number };
  log: CanvasLog;
  capture: number[];
  dispatch: number[];
  reported: number[];
  landed: number;
  typed: number[];
  typedExactly: number;
}

const p50 = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const gnome = await startGnomeDesktop(SIZE);
const xvfb = await startPrivateDesktop(SIZE);
const lanes: Lane[] = [];
try {
  // The Wayland lane: the canvas where the compositor put it, found in the first (consented) screenshot.
  const gnomeBefore = outLogs(`${gnome.dir}/logs`);
  await gnome.launch('/usr/bin/python3', [CANVAS], { waitForWindow: 'Overseer Canvas' });
  const gnomeLog = CanvasLog.since(`${gnome.dir}/logs`, gnomeBefore);
  const portal = await openWaylandBackend({ env: gnome.env, tokens: { load: () => undefined, save: () => undefined }, log: () => undefined });
  const [first] = await Promise.all([portal.capture(), answerScreenshotQuestion(gnome, 'Allow')]);
  let found = findCanvas(first);
  for (let i = 0; found === undefined && i < 50; i++) {
    await sleep(100);
    found = findCanvas(await portal.capture());
  }
  if (found === undefined) throw new Error('the canvas is not on the GNOME screen');
  await Promise.all([portal.move(found.x + 200, found.y + 150), answerRemoteDesktop(gnome, 'share')]);
  lanes.push({
    label: 'Wayland portals (GNOME 43)',
    screen: portal,
    canvas: found,
    logOffset: found,
    log: gnomeLog,
    capture: [],
    dispatch: [],
    reported: [],
    landed: 0,
    typed: [],
    typedExactly: 0,
  });

  // The X11 lane: the canvas at 100,100 (no window manager), its points in root coordinates.
  const xBefore = outLogs(`${xvfb.dir}/logs`);
  await xvfb.launch('/usr/bin/python3', [CANVAS, '--x', '100', '--y', '100'], { waitForWindow: 'Overseer Canvas' });
  const xLog = CanvasLog.since(`${xvfb.dir}/logs`, xBefore);
  await xLog.until((e) => e.some((v) => v.ev === 'ready'), 10_000);
  const x11 = await openX11Backend({ display: xvfb.display });
  lanes.push({
    label: 'X11 (XTEST, MIT-SHM)',
    screen: x11,
    canvas: { x: 100, y: 100 },
    logOffset: { x: 0, y: 0 },
    log: xLog,
    capture: [],
    dispatch: [],
    reported: [],
    landed: 0,
    typed: [],
    typedExactly: 0,
  });

  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const [i, lane] of lanes.entries()) {
      const t0 = performance.now();
      await lane.screen.capture();
      const captured = performance.now() - t0;
      const n = round * lanes.length + i;
      const [dx, dy] = [10 + ((n * 37) % 380), 10 + ((n * 53) % 280)];
      await sleep(450); // past the double-click time: every click a single one
      const t1 = performance.now();
      await lane.screen.click(lane.canvas.x + dx, lane.canvas.y + dy, 'left', 1);
      const took = performance.now() - t1;
      const events = await lane.log.until((e) => e.some((v) => v.ev === 'release'), 5000, 1);
      const reported = performance.now() - t1;
      if (round < WARMUP) continue;
      lane.capture.push(captured);
      lane.dispatch.push(took);
      const [lx, ly] = [lane.canvas.x + dx - lane.logOffset.x, lane.canvas.y + dy - lane.logOffset.y];
      if (events !== null && leftClickAt(events, lx, ly)) {
        lane.landed++;
        lane.reported.push(reported);
      }
    }
  }
  // The canvas has the keyboard focus since the clicks; each round types the text and waits for all of it.
  const textOf = (events: readonly CanvasEvent[]): string => events.map((e) => (e.ev === 'key' || e.ev === 'paste' ? (e.text ?? '') : '')).join('');
  for (let round = 0; round < 1 + TYPE_ROUNDS; round++) {
    for (const lane of lanes) {
      await sleep(200);
      const t0 = performance.now();
      await lane.screen.typeText(UNICODE);
      const events = await lane.log.until((e) => textOf(e).length >= UNICODE.length, 5000, 1);
      const took = performance.now() - t0;
      if (round === 0) continue;
      lane.typed.push(took);
      if (events !== null && textOf(events) === UNICODE) lane.typedExactly++;
    }
  }
  console.log(`wayland screen: ${ROUNDS} rounds on 1280x800, interleaved (screenshot = whole screen captured and decoded, not encoded):`);
  for (const l of lanes)
    console.log(
      `  ${l.label.padEnd(28)} screenshot p50 ${p50(l.capture).toFixed(1)} ms; click dispatch p50 ${p50(l.dispatch).toFixed(1)} ms, until the app logged it p50 ${p50(l.reported).toFixed(1)} ms; landed ${l.landed}/${l.dispatch.length}; ${[...UNICODE].length} code points beyond the layout typed until logged p50 ${p50(l.typed).toFixed(1)} ms, exactly ${l.typedExactly}/${l.typed.length}`,
    );
  const [wl, x] = lanes;
  if (wl !== undefined && x !== undefined)
    console.log(
      `  ratio portal / X11: screenshot ${(p50(wl.capture) / p50(x.capture)).toFixed(1)}×, click dispatch ${(p50(wl.dispatch) / p50(x.dispatch)).toFixed(1)}×, click until logged ${(p50(wl.reported) / p50(x.reported)).toFixed(1)}×, text beyond the layout until logged ${(p50(wl.typed) / p50(x.typed)).toFixed(1)}×`,
    );
} finally {
  for (const l of lanes) await l.screen.close().catch(() => undefined);
  await gnome.stop();
  await xvfb.stop();
}
