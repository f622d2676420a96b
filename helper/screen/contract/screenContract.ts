// The screen contract: every behaviour of the ScreenBackend interface (helper/screen/screenBackend.ts)
// against the real backend and the real canvas fixture, which paints a known pattern at a known place
// and logs every input event. Each screen backend's lane runs it (x11.desktop.test.ts,
// windows.desktop.test.ts) with its own ScreenLane; pixels, points and text must match exactly.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import type { CapturedImage } from '../screenBackend.js';
import { p50, pixel, type CanvasEvent, type ScreenLacks, type ScreenLane } from './screenLane.js';

const isCode = (code: string, reason?: string) => (e: unknown) =>
  e instanceof OverseerError && e.code === code && (reason === undefined || e.info.data?.['reason'] === reason);

/** Past both toolkits' double-click time, so the next click starts a new count. */
const CLICK_GAP_MS = 600;

const buttons = (events: CanvasEvent[]) => events.flatMap((e) => (e.kind === 'button' ? [[e.action, e.button, e.n, e.x, e.y] as const] : []));
const ups = (events: CanvasEvent[]): number => events.filter((e) => e.kind === 'button' && e.action === 'up').length;
const keys = (events: CanvasEvent[], action: 'down' | 'up'): string[] => events.flatMap((e) => (e.kind === 'key' && e.action === action ? [e.key] : []));
const textOf = (events: CanvasEvent[]): string => events.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join('');
/** Every key that went down came up again (so no release is left over for the next case). */
const released = (events: CanvasEvent[]): boolean => keys(events, 'down').length === keys(events, 'up').length;

/** The pattern's pixels at a few places and along the checker border, relative to its top-left on screen. */
export function assertPattern(img: CapturedImage, ox: number, oy: number, w: number, h: number): void {
  assert.deepEqual(pixel(img, ox + 50, oy + 50), [255, 0, 0]);
  assert.deepEqual(pixel(img, ox + w - 50, oy + 50), [0, 255, 0]);
  assert.deepEqual(pixel(img, ox + 50, oy + h - 50), [0, 0, 255]);
  assert.deepEqual(pixel(img, ox + w - 50, oy + h - 50), [255, 255, 0]);
  assert.deepEqual(pixel(img, ox + w / 2 - 1, oy + h / 2 - 1), [255, 0, 0], 'last red pixel');
  assert.deepEqual(pixel(img, ox + w / 2, oy + h / 2), [255, 255, 0], 'first yellow pixel');
  for (const [x, y] of [
    [0, 0],
    [1, 0],
    [0, 1],
    [2, 0],
    [w - 1, 0],
    [w - 1, h - 1],
    [0, h - 1],
    [7, h - 1],
  ] as const) {
    const v = (x + y) % 2 === 0 ? 0 : 255;
    assert.deepEqual(pixel(img, ox + x, oy + y), [v, v, v], `border pixel ${x},${y}`);
  }
  assert.deepEqual(pixel(img, ox + 1, oy + 1), [255, 0, 0], 'just inside the border');
}

/**
 * Runs the screen contract against one lane. `extra` declares the lane's own cases inside the same
 * suite (after the contract's, sharing its lane), for what only that backend has.
 */
export function screenContract<L extends ScreenLane>(title: string, makeLane: () => Promise<L>, extra?: (lane: () => L) => void): void {
  describe(title, () => {
    let lane: L;
    /** Skips a case the lane lacks, saying why; true when skipped. */
    const lacking = (t: { skip(message?: string): void }, what: keyof ScreenLacks): boolean => {
      const why = lane.lacks[what];
      if (why !== undefined) t.skip(why);
      return why !== undefined;
    };
    before(async () => {
      lane = await makeLane();
    });
    after(async () => {
      await lane?.stop();
    });

    it('names its capture and input paths, its window capture or its absence, and the monitors', async (t) => {
      const caps = await lane.screen.capabilities();
      const e = lane.expect;
      assert.equal(caps.session, e.session);
      assert.match(caps.capture.path, e.capturePath);
      assert.equal(caps.input.path, e.inputPath);
      assert.equal(caps.capture.available, true);
      assert.equal(caps.input.available, true);
      assert.equal(
        lane.screen.captureWindow === undefined,
        lane.lacks.windowCapture !== undefined,
        'the lane says it lacks captureWindow exactly when the backend has none',
      );
      if (e.windowCapture === undefined) assert.equal(caps.windowCapture, undefined, 'no window-bound capture path: none is named');
      else {
        assert.equal(caps.windowCapture?.path, e.windowCapture.path);
        for (const d of e.windowCapture.degradations) assert.ok(caps.windowCapture.degradations.includes(d), `names ${d}`);
      }
      assert.ok(caps.monitors.length >= 1);
      assert.equal(caps.monitors.filter((m) => m.primary).length, e.primaryMonitors, JSON.stringify(caps.monitors));
      if (e.screen !== undefined) {
        assert.deepEqual(caps.screen, e.screen);
        const m = caps.monitors[0];
        assert.deepEqual([m?.x, m?.y, m?.width, m?.height, m?.primary], [e.screen.x, e.screen.y, e.screen.width, e.screen.height, e.primaryMonitors === 1]);
      }
      if (e.monitorScale !== undefined) for (const m of caps.monitors) assert.equal(m.scale, e.monitorScale);
      t.diagnostic(`# monitors ${JSON.stringify(caps.monitors)}`);
    });

    it('lists the canvas in the window stack with its process, title and rectangle', async (t) => {
      const { canvas } = lane;
      const stack = await lane.screen.windows();
      if (lane.lacks.windowStack !== undefined) {
        assert.deepEqual(stack, [], 'a backend that cannot know where windows are lists none (never a made-up place)');
        assert.equal(await lane.screen.focusedWindow(), undefined);
        t.skip(lane.lacks.windowStack);
        return;
      }
      const found = stack.find((w) => w.title === canvas.title);
      assert.ok(found !== undefined, JSON.stringify(stack.map((w) => w.title)));
      assert.match(found.handle, lane.handlePattern);
      assert.deepEqual(found.rect, { x: canvas.x, y: canvas.y, width: canvas.width, height: canvas.height });
      if (lane.lacks.windowPids !== undefined) {
        assert.equal(found.pid, undefined, 'a backend that cannot name processes names none (never a made-up pid)');
        t.diagnostic(`# no pid: ${lane.lacks.windowPids}`);
      } else if (canvas.pid !== undefined) assert.equal(found.pid, canvas.pid);
      else assert.ok((found.pid ?? 0) > 0, 'the lane cannot know the Windows pid of what it launched; any pid is named');
      const focused = await lane.screen.focusedWindow();
      assert.ok(focused === undefined || lane.handlePattern.test(focused), String(focused));
    });

    it('captures the whole screen with the pattern at its exact pixels, checker border included, and a region equal to it', async (t) => {
      const { screen, canvas: c } = lane;
      if (lane.quirks.pointerInScreenshots !== undefined) {
        const at = (await screen.capabilities()).screen;
        await screen.move(at.x + at.width - 1, at.y + at.height - 1);
        t.diagnostic(`# the pointer was moved off the canvas: ${lane.quirks.pointerInScreenshots}`);
      }
      let img = await screen.capture();
      for (let i = 0; i < 100 && pixel(img, c.x + 50, c.y + 50).join() !== '255,0,0'; i++) {
        await sleep(50);
        img = await screen.capture();
      }
      const caps = await screen.capabilities();
      assert.deepEqual(
        [img.width, img.height, img.stride, img.pixelFormat, img.origin, img.capturePath],
        [caps.screen.width, caps.screen.height, caps.screen.width * 4, 'bgrx', { x: caps.screen.x, y: caps.screen.y }, caps.capture.path],
      );
      assertPattern(img, c.x, c.y, c.width, c.height);
      const region = await screen.capture({ x: c.x, y: c.y, width: c.width, height: c.height });
      assert.deepEqual([region.width, region.height, region.origin], [c.width, c.height, { x: c.x, y: c.y }]);
      for (let y = c.y; y < c.y + c.height; y++)
        for (let x = c.x; x < c.x + c.width; x++) if (pixel(region, x, y).join() !== pixel(img, x, y).join()) assert.fail(`region pixel ${x},${y} differs`);
      const ms: number[] = [];
      for (let i = 0; i < 10; i++) ms.push((await screen.capture()).captureMs);
      t.diagnostic(
        `# full-screen capture ${img.width}x${img.height} via ${img.capturePath}: p50 ${p50(ms).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)} ms`,
      );
    });

    it('refuses a region off the screen, a point off it, a click count of 4, an unknown key and a lone surrogate with invalid_argument', async () => {
      const { screen } = lane;
      const { x, y, width } = (await screen.capabilities()).screen;
      await assert.rejects(screen.capture({ x: x + width - 100, y, width: 101, height: 10 }), isCode('invalid_argument'));
      await assert.rejects(screen.capture({ x: x + width - 80, y, width: 100, height: 10 }), isCode('invalid_argument'));
      await assert.rejects(screen.click(x - 1, y + 5, 'left', 1), isCode('invalid_argument'));
      await assert.rejects(screen.click(x + 5, y + 5, 'left', 4), isCode('invalid_argument'));
      await assert.rejects(screen.key(['NoSuchKey'], 'tap'), isCode('invalid_argument'));
      await assert.rejects(screen.typeText('a\ud83d'), isCode('invalid_argument'));
    });

    it('moves the pointer to every pixel of a row and a column exactly', async (t) => {
      if (lacking(t, 'cursorReadBack')) return;
      const { screen } = lane;
      const { x: vx, y: vy, width, height } = (await screen.capabilities()).screen;
      const misses: string[] = [];
      const probe = async (x: number, y: number): Promise<void> => {
        await screen.move(x, y);
        const at = await screen.cursor();
        if (at.x !== x || at.y !== y) misses.push(`${x},${y}->${at.x},${at.y}`);
      };
      for (let x = vx; x < vx + width; x++) await probe(x, vy + 37);
      for (let y = vy; y < vy + height; y++) await probe(vx + width - 1, y);
      assert.deepEqual(misses.slice(0, 20), [], `${misses.length} pixels missed`);
    });

    it('clicks, double-clicks, right- and middle-clicks land on the exact pixel', async (t) => {
      const { screen, events, canvas: c } = lane;
      const rtt: number[] = [];
      for (const [x, y] of [
        [c.x + 23, c.y + 45],
        [c.x + 1, c.y + 1],
        [c.x + c.width - 2, c.y + c.height - 2],
        [c.x + c.width / 2, c.y + c.height / 2],
      ] as const) {
        await sleep(CLICK_GAP_MS);
        const started = performance.now();
        await screen.click(x, y, 'left', 1);
        const evs = await events.until((e) => ups(e) === 1, `click at ${x},${y}`);
        rtt.push(performance.now() - started);
        assert.deepEqual(buttons(evs), [
          ['down', 1, 1, x, y],
          ['up', 1, 1, x, y],
        ]);
        assert.deepEqual(await screen.cursor(), { x, y });
      }
      t.diagnostic(`# click round trip (dispatch until the canvas logged the release): p50 ${p50(rtt).toFixed(1)} ms, min ${Math.min(...rtt).toFixed(1)} ms`);

      await sleep(CLICK_GAP_MS);
      const [dx, dy] = [c.x + 300, c.y + 100];
      await screen.click(dx, dy, 'left', 2);
      const dbl = await events.until((e) => ups(e) === 2, 'double click');
      // The second press is the double click's (Windows: WM_LBUTTONDBLCLK in its place; GTK: 2BUTTON_PRESS after it).
      const second =
        lane.quirks.doublePressAfterPress !== undefined
          ? [['down', 1, 1, dx, dy] as const, ['down', 1, 2, dx, dy] as const]
          : [['down', 1, 2, dx, dy] as const];
      assert.deepEqual(buttons(dbl), [['down', 1, 1, dx, dy], ['up', 1, 1, dx, dy], ...second, ['up', 1, 1, dx, dy]]);

      for (const [button, code, x, y] of [
        ['right', 3, c.x + 60, c.y + 220],
        ['middle', 2, c.x + 61, c.y + 221],
      ] as const) {
        await sleep(CLICK_GAP_MS);
        await screen.click(x, y, button, 1);
        const evs = await events.until((e) => ups(e) === 1, `${button} click`);
        assert.deepEqual(buttons(evs), [
          ['down', code, 1, x, y],
          ['up', code, 1, x, y],
        ]);
      }
    });

    it('drags from one pixel to another and scrolls one wheel event per detent, at the point', async () => {
      const { screen, events, canvas: c } = lane;
      await sleep(CLICK_GAP_MS);
      await screen.move(c.x + 30, c.y + 40);
      await screen.button('left', 'down');
      await screen.move(c.x + 200, c.y + 100);
      await screen.move(c.x + 310, c.y + 270);
      await screen.button('left', 'up');
      const drag = await events.until((e) => ups(e) === 1, 'drag');
      assert.deepEqual(buttons(drag), [
        ['down', 1, 1, c.x + 30, c.y + 40],
        ['up', 1, 1, c.x + 310, c.y + 270],
      ]);

      await screen.scroll(c.x + 250, c.y + 200, 'down', 3);
      await screen.scroll(c.x + 250, c.y + 200, 'up', 1);
      await screen.scroll(c.x + 251, c.y + 201, 'right', 2);
      await screen.scroll(c.x + 251, c.y + 201, 'left', 1);
      const wheel = (await events.until((e) => e.filter((v) => v.kind === 'scroll').length >= 7, 'scroll')).filter((e) => e.kind === 'scroll');
      const client = lane.quirks.horizontalWheelInClientCoordinates !== undefined;
      const [hx, hy] = client ? [251, 201] : [c.x + 251, c.y + 201];
      const [right, left] = lane.quirks.horizontalWheelReversed !== undefined ? ['left', 'right'] : ['right', 'left'];
      assert.deepEqual(
        wheel.map((e) => `${e.dir} ${e.steps}@${e.x},${e.y}`),
        [...['down', 'down', 'down', 'up'].map((d) => `${d} 1@${c.x + 250},${c.y + 200}`), ...[right, right, left].map((d) => `${d} 1@${hx},${hy}`)],
      );
      assert.deepEqual(await screen.cursor(), { x: c.x + 251, y: c.y + 201 });
    });

    it('types ASCII, Cyrillic, CJK and emoji exactly, and again after its keyboard changes were restored', async (t) => {
      const { screen, events, canvas: c } = lane;
      await screen.click(c.x + c.width / 2, c.y + c.height / 2, 'left', 1); // focus: the canvas takes it on a click
      await events.until((e) => ups(e) === 1, 'focus click');
      if (lane.lacks.charactersBeyondLayout !== undefined) {
        // What the layout lacks is refused before anything is typed; what it has is typed exactly.
        await assert.rejects(screen.typeText('ab Привет 漢字 😀'), (e: unknown) => {
          assert.ok(isCode('input_unavailable', 'not_in_keymap')(e), String(e));
          assert.deepEqual((e as OverseerError).info.data?.['characters'], [
            'U+041F',
            'U+0440',
            'U+0438',
            'U+0432',
            'U+0435',
            'U+0442',
            'U+6F22',
            'U+5B57',
            'U+1F600',
          ]);
          return true;
        });
        const ascii = 'Hello, World! ~(1+2)=3; {[<>]} @#$%^&*_|\\\'"`';
        const started = performance.now();
        await screen.typeText(ascii);
        const typedMs = performance.now() - started;
        const typed = await events.until((e) => textOf(e).length >= ascii.length && released(e), 'typed text');
        assert.equal(textOf(typed), ascii, 'only the ASCII text arrived: nothing of the refused one');
        t.diagnostic(`# typeText of ${ascii.length} characters: ${typedMs.toFixed(0)} ms; beyond the layout: ${lane.lacks.charactersBeyondLayout}`);
        return;
      }
      const text = 'Hello, World! ~(1+2)=3; Привет, мир: жщшфывапролдэ 漢字かな 😀👍🏽 é€ß';
      const started = performance.now();
      await screen.typeText(text);
      const typedMs = performance.now() - started;
      const typed = await events.until((e) => textOf(e).length >= text.length && released(e), 'typed text');
      assert.equal(textOf(typed), text);
      t.diagnostic(`# typeText of ${[...text].length} code points (${text.length} UTF-16 units): ${typedMs.toFixed(0)} ms`);

      await screen.typeText('ёЁ');
      const again = await events.until((e) => textOf(e).length >= 2 && released(e), 'second text');
      assert.equal(textOf(again), 'ёЁ');
    });

    it('presses named keys and a combo, and releases the combo in reverse', async () => {
      const { screen, events } = lane;
      await screen.key(['Return'], 'tap');
      await screen.key(['Control_L', 'a'], 'tap');
      await screen.key(['Left'], 'tap');
      await screen.key(['F5'], 'tap');
      const evs = await events.until((e) => keys(e, 'up').length >= 5, 'named keys');
      assert.deepEqual(keys(evs, 'down'), ['Return', 'Control_L', 'a', 'Left', 'F5']);
      assert.deepEqual(keys(evs, 'up'), ['Return', 'a', 'Control_L', 'Left', 'F5'], 'a combo releases in reverse');
      assert.equal(textOf(evs), lane.namedKeyText);
    });

    it('refuses to type while a modifier is held, and types nothing', async () => {
      const { screen, events } = lane;
      await screen.key(['Shift_L'], 'down');
      await assert.rejects(screen.typeText('x'), isCode('input_unavailable', 'modifier_held'));
      await screen.key(['Shift_L'], 'up');
      const shift = await events.until((e) => keys(e, 'up').includes('Shift_L'), 'the Shift press');
      assert.deepEqual(
        shift.map((e) => (e.kind === 'key' ? `${e.action} ${e.key}` : JSON.stringify(e))),
        ['down Shift_L', 'up Shift_L'],
      );
    });

    it('captures a covered window of its own process by its handle, while the screen shows the cover', async (t) => {
      if (lacking(t, 'windowCapture')) return;
      const { screen, canvas: c } = lane;
      assert.ok(
        screen.captureWindow !== undefined && lane.coverCanvas !== undefined && lane.openOwnWindow !== undefined,
        'a lane with window capture covers the canvas and opens its own window',
      );
      await assert.rejects(screen.captureWindow('not-a-handle'), isCode('invalid_argument'));
      lane.coverCanvas();
      let shot = await screen.capture();
      for (let i = 0; i < 100 && pixel(shot, c.x + 50, c.y + 50).join() === '255,0,0'; i++) {
        await sleep(100);
        shot = await screen.capture();
      }
      assert.notDeepEqual(pixel(shot, c.x + 50, c.y + 50), [255, 0, 0], 'the cover hides the canvas on screen');
      // A window of the backend's own process at the bottom of the z-order, under the cover too.
      const own = await lane.openOwnWindow(200, 200);
      shot = await screen.capture({ x: 200, y: 200, width: c.width, height: c.height });
      assert.notDeepEqual(pixel(shot, 250, 250), [255, 0, 0], 'the own window is covered on screen');
      const img = await screen.captureWindow(own);
      const caps = await screen.capabilities();
      assert.deepEqual([img.width, img.height, img.origin, img.capturePath], [c.width, c.height, { x: 200, y: 200 }, caps.windowCapture?.path]);
      assertPattern(img, 200, 200, c.width, c.height);
      await assert.rejects(screen.captureWindow('12345'), isCode('capture_unavailable', 'no_such_window'));
    });

    it("captures another application's covered window by its handle", async (t) => {
      if (lacking(t, 'windowCapture') || lacking(t, 'otherProcessWindowCapture')) return;
      const { screen, canvas: c } = lane;
      assert.ok(screen.captureWindow !== undefined && lane.canvasHandle !== undefined);
      const img = await screen.captureWindow(lane.canvasHandle);
      const caps = await screen.capabilities();
      assert.deepEqual([img.width, img.height, img.origin, img.capturePath], [c.width, c.height, { x: c.x, y: c.y }, caps.windowCapture?.path]);
      assertPattern(img, c.x, c.y, c.width, c.height);
    });

    extra?.(() => lane);
  });
}
