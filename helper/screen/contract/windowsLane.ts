// The Windows lane of the screen contract: the Win32 backend inside the Windows build of Node under
// Wine on a private desktop (natively on Windows in CI), driven over JSON-RPC through
// helper/testing/win32ScreenDriver.ts, against e2e/fixtures/win32Canvas.c, whose logged Win32 messages
// (screen coordinates) are normalized here.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { prepareWindows, prepareWine, type WindowsLane } from '../../../e2e/windows/lanes.js';
import { spawnHelper, type HelperProcess } from '../../../main/core/helperLink/helperProcess.js';
import type { CapturedImage, ScreenBackend } from '../screenBackend.js';
import { EventLog, type CanvasEvent, type ScreenLane } from './screenLane.js';

const CANVAS_RECT = { x: 100, y: 100, width: 400, height: 300 };
const WHEEL_DELTA = 120;
const VK_PACKET = 0xe7;

/** A virtual key (with the extended flag or scan code that tells left from right) by its X11 name. */
function keyName(vk: number, ext: number, scan: number): string {
  if (vk === 0x0d && ext === 0) return 'Return';
  if (vk === 0x11) return ext === 0 ? 'Control_L' : 'Control_R'; // WM_KEYDOWN names either Control VK_CONTROL
  if (vk === 0x10 && scan === 0x2a) return 'Shift_L'; // and either Shift VK_SHIFT; the scan code tells them apart
  if (vk === 0x10 && scan === 0x36) return 'Shift_R';
  if (vk === 0x25 && ext === 1) return 'Left'; // without the extended flag it would be the keypad's 4
  if (vk === 0x74) return 'F5';
  if (vk >= 0x41 && vk <= 0x5a) return String.fromCharCode(vk + 0x20);
  return `vk:0x${vk.toString(16)} ext:${ext} scan:0x${scan.toString(16)}`;
}

/** One line of the Win32 canvas as contract events. */
function parse(line: Record<string, unknown>): CanvasEvent[] {
  const n = (k: string): number => Number(line[k]);
  switch (line['ev']) {
    case 'down':
    case 'up':
      return [{ kind: 'button', action: line['ev'], button: n('button'), n: n('n'), x: n('x'), y: n('y') }];
    case 'wheel':
    case 'hwheel': {
      const d = n('delta');
      const dir = line['ev'] === 'wheel' ? (d < 0 ? 'down' : 'up') : d > 0 ? 'right' : 'left';
      return [{ kind: 'scroll', dir, steps: Math.abs(d) / WHEEL_DELTA, x: n('x'), y: n('y') }];
    }
    case 'keydown':
    case 'keyup':
      // VK_PACKET is the key of each KEYEVENTF_UNICODE unit: typing's carrier, whose text arrives as WM_CHAR.
      if (n('vk') === VK_PACKET) return [];
      return [{ kind: 'key', action: line['ev'] === 'keydown' ? 'down' : 'up', key: keyName(n('vk'), n('ext'), n('scan')) }];
    case 'char':
      return [{ kind: 'text', text: String.fromCharCode(n('unit')) }];
    default:
      return [];
  }
}

type WireImage = Omit<CapturedImage, 'data'> & { data: string };

/** The Win32 backend's ScreenBackend calls over the driver's RPC: images decoded from base64, null answers as undefined. */
function rpcScreen(driver: HelperProcess): ScreenBackend {
  const call = async <T>(method: string, ...args: unknown[]): Promise<T> => (await driver.peer.request(method, args, { timeoutMs: 60_000 })) as T;
  const image = async (method: string, ...args: unknown[]): Promise<CapturedImage> => {
    const wire = await call<WireImage>(method, ...args);
    return { ...wire, data: Buffer.from(wire.data, 'base64') };
  };
  return {
    name: 'win32',
    capabilities: () => call('capabilities'),
    capture: (region) => image('capture', ...(region !== undefined ? [region] : [])),
    captureWindow: (window) => image('captureWindow', window),
    move: (x, y) => call('move', x, y),
    button: (button, action) => call('button', button, action),
    click: (x, y, button, count) => call('click', x, y, button, count),
    scroll: (x, y, direction, detents) => call('scroll', x, y, direction, detents),
    typeText: (text) => call('typeText', text),
    key: (keys, action) => call('key', keys, action),
    cursor: () => call('cursor'),
    windows: () => call('windows'),
    focusedWindow: async () => (await call<string | null>('focusedWindow')) ?? undefined,
    close: () => call('close'),
  };
}

/** The Windows lane, with what only it has: the DPI awareness the driver obtained. */
export interface WindowsScreenLane extends ScreenLane {
  native: boolean;
  dpi(): Promise<{ degradation: string | null; detail: string }>;
}

/** Starts the canvas (under Wine on a private desktop here, natively on Windows) and the screen driver. */
export async function windowsSetup(): Promise<WindowsScreenLane> {
  const native = process.platform === 'win32';
  let desktop: PrivateDesktop | undefined;
  let lane: WindowsLane | undefined;
  let dir: string;
  if (native) dir = mkdtempSync(join(tmpdir(), 'overseer-win32-screen-'));
  else {
    desktop = await startPrivateDesktop({ width: 1280, height: 800 });
    dir = desktop.dir;
  }
  try {
    const l = native ? prepareWindows() : prepareWine(desktop?.env ?? {});
    lane = l;
    const logFile = join(dir, 'canvas.log');
    const events = new EventLog(() => logFile, parse);
    const canvasProcess = l.launch(l.canvasExe, ['--log', l.windowsPath(logFile), '--x', String(CANVAS_RECT.x), '--y', String(CANVAS_RECT.y)]);
    let ready: Record<string, unknown> | undefined;
    for (let i = 0; (ready = events.raw().find((e) => e['ev'] === 'ready')) === undefined; i++) {
      if (i > 6000) throw new Error('the canvas did not start');
      await new Promise((r) => setTimeout(r, 10));
    }
    if (ready['x'] !== CANVAS_RECT.x || ready['y'] !== CANVAS_RECT.y) throw new Error(`the canvas is not at its place: ${JSON.stringify(ready)}`);
    const driver = spawnHelper({ ...process.env, ...desktop?.env }, l.scriptCommand('helper/testing/win32ScreenDriver.ts', join(dir, 'screen-driver.log')));
    return {
      screen: rpcScreen(driver),
      // Under Wine the lane launched wine, whose Linux pid is not the canvas's Windows one.
      canvas: { ...CANVAS_RECT, title: 'Overseer Canvas', ...(native && canvasProcess.pid !== undefined ? { pid: canvasProcess.pid } : {}) },
      events,
      handlePattern: /^0x[0-9a-f]+$/,
      expect: {
        session: 'windows',
        capturePath: /^win32:BitBlt$/,
        inputPath: 'win32:SendInput',
        windowCapture: { path: 'win32:PrintWindow', degradations: ['printwindow_app_dependent', 'windows_graphics_capture_unavailable'] },
        primaryMonitors: 1,
        ...(native ? {} : { screen: { x: 0, y: 0, width: 1280, height: 800 } }),
      },
      // TranslateMessage makes WM_CHARs of Return (a carriage return) and Ctrl+A (the control character 0x01).
      namedKeyText: '\r\x01',
      quirks: native ? {} : { horizontalWheelInClientCoordinates: "Wine 8 puts client coordinates into WM_MOUSEHWHEEL's lParam (Windows: screen coordinates)" },
      lacks: native
        ? {}
        : {
            otherProcessWindowCapture:
              "Wine keeps GDI handles per process, so another process cannot paint into PrintWindow's DC (it comes out black); PW_RENDERFULLCONTENT is not emulated either",
          },
      // The fixture's 660x560 window at 50,50 covers the canvas.
      coverCanvas: () => {
        l.launch(l.fixtureExe, ['--rows', '5']);
      },
      // A window of the driver's own process that paints the canvas pattern (helper/testing/win32TestWindow.ts says why).
      openOwnWindow: async (x, y) => String(await driver.peer.request('openTestWindow', [x, y], { timeoutMs: 60_000 })),
      canvasHandle: String(ready['frame']),
      native,
      dpi: async () => (await driver.peer.request('dpi', [], { timeoutMs: 60_000 })) as { degradation: string | null; detail: string },
      async stop() {
        await driver.close();
        l.stop();
        await desktop?.stop();
        if (native) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    lane?.stop();
    await desktop?.stop();
    throw error;
  }
}
