// The X11 screen backend against a real X server: the private test desktop (Xvfb, no window
// manager) and desktop/apps/canvasApp.py, which paints a known pattern at a known place and prints
// every pointer and key event with root coordinates. Pixels, points and text must match exactly.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/paths.js';
import { OverseerError } from '../../protocol/index.js';
import type { CapturedImage } from './screenBackend.js';
import { openX11Backend, type X11ScreenBackend } from './x11/x11Backend.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const WX = 100;
const WY = 100;
const W = 400;
const H = 300;

interface AppEvent {
  ev: string;
  button?: number;
  n?: number;
  x?: number;
  y?: number;
  dir?: string;
  keyval?: number;
  text?: string;
}

/** The canvas app's stdout log, read as JSON lines; `cursor` marks what earlier steps consumed. */
class EventLog {
  cursor = 0;
  constructor(private readonly file: () => string) {}
  all(): AppEvent[] {
    let text = '';
    try {
      text = readFileSync(this.file(), 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as AppEvent);
  }
  /** Wait until the events after the cursor satisfy `done`; returns them and moves the cursor past them. */
  async until(done: (events: AppEvent[]) => boolean, what: string, timeoutMs = 5000): Promise<AppEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const fresh = this.all().slice(this.cursor);
      if (done(fresh)) {
        this.cursor += fresh.length;
        return fresh;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(fresh)}`);
      await sleep(5);
    }
  }
}

function pixel(img: CapturedImage, x: number, y: number): [number, number, number] {
  const o = (y - img.origin.y) * img.stride + (x - img.origin.x) * 4;
  return [img.data[o + 2] ?? -1, img.data[o + 1] ?? -1, img.data[o] ?? -1]; // BGRX -> RGB
}

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

describe('X11 screen backend on the private desktop', () => {
  let desktop: PrivateDesktop;
  let screen: X11ScreenBackend;
  let sparesBefore: number[];
  let log: EventLog;

  before(async () => {
    desktop = await startPrivateDesktop({ width: 1280, height: 800 });
    await desktop.launch('/usr/bin/python3', [CANVAS, '--x', String(WX), '--y', String(WY)], { waitForWindow: 'Overseer Canvas' });
    const logs = path.join(desktop.dir, 'logs');
    log = new EventLog(() => path.join(logs, readdirSync(logs).find((f) => f.endsWith('-python3.out.log')) ?? 'none'));
    await log.until((evs) => evs.some((e) => e.ev === 'ready'), 'the canvas to draw', 15_000);
    screen = await openX11Backend({ display: desktop.display });
    sparesBefore = await screen.spareKeycodes();
  });

  after(async () => {
    await screen?.close();
    await desktop?.stop();
  });

  it('lists the monitors and names its capture and input paths', async () => {
    const caps = await screen.capabilities();
    assert.equal(caps.session, 'x11');
    assert.deepEqual(caps.screen, { x: 0, y: 0, width: 1280, height: 800 });
    assert.ok(caps.monitors.length >= 1);
    const m = caps.monitors[0];
    assert.deepEqual([m?.x, m?.y, m?.width, m?.height, m?.scale], [0, 0, 1280, 800, 1]);
    assert.match(caps.capture.path, /^x11:(MIT-SHM\.)?GetImage$/);
    assert.equal(caps.input.path, 'x11:XTEST.FakeInput');
    assert.equal(caps.capture.available, true);
    assert.equal(caps.input.available, true);
  });

  it('captures the whole screen with the pattern at its exact pixels, and a region equal to it', async () => {
    let img = await screen.capture();
    for (let i = 0; i < 100 && pixel(img, WX + 50, WY + 50).join() !== '255,0,0'; i++) {
      await sleep(50);
      img = await screen.capture();
    }
    assert.deepEqual([img.width, img.height, img.stride, img.pixelFormat, img.origin], [1280, 800, 1280 * 4, 'bgrx', { x: 0, y: 0 }]);
    assert.deepEqual(pixel(img, WX + 50, WY + 50), [255, 0, 0]);
    assert.deepEqual(pixel(img, WX + 350, WY + 50), [0, 255, 0]);
    assert.deepEqual(pixel(img, WX + 50, WY + 250), [0, 0, 255]);
    assert.deepEqual(pixel(img, WX + 350, WY + 250), [255, 255, 0]);
    // The 1-pixel checker border: black where the window pixel's x+y is even.
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
      assert.deepEqual(pixel(img, WX + x, WY + y), [v, v, v], `border pixel ${x},${y}`);
    }
    assert.deepEqual(pixel(img, WX + 1, WY + 1), [255, 0, 0], 'just inside the border');

    const region = await screen.capture({ x: WX, y: WY, width: W, height: H });
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
    for (let i = 0; i < 10; i++) ms.push((await screen.capture()).captureMs);
    // Core GetImage (the fallback when MIT-SHM is unusable) answers the same bytes.
    const core = await openX11Backend({ display: desktop.display, shm: false });
    try {
      assert.equal((await core.capabilities()).capture.path, 'x11:GetImage');
      const coreImg = await core.capture();
      assert.equal(coreImg.capturePath, 'x11:GetImage');
      const coreRegion = await core.capture({ x: WX, y: WY, width: W, height: H });
      assert.ok(coreRegion.data.equals(region.data), 'core and MIT-SHM region bytes differ');
      const coreMs: number[] = [];
      for (let i = 0; i < 10; i++) coreMs.push((await core.capture()).captureMs);
      console.log(`# full-screen capture 1280x800 via x11:GetImage: p50 ${p50(coreMs).toFixed(1)} ms, min ${Math.min(...coreMs).toFixed(1)} ms`);
    } finally {
      await core.close();
    }
    console.log(`# full-screen capture 1280x800 via ${img.capturePath}: p50 ${p50(ms).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)} ms`);
  });

  it('refuses a region outside the screen and a point off it with invalid_argument', async () => {
    await assert.rejects(
      screen.capture({ x: 1200, y: 0, width: 100, height: 10 }),
      (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument',
    );
    await assert.rejects(screen.click(-1, 5, 'left', 1), (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument');
    await assert.rejects(screen.key(['NoSuchKey'], 'tap'), (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument');
  });

  it('clicks, double-clicks and right-clicks land on the exact pixel', async () => {
    const rtt: number[] = [];
    for (const [x, y] of [
      [WX + 23, WY + 45],
      [WX + 1, WY + 1],
      [WX + 398, WY + 298],
      [WX + 200, WY + 150],
    ] as const) {
      const started = performance.now();
      await screen.click(x, y, 'left', 1);
      const evs = await log.until((e) => e.some((v) => v.ev === 'release'), `click at ${x},${y}`);
      rtt.push(performance.now() - started);
      assert.deepEqual(
        evs.map((e) => [e.ev, e.button, e.x, e.y]),
        [
          ['press', 1, x, y],
          ['release', 1, x, y],
        ],
      );
      assert.deepEqual(await screen.cursor(), { x, y });
    }
    console.log(`# click round trip (XTEST dispatch until the app printed the release): p50 ${p50(rtt).toFixed(1)} ms, min ${Math.min(...rtt).toFixed(1)} ms`);

    await sleep(500); // past GTK's double-click time, so the next click starts a new count
    await screen.click(WX + 300, WY + 100, 'left', 2);
    const dbl = await log.until((e) => e.filter((v) => v.ev === 'release').length === 2, 'double click');
    assert.ok(
      dbl.some((e) => e.ev === 'press' && e.n === 2 && e.x === WX + 300 && e.y === WY + 100),
      JSON.stringify(dbl),
    );

    await sleep(500);
    await screen.click(WX + 60, WY + 220, 'right', 1);
    const right = await log.until((e) => e.some((v) => v.ev === 'release'), 'right click');
    assert.deepEqual(
      right.map((e) => [e.ev, e.button, e.x, e.y]),
      [
        ['press', 3, WX + 60, WY + 220],
        ['release', 3, WX + 60, WY + 220],
      ],
    );
  });

  it('drags from one pixel to another and scrolls one event per detent', async () => {
    await sleep(500);
    await screen.move(WX + 30, WY + 40);
    await screen.button('left', 'down');
    await screen.move(WX + 200, WY + 100);
    await screen.move(WX + 310, WY + 270);
    await screen.button('left', 'up');
    const drag = await log.until((e) => e.some((v) => v.ev === 'release'), 'drag');
    assert.deepEqual(
      drag.map((e) => [e.ev, e.x, e.y]),
      [
        ['press', WX + 30, WY + 40],
        ['release', WX + 310, WY + 270],
      ],
    );

    await screen.scroll(WX + 250, WY + 200, 'down', 3);
    await screen.scroll(WX + 250, WY + 200, 'up', 1);
    await screen.scroll(WX + 250, WY + 200, 'right', 2);
    const wheel = await log.until((e) => e.filter((v) => v.ev === 'scroll').length >= 6, 'scroll');
    assert.deepEqual(
      wheel.map((e) => `${e.dir}@${e.x},${e.y}`),
      ['down', 'down', 'down', 'up', 'right', 'right'].map((d) => `${d}@${WX + 250},${WY + 200}`),
    );
  });

  it('types ASCII, Cyrillic, CJK and emoji exactly, then presses named keys and combos', async () => {
    await screen.move(WX + 200, WY + 150); // no window manager: focus follows the pointer
    const text = 'Hello, World! ~(1+2)=3; Привет, мир: жщшфывапролдэ 漢字かな 😀👍🏽 é€ß';
    const started = performance.now();
    await screen.typeText(text);
    const typedMs = performance.now() - started;
    const typed = await log.until((e) => e.filter((v) => v.ev === 'key' && v.text !== '').length >= [...text].length, 'typed text', 10_000);
    const chars = typed.filter((e) => e.ev === 'key' && e.text !== '').map((e) => e.text ?? '');
    assert.equal(chars.join(''), text);
    console.log(`# typeText of ${[...text].length} code points: ${typedMs.toFixed(0)} ms`);

    await screen.key(['Return'], 'tap');
    await screen.key(['Control_L', 'a'], 'tap');
    const keys = await log.until((e) => e.filter((v) => v.ev === 'key').length >= 3, 'named keys');
    assert.deepEqual(
      keys.map((e) => e.keyval),
      [0xff0d, 0xffe3, 0x61],
    );

    // Typing again after the spare keycodes were restored still comes out exactly.
    await screen.typeText('ёЁ');
    const again = await log.until((e) => e.filter((v) => v.ev === 'key' && v.text !== '').length >= 2, 'second text');
    assert.equal(
      again
        .filter((e) => e.text !== '')
        .map((e) => e.text)
        .join(''),
      'ёЁ',
    );
    // A held modifier would change the text: refused, nothing typed.
    await screen.key(['Shift_L'], 'down');
    await assert.rejects(screen.typeText('x'), (e: unknown) => e instanceof OverseerError && e.info.data?.['reason'] === 'modifier_held');
    await screen.key(['Shift_L'], 'up');
    await log.until((e) => e.some((v) => v.keyval === 0xffe1), 'the Shift press');

    // Every remapped spare keycode is back to NoSymbol.
    assert.ok(sparesBefore.length > 0);
    assert.deepEqual(await screen.spareKeycodes(), sparesBefore);
  });
});
