// `tsx bench/osworldClicks.ts`: a click through the osworld_http screen backend against OSWorld's own
// client path and against local XTEST, on one private desktop, interleaved, each click confirmed at
// its pixel by the canvas app's log. Prints figures; asserts nothing timed.
//
//   ours:     the osworld screen backend's click(): POST /execute of a pyautogui statement, with
//             Overseer's checks (HTTP 200, status "success", returncode 0).
//   osworld:  what OSWorld's PythonController.execute_python_command sends: POST /execute with
//             {"command": ["python", "-c", "import pyautogui; import time; pyautogui.FAILSAFE = False; pyautogui.click(x, y)"],
//             "shell": false} (sent here with fetch; OSWorld uses Python's requests, the same request).
//   xtest:    the local X11 backend's click() (XTEST in-process), the floor a VM round trip adds to.
//
// Both HTTP lanes go to the project's OSWorld-compatible server (main/testing/osworldServer.ts),
// which runs each command with python and its pyautogui stand-in (xdotool): a real VM's pyautogui
// costs differently, and its network adds its round trip.

import { performance } from 'node:perf_hooks';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { OsworldHttp } from '../helper/osworld/osworldHttp.js';
import { openOsworldScreenBackend } from '../helper/screen/osworld/osworldScreen.js';
import { openX11Backend } from '../helper/screen/x11/x11Backend.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { startOsworldServer } from '../main/testing/osworldServer.js';
import { CanvasLog, leftClickAt, outLogs } from './canvasEvents.js';

const ROUNDS = 20;
const WARMUP = 2;
const CANVAS = { x: 100, y: 100, width: 400, height: 300 };

interface Lane {
  label: string;
  click(x: number, y: number): Promise<unknown>;
  dispatch: number[];
  reported: number[];
  landed: number;
}

const p50 = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const p95 = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? Number.NaN;

const desktop = await startPrivateDesktop({ width: 800, height: 600 });
try {
  const logs = `${desktop.dir}/logs`;
  const before = outLogs(logs);
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/canvasApp.py`, '--x', String(CANVAS.x), '--y', String(CANVAS.y)], {
    waitForWindow: 'Overseer Canvas',
  });
  const canvas = CanvasLog.since(logs, before);
  await canvas.until((e) => e.some((v) => v.ev === 'ready'), 10_000);
  const server = await startOsworldServer(desktop);
  const http = new OsworldHttp({ url: server.url, timeoutMs: 20_000, connection: 'bench' });
  const osworld = await openOsworldScreenBackend(http);
  const x11 = await openX11Backend({ display: desktop.display });
  const prefix = 'import pyautogui; import time; pyautogui.FAILSAFE = False; ';
  const lanes: Lane[] = [
    { label: 'ours (osworld backend)', click: (x, y) => osworld.click(x, y, 'left', 1), dispatch: [], reported: [], landed: 0 },
    {
      label: "OSWorld's client path",
      click: async (x, y) => {
        const res = await fetch(`${server.url}/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ command: ['python', '-c', `${prefix}pyautogui.click(${x}, ${y})`], shell: false }),
        });
        return res.json();
      },
      dispatch: [],
      reported: [],
      landed: 0,
    },
    { label: 'local XTEST (x11 backend)', click: (x, y) => x11.click(x, y, 'left', 1), dispatch: [], reported: [], landed: 0 },
  ];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const [i, lane] of lanes.entries()) {
      const n = round * lanes.length + i;
      const x = CANVAS.x + 10 + ((n * 37) % (CANVAS.width - 20));
      const y = CANVAS.y + 10 + ((n * 53) % (CANVAS.height - 20));
      // Past the double-click time, so every click is a single one.
      await new Promise((r) => setTimeout(r, 450));
      const t0 = performance.now();
      await lane.click(x, y);
      const took = performance.now() - t0;
      const events = await canvas.until((e) => e.some((v) => v.ev === 'release'), 5000, 1);
      const reported = performance.now() - t0;
      if (round < WARMUP) continue;
      lane.dispatch.push(took);
      if (events !== null && leftClickAt(events, x, y)) {
        lane.landed++;
        lane.reported.push(reported);
      }
    }
  }
  console.log(`osworld clicks on a ${800}x${600} private desktop, ${ROUNDS} each, interleaved:`);
  for (const l of lanes)
    console.log(
      `  ${l.label.padEnd(28)} dispatch p50 ${p50(l.dispatch).toFixed(1)} ms p95 ${p95(l.dispatch).toFixed(1)} ms; until the app logged it p50 ${p50(l.reported).toFixed(1)} ms; landed ${l.landed}/${l.dispatch.length}`,
    );
  const [ours, theirs, local] = lanes;
  if (ours !== undefined && theirs !== undefined && local !== undefined)
    console.log(
      `  ratio ours / OSWorld's client: ${(p50(ours.dispatch) / p50(theirs.dispatch)).toFixed(2)}×; ours / local XTEST: ${(p50(ours.dispatch) / p50(local.dispatch)).toFixed(1)}×`,
    );
  await osworld.close();
  await x11.close();
  await server.stop();
} finally {
  await desktop.stop();
}
