// The OSWorld lane of the screen contract: the osworld_http screen backend in-process, talking HTTP
// to the project's OSWorld-compatible test server (main/testing/osworldServer.ts), which drives a
// private desktop with desktop/apps/canvasApp.py as a VM's server drives the VM. The canvas's GTK
// events are the X11 lane's, plus the text a Ctrl+V pasted (the backend types non-ASCII text so).

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../../main/core/runtime/paths.js';
import { startOsworldServer, type OsworldServer } from '../../../main/testing/osworldServer.js';
import { OsworldHttp } from '../../osworld/osworldHttp.js';
import { openOsworldScreenBackend } from '../osworld/osworldScreen.js';
import { EventLog, type CanvasEvent, type ScreenLane } from './screenLane.js';
import { gtkCanvasEvents } from './x11Lane.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const CANVAS_RECT = { x: 100, y: 100, width: 400, height: 300 };
/** Small enough that the pixel-by-pixel pointer sweep (two HTTP calls a pixel) stays short. */
const SCREEN = { x: 0, y: 0, width: 640, height: 480 };

/** The canvas's lines as events: the GTK ones, and a paste as the text it typed. */
function parse(line: Record<string, unknown>): CanvasEvent[] {
  if (line['ev'] === 'paste') return [{ kind: 'text', text: String(line['text']) }];
  return gtkCanvasEvents(line);
}

/** The OSWorld lane, with its "VM": the desktop the server drives and the server itself. */
export interface OsworldScreenLane extends ScreenLane {
  vm: PrivateDesktop;
  server: OsworldServer;
  http: OsworldHttp;
}

/** Starts the VM's desktop with the canvas, the OSWorld-compatible server over it, and the backend. */
export async function osworldSetup(): Promise<OsworldScreenLane> {
  const vm = await startPrivateDesktop({ width: SCREEN.width, height: SCREEN.height });
  let server: OsworldServer | undefined;
  try {
    await vm.launch('/usr/bin/python3', [CANVAS, '--x', String(CANVAS_RECT.x), '--y', String(CANVAS_RECT.y)], { waitForWindow: 'Overseer Canvas' });
    const logs = path.join(vm.dir, 'logs');
    const events = new EventLog(() => path.join(logs, readdirSync(logs).find((f) => f.endsWith('-python3.out.log')) ?? 'none'), parse);
    for (let i = 0; !events.raw().some((e) => e['ev'] === 'ready'); i++) {
      if (i > 1500) throw new Error('the canvas did not draw');
      await new Promise((r) => setTimeout(r, 10));
    }
    server = await startOsworldServer(vm);
    const http = new OsworldHttp({ url: server.url, timeoutMs: 20_000, connection: 'vm1' });
    const screen = await openOsworldScreenBackend(http);
    const running = server;
    return {
      screen,
      canvas: { ...CANVAS_RECT, title: 'Overseer Canvas' },
      events,
      handlePattern: /^osworld:[^/~]+~\d+\/\d+$/,
      expect: {
        session: 'x11',
        capturePath: /^osworld:GET \/screenshot$/,
        inputPath: 'osworld:POST /execute pyautogui',
        screen: SCREEN,
        primaryMonitors: 1,
        monitorScale: 1,
      },
      namedKeyText: '\ra',
      quirks: { doublePressAfterPress: "GTK reports a double click's second press, then its own 2BUTTON_PRESS" },
      lacks: {
        windowCapture: "OSWorld's server captures only the whole screen (GET /screenshot): no window-bound capture",
        windowPids: "OSWorld's server names no processes: windows come from its accessibility tree, which has none",
      },
      vm,
      server: running,
      http,
      async stop() {
        await screen.close();
        await running.stop();
        await vm.stop();
      },
    };
  } catch (error) {
    await server?.stop();
    await vm.stop();
    throw error;
  }
}
