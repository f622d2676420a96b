// The Windows screen backend against real Win32 windows: under Wine on the private test desktop
// here (the backend inside the Windows build of Node, driven over JSON-RPC through
// helper/win32ScreenDriver.ts), and on a Windows desktop in CI (.github/workflows/windows.yml).
// e2e/fixtures/win32Canvas.c paints a known pattern at a known place and logs every mouse button,
// wheel notch, key and WM_CHAR unit with screen coordinates. Pixels, points and text must match exactly.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { prepareWindows, prepareWine, wineUnavailable, type WindowsLane } from '../../e2e/windows/lanes.js';
import { spawnHelper, type HelperProcess } from '../../main/core/helperProcess.js';
import { OverseerError } from '../../protocol/index.js';
import type { CapturedImage, ScreenCapabilities } from './screenBackend.js';

const native = process.platform === 'win32';
const why = native ? undefined : wineUnavailable();
const WX = 100;
const WY = 100;
const W = 400;
const H = 300;

interface CanvasEvent {
  ev: string;
  button?: number;
  n?: number;
  x?: number;
  y?: number;
  delta?: number;
  vk?: number;
  ext?: number;
  unit?: number;
  frame?: number;
}

/** The canvas's log file, read as JSON lines; `cursor` marks what earlier steps consumed. */
class EventLog {
  cursor = 0;
  constructor(private readonly file: string) {}
  all(): CanvasEvent[] {
    let text = '';
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as CanvasEvent);
  }
  /** Wait until the events after the cursor satisfy `done`; returns them and moves the cursor past them. */
  async until(done: (events: CanvasEvent[]) => boolean, what: string, timeoutMs = 10_000): Promise<CanvasEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const fresh = this.all().slice(this.cursor);
      if (done(fresh)) {
        this.cursor += fresh.length;
        return fresh;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(fresh)}`);
      await sleep(10);
    }
  }
}

type WireImage = Omit<CapturedImage, 'data'> & { data: string };

function pixel(img: CapturedImage, x: number, y: number): [number, number, number] {
  const o = (y - img.origin.y) * img.stride + (x - img.origin.x) * 4;
  return [img.data[o + 2] ?? -1, img.data[o + 1] ?? -1, img.data[o] ?? -1]; // BGRX -> RGB
}

/** The pattern's pixels at a few places and along the border, relative to its top-left on screen. */
function assertPattern(img: CapturedImage, ox: number, oy: number): void {
  assert.deepEqual(pixel(img, ox + 50, oy + 50), [255, 0, 0]);
  assert.deepEqual(pixel(img, ox + 350, oy + 50), [0, 255, 0]);
  assert.deepEqual(pixel(img, ox + 50, oy + 250), [0, 0, 255]);
  assert.deepEqual(pixel(img, ox + 350, oy + 250), [255, 255, 0]);
  assert.deepEqual(pixel(img, ox + 199, oy + 149), [255, 0, 0], 'last red pixel');
  assert.deepEqual(pixel(img, ox + 200, oy + 150), [255, 255, 0], 'first yellow pixel');
  for (const [x, y] of [
    [0, 0],
    [1, 0],
    [0, 1],
    [2, 0],
    [W - 1, 0],
    [W - 1, H - 1],
    [0, H - 1],
    [7, H - 1],
  ] as const) {
    const v = (x + y) % 2 === 0 ? 0 : 255;
    assert.deepEqual(pixel(img, ox + x, oy + y), [v, v, v], `border pixel ${x},${y}`);
  }
  assert.deepEqual(pixel(img, ox + 1, oy + 1), [255, 0, 0], 'just inside the border');
}

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const isCode = (code: string, reason?: string) => (e: unknown) =>
  e instanceof OverseerError && e.code === code && (reason === undefined || e.info.data?.['reason'] === reason);

describe(native ? 'the Windows screen backend on Windows' : 'the Windows screen backend under Wine', { skip: why }, () => {
  let desktop: PrivateDesktop | undefined;
  let lane: WindowsLane;
  let driver: HelperProcess;
  let log: EventLog;
  let dir: string;
  let frame = 0;

  const call = async <T>(method: string, ...args: unknown[]): Promise<T> => (await driver.peer.request(method, args, { timeoutMs: 60_000 })) as T;
  const capture = async (method: 'capture' | 'captureWindow', ...args: unknown[]): Promise<CapturedImage> => {
    const wire = await call<WireImage>(method, ...args);
    return { ...wire, data: Buffer.from(wire.data, 'base64') };
  };
  const downsUps = (events: CanvasEvent[]) => events.filter((e) => e.ev === 'down' || e.ev === 'up').map((e) => [e.ev, e.button, e.n, e.x, e.y]);

  before(async () => {
    if (native) {
      lane = prepareWindows();
      dir = mkdtempSync(join(tmpdir(), 'overseer-win32-screen-'));
    } else {
      desktop = await startPrivateDesktop({ width: 1280, height: 800 });
      lane = prepareWine(desktop.env);
      dir = desktop.dir;
    }
    const logFile = join(dir, 'canvas.log');
    log = new EventLog(logFile);
    lane.launch(lane.canvasExe, ['--log', lane.windowsPath(logFile), '--x', String(WX), '--y', String(WY)]);
    const ready = await log.until((evs) => evs.some((e) => e.ev === 'ready'), 'the canvas to start', 60_000);
    frame = ready.find((e) => e.ev === 'ready')?.frame ?? 0;
    assert.deepEqual(
      ready.filter((e) => e.ev === 'ready').map((e) => [e.x, e.y]),
      [[WX, WY]],
    );
    driver = spawnHelper({ ...process.env, ...desktop?.env }, lane.scriptCommand('helper/win32ScreenDriver.ts', join(dir, 'screen-driver.log')));
  });

  after(async () => {
    await driver?.close();
    lane?.stop();
    await desktop?.stop();
    if (native && dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('names its capture, window capture and input paths, the monitors, and what it cannot do (DPI awareness included)', async () => {
    const caps = await call<ScreenCapabilities>('capabilities');
    const dpi = await call<{ degradation: string | null; detail: string }>('dpi');
    assert.equal(caps.session, 'windows');
    assert.equal(caps.capture.path, 'win32:BitBlt');
    assert.equal(caps.input.path, 'win32:SendInput');
    assert.equal(caps.windowCapture?.path, 'win32:PrintWindow');
    assert.ok(caps.windowCapture?.degradations.includes('printwindow_app_dependent'));
    assert.ok(caps.windowCapture?.degradations.includes('windows_graphics_capture_unavailable'), 'WGC is named as not built');
    assert.ok(caps.monitors.length >= 1);
    assert.equal(caps.monitors.filter((m) => m.primary).length, 1);
    if (native) {
      assert.equal(dpi.degradation, null, `Per-Monitor-V2 on Windows: ${dpi.detail}`);
    } else {
      // Wine 8 refuses Per-Monitor-V2 (err 87): the awareness the process has is named, never silent.
      assert.match(dpi.detail, /PER_MONITOR_AWARE_V2\) refused/);
      assert.ok(dpi.degradation !== null && caps.input.degradations.includes(dpi.degradation), JSON.stringify(caps.input));
      assert.ok(caps.capture.degradations.includes(dpi.degradation));
      assert.deepEqual(caps.screen, { x: 0, y: 0, width: 1280, height: 800 });
      const m = caps.monitors[0];
      assert.deepEqual([m?.x, m?.y, m?.width, m?.height, m?.primary], [0, 0, 1280, 800, true]);
    }
    console.log(`# DPI: ${dpi.detail}; monitors ${JSON.stringify(caps.monitors)}`);
  });

  it('lists the canvas in the window stack with its process, title and rectangle, top first', async () => {
    const stack = await call<{ handle: string; title: string; pid?: number; rect: { x: number; y: number; width: number; height: number } }[]>('windows');
    const canvas = stack.find((w) => w.title === 'Overseer Canvas');
    assert.ok(canvas !== undefined, JSON.stringify(stack.map((w) => w.title)));
    assert.match(canvas.handle, /^0x[0-9a-f]+$/);
    assert.deepEqual(canvas.rect, { x: WX, y: WY, width: W, height: H });
    assert.ok((canvas.pid ?? 0) > 0);
    const focused = await call<string | null>('focusedWindow');
    assert.ok(focused === null || /^0x[0-9a-f]+$/.test(focused));
  });

  it('captures the virtual screen with the pattern at its exact pixels, and a region equal to it', async () => {
    let img = await capture('capture');
    for (let i = 0; i < 100 && pixel(img, WX + 50, WY + 50).join() !== '255,0,0'; i++) {
      await sleep(50);
      img = await capture('capture');
    }
    const caps = await call<ScreenCapabilities>('capabilities');
    assert.deepEqual(
      [img.width, img.height, img.stride, img.pixelFormat, img.origin, img.capturePath],
      [caps.screen.width, caps.screen.height, caps.screen.width * 4, 'bgrx', { x: caps.screen.x, y: caps.screen.y }, 'win32:BitBlt'],
    );
    assertPattern(img, WX, WY);
    const region = await capture('capture', { x: WX, y: WY, width: W, height: H });
    assert.deepEqual([region.width, region.height, region.origin], [W, H, { x: WX, y: WY }]);
    for (const [x, y] of [
      [WX, WY],
      [WX + 399, WY + 299],
      [WX + 200, WY + 150],
      [WX + 13, WY + 0],
    ] as const) {
      assert.deepEqual(pixel(region, x, y), pixel(img, x, y));
    }
    const ms: number[] = [];
    for (let i = 0; i < 10; i++) ms.push((await capture('capture')).captureMs);
    console.log(`# full-screen capture ${img.width}x${img.height} via win32:BitBlt: p50 ${p50(ms).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)} ms`);
  });

  it('refuses a region off the screen, a point off it, an unknown key and a lone surrogate with invalid_argument', async () => {
    const caps = await call<ScreenCapabilities>('capabilities');
    const { x, y, width } = caps.screen;
    await assert.rejects(call('capture', { x: x + width - 100, y, width: 101, height: 10 }), isCode('invalid_argument'));
    await assert.rejects(call('click', x - 1, y + 5, 'left', 1), isCode('invalid_argument'));
    await assert.rejects(call('click', x + 5, y + 5, 'left', 4), isCode('invalid_argument'));
    await assert.rejects(call('key', ['NoSuchKey'], 'tap'), isCode('invalid_argument'));
    await assert.rejects(call('typeText', 'a\ud83d'), isCode('invalid_argument'));
    await assert.rejects(call('captureWindow', 'not-a-handle'), isCode('invalid_argument'));
  });

  it('moves the pointer to every pixel of a row and a column exactly (virtual-desktop normalization)', async () => {
    const caps = await call<ScreenCapabilities>('capabilities');
    const { x: vx, y: vy, width, height } = caps.screen;
    const misses: string[] = [];
    const probe = async (x: number, y: number): Promise<void> => {
      await call('move', x, y);
      const at = await call<{ x: number; y: number }>('cursor');
      if (at.x !== x || at.y !== y) misses.push(`${x},${y}->${at.x},${at.y}`);
    };
    for (let x = vx; x < vx + width; x++) await probe(x, vy + 37);
    for (let y = vy; y < vy + height; y++) await probe(vx + width - 1, y);
    assert.deepEqual(misses.slice(0, 20), [], `${misses.length} pixels missed`);
  });

  it('clicks, double-clicks and right-clicks land on the exact pixel', async () => {
    const rtt: number[] = [];
    for (const [x, y] of [
      [WX + 23, WY + 45],
      [WX + 1, WY + 1],
      [WX + 398, WY + 298],
      [WX + 200, WY + 150],
    ] as const) {
      await sleep(600); // past the double-click time, so each click starts a new count
      const started = performance.now();
      await call('click', x, y, 'left', 1);
      const evs = await log.until((e) => e.some((v) => v.ev === 'up'), `click at ${x},${y}`);
      rtt.push(performance.now() - started);
      assert.deepEqual(downsUps(evs), [
        ['down', 1, 1, x, y],
        ['up', 1, 1, x, y],
      ]);
      assert.deepEqual(await call('cursor'), { x, y });
    }
    console.log(`# click round trip (RPC + SendInput until the canvas logged the release): p50 ${p50(rtt).toFixed(1)} ms`);

    await sleep(600);
    await call('click', WX + 300, WY + 100, 'left', 2);
    const dbl = await log.until((e) => e.filter((v) => v.ev === 'up').length === 2, 'double click');
    assert.deepEqual(downsUps(dbl), [
      ['down', 1, 1, WX + 300, WY + 100],
      ['up', 1, 1, WX + 300, WY + 100],
      ['down', 1, 2, WX + 300, WY + 100], // WM_LBUTTONDBLCLK
      ['up', 1, 1, WX + 300, WY + 100],
    ]);

    await sleep(600);
    await call('click', WX + 60, WY + 220, 'right', 1);
    const right = await log.until((e) => e.some((v) => v.ev === 'up'), 'right click');
    assert.deepEqual(downsUps(right), [
      ['down', 3, 1, WX + 60, WY + 220],
      ['up', 3, 1, WX + 60, WY + 220],
    ]);
    await sleep(600);
    await call('click', WX + 61, WY + 221, 'middle', 1);
    const middle = await log.until((e) => e.some((v) => v.ev === 'up'), 'middle click');
    assert.deepEqual(downsUps(middle), [
      ['down', 2, 1, WX + 61, WY + 221],
      ['up', 2, 1, WX + 61, WY + 221],
    ]);
  });

  it('drags from one pixel to another and scrolls one WHEEL_DELTA message per detent, at the point in screen coordinates', async () => {
    await sleep(600);
    await call('move', WX + 30, WY + 40);
    await call('button', 'left', 'down');
    await call('move', WX + 200, WY + 100);
    await call('move', WX + 310, WY + 270);
    await call('button', 'left', 'up');
    const drag = await log.until((e) => e.some((v) => v.ev === 'up'), 'drag');
    assert.deepEqual(downsUps(drag), [
      ['down', 1, 1, WX + 30, WY + 40],
      ['up', 1, 1, WX + 310, WY + 270],
    ]);

    await call('scroll', WX + 250, WY + 200, 'down', 3);
    await call('scroll', WX + 250, WY + 200, 'up', 1);
    await call('scroll', WX + 251, WY + 201, 'right', 2);
    await call('scroll', WX + 251, WY + 201, 'left', 1);
    const wheel = await log.until((e) => e.filter((v) => v.ev === 'wheel' || v.ev === 'hwheel').length >= 7, 'scroll');
    // Wine 8 puts client coordinates into WM_MOUSEHWHEEL's lParam (Windows: screen coordinates, as
    // for WM_MOUSEWHEEL): the horizontal point is checked against the canvas's client area there.
    const hx = native ? WX + 251 : 251;
    const hy = native ? WY + 201 : 201;
    assert.deepEqual(
      wheel.filter((v) => v.ev === 'wheel' || v.ev === 'hwheel').map((e) => `${e.ev} ${e.delta}@${e.x},${e.y}`),
      [...['-120', '-120', '-120', '120'].map((d) => `wheel ${d}@${WX + 250},${WY + 200}`), ...['120', '120', '-120'].map((d) => `hwheel ${d}@${hx},${hy}`)],
    );
    assert.deepEqual(await call('cursor'), { x: WX + 251, y: WY + 201 });
  });

  it('types ASCII, Cyrillic, CJK and emoji exactly (WM_CHAR units), then presses named keys and a combo', async () => {
    await call('click', WX + 200, WY + 150, 'left', 1); // the canvas takes the focus on a click
    await log.until((e) => e.some((v) => v.ev === 'up'), 'focus click');
    const text = 'Hello, World! ~(1+2)=3; Привет, мир: жщшфывапролдэ 漢字かな 😀👍🏽 é€ß';
    const started = performance.now();
    await call('typeText', text);
    const typedMs = performance.now() - started;
    const typed = await log.until((e) => e.filter((v) => v.ev === 'char').length >= text.length, 'typed text');
    const units = typed.filter((e) => e.ev === 'char').map((e) => e.unit ?? -1);
    assert.equal(String.fromCharCode(...units), text);
    console.log(`# typeText of ${[...text].length} code points (${text.length} UTF-16 units): ${typedMs.toFixed(0)} ms`);

    await call('key', ['Return'], 'tap');
    await call('key', ['Control_L', 'a'], 'tap');
    await call('key', ['Left'], 'tap');
    await call('key', ['F5'], 'tap');
    // VK_PACKET (0xe7) is the key of each KEYEVENTF_UNICODE unit: the typing's, not these keys'.
    const keys = (await log.until((e) => e.filter((v) => v.ev === 'keyup' && v.vk !== 0xe7).length >= 5, 'named keys')).filter((e) => e.vk !== 0xe7);
    const downs = keys.filter((e) => e.ev === 'keydown').map((e) => [e.vk, e.ext]);
    // WM_KEYDOWN names the left Control as VK_CONTROL; Left is an extended key.
    assert.deepEqual(downs, [
      [0x0d, 0],
      [0x11, 0],
      [0x41, 0],
      [0x25, 1],
      [0x74, 0],
    ]);
    assert.deepEqual(
      keys.filter((e) => e.ev === 'char').map((e) => e.unit),
      [0x0d, 0x01], // Return, then Ctrl+A as the control character
    );
    assert.deepEqual(
      keys.filter((e) => e.ev === 'keyup').map((e) => e.vk),
      [0x0d, 0x41, 0x11, 0x25, 0x74],
      'a combo releases in reverse',
    );

    // A held modifier would change the text: refused, nothing typed.
    await call('key', ['Shift_L'], 'down');
    await assert.rejects(call('typeText', 'x'), isCode('input_unavailable', 'modifier_held'));
    await call('key', ['Shift_L'], 'up');
    const shift = (await log.until((e) => e.some((v) => v.ev === 'keyup' && v.vk === 0x10), 'the Shift press')).filter((e) => e.vk !== 0xe7);
    assert.deepEqual(
      shift.map((e) => [e.ev, e.vk]),
      [
        ['keydown', 0x10],
        ['keyup', 0x10],
      ],
    );
  });

  it('captures a covered window of its own process by its handle through PrintWindow, while the screen shows the cover', async () => {
    lane.launch(lane.fixtureExe, ['--rows', '5']); // its 660x560 window at 50,50 covers the canvas
    let screen = await capture('capture');
    for (let i = 0; i < 100 && pixel(screen, WX + 50, WY + 50).join() === '255,0,0'; i++) {
      await sleep(100);
      screen = await capture('capture');
    }
    assert.notDeepEqual(pixel(screen, WX + 50, WY + 50), [255, 0, 0], 'the fixture covers the canvas on screen');
    // A window of the driver's own process at the bottom of the z-order, under the fixture too.
    const own = await call<number>('openTestWindow', 200, 200);
    screen = await capture('capture', { x: 200, y: 200, width: W, height: H });
    assert.notDeepEqual(pixel(screen, 250, 250), [255, 0, 0], 'the test window is covered on screen');
    const img = await capture('captureWindow', String(own));
    assert.deepEqual([img.width, img.height, img.origin, img.capturePath], [W, H, { x: 200, y: 200 }, 'win32:PrintWindow']);
    assertPattern(img, 200, 200);
    await assert.rejects(call('captureWindow', '12345'), isCode('capture_unavailable', 'no_such_window'));
  });

  it(
    "captures another application's covered window with its child windows through PrintWindow(PW_RENDERFULLCONTENT)",
    {
      skip:
        !native &&
        "Wine keeps GDI handles per process, so another process cannot paint into PrintWindow's DC (it comes out black); PW_RENDERFULLCONTENT is not emulated either",
    },
    async () => {
      const img = await capture('captureWindow', String(frame));
      assert.deepEqual([img.width, img.height, img.origin, img.capturePath], [W, H, { x: WX, y: WY }, 'win32:PrintWindow']);
      assertPattern(img, WX, WY);
    },
  );
});
