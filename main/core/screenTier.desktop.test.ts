// The screen tier through the real server, helper and X server: a real MCP client takes
// screenshots of the canvas app (desktop/apps/canvasApp.py, a known pattern that reports every
// pointer and key event with root coordinates) and drives it with supervised input that a person
// approves, denies or brakes over the real UI channel. Where input lands is read from the app.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { imageToPhysical, uiTitle, type PendingApproval, type Receipt, type ScreenshotAnswer } from '../../protocol/index.js';
import { decodePng, rgbAt } from '../testing/pngDecode.js';
import { UiClient, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../testing/serveHarness.js';
import { exportJournal } from './journal/index.js';
import { REPO_ROOT } from './runtime/paths.js';
import { warp } from '../testing/pointer.js';
import { cardIs, type CardOf } from '../testing/cards.js';
import { until } from '../testing/until.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;
const WX = 100;
const WY = 100;
const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const YELLOW = [255, 255, 0];

interface AppEvent {
  ev: string;
  button?: number;
  n?: number;
  x?: number;
  y?: number;
  dir?: string;
  text?: string;
}

/** Every event a canvas app printed, from its stdout log. */
function events(desktop: PrivateDesktop, index = 0): AppEvent[] {
  const logs = path.join(desktop.dir, 'logs');
  const file = readdirSync(logs)
    .filter((f) => f.endsWith('-python3.out.log'))
    .sort()[index];
  if (file === undefined) return [];
  return readFileSync(path.join(logs, file), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as AppEvent);
}

describe('the screen tier through the real server', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;

  const shot = async (args: Record<string, unknown> = {}): Promise<{ answer: ScreenshotAnswer; png: ReturnType<typeof decodePng> }> => {
    const r = await agent.callTool({ name: 'screenshot', arguments: args });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    const content = r.content as { type: string; data?: string; mimeType?: string }[];
    const image = content.find((c) => c.type === 'image');
    assert.equal(image?.mimeType, 'image/png');
    return { answer: r.structuredContent as ScreenshotAnswer, png: decodePng(Buffer.from(image?.data ?? '', 'base64')) };
  };
  /** Starts an input call and returns its card once the UI shows it. */
  const carded = async (name: string, args: Record<string, unknown>): Promise<{ card: CardOf<'screen'>; answer: Promise<Receipt> }> => {
    const since = ui.mark();
    const answer = toolJson<Receipt>(agent, name, args, { timeout: 60_000 });
    const list = await Promise.race([
      ui.waitFor<PendingApproval[]>('pending', (l) => l.some(cardIs('screen')), 15_000, since),
      answer.then((a) => {
        throw new Error(`answered before a card: ${JSON.stringify(a)}`);
      }),
    ]);
    return { card: list.find(cardIs('screen')) as CardOf<'screen'>, answer };
  };
  const approve = (card: PendingApproval): Promise<unknown> => ui.command('approve', { approval_id: card.approval_id });

  before(async () => {
    desktop = await startPrivateDesktop({ width: 1280, height: 800 });
    await desktop.launch('/usr/bin/python3', [CANVAS, '--x', String(WX), '--y', String(WY)], { waitForWindow: 'Overseer Canvas' });
    await until(() => (events(desktop).some((e) => e.ev === 'ready') ? true : undefined), 'the canvas to draw', 15_000);
    s = await serve(desktop.env);
    agent = await httpClient(s, 'screen-agent');
    ui = await UiClient.connect(s);
  });

  after(async () => {
    ui?.close();
    await agent?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('lists the screen tools, and capabilities names the X11 paths and the monitor', async () => {
    const names = (await agent.listTools()).tools.map((t) => t.name);
    for (const n of [
      'capabilities',
      'screenshot',
      'click',
      'double_click',
      'triple_click',
      'left_click_drag',
      'scroll',
      'type_text',
      'key',
      'hold_key',
      'wait',
    ])
      assert.ok(names.includes(n), n);
    const caps = await toolJson<{ session: string; screen: unknown; capture: { path: string }; input: { path: string } }>(agent, 'capabilities');
    assert.equal(caps.session, 'x11');
    assert.deepEqual(caps.screen, { x: 0, y: 0, width: 1280, height: 800 });
    assert.match(caps.capture.path, /^x11:(MIT-SHM\.)?GetImage$/);
    assert.equal(caps.input.path, 'x11:XTEST.FakeInput');
  });

  it('answers a screenshot as an image with its exact transform, the pattern where the transform says, at odd sizes too', async () => {
    for (const [maxW, maxH] of [
      [1280, 800],
      [333, 999],
      [641, 401],
    ] as const) {
      const { answer, png } = await shot({ max_width: maxW, max_height: maxH });
      assert.equal(png.width, answer.width);
      assert.equal(png.height, answer.height);
      assert.ok(answer.width <= maxW && answer.height <= maxH);
      assert.ok(answer.width === maxW || answer.height === maxH, 'one axis at its maximum');
      assert.deepEqual(answer.origin, { x: 0, y: 0 });
      assert.equal(answer.approx_tokens, Math.ceil((answer.width * answer.height) / 750));
      // Each quadrant's center, mapped to image pixels by the inverse transform, shows its colour; and back again lands in the quadrant.
      for (const [px, py, rgb] of [
        [WX + 100, WY + 75, RED],
        [WX + 300, WY + 75, GREEN],
        [WX + 100, WY + 225, BLUE],
        [WX + 300, WY + 225, YELLOW],
      ] as const) {
        const ix = Math.floor(px / answer.scale_x);
        const iy = Math.floor(py / answer.scale_y);
        assert.deepEqual(rgbAt(png, ix, iy), rgb, `${maxW}x${maxH}: image ${ix},${iy}`);
        const back = imageToPhysical(answer, ix, iy);
        assert.ok(Math.abs(back.x - px) <= Math.ceil(answer.scale_x) && Math.abs(back.y - py) <= Math.ceil(answer.scale_y));
      }
    }
    const window = (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Canvas');
    const { answer, png } = await shot({ window: window?.window });
    assert.deepEqual([answer.width, answer.height, answer.origin, answer.scale_x], [400, 300, { x: WX, y: WY }, 1]);
    assert.deepEqual(rgbAt(png, 50, 50), RED);
    assert.deepEqual(rgbAt(png, 0, 0), [0, 0, 0], 'checker border: black where x+y is even');
    assert.deepEqual(rgbAt(png, 1, 0), [255, 255, 255]);
  });

  it('shows the person the marked picture, then clicks exactly the physical pixel the transform names', async () => {
    const { answer } = await shot({ max_width: 641, max_height: 401 });
    const ix = 93;
    const iy = 77;
    const physical = imageToPhysical(answer, ix, iy);
    const before = events(desktop).length;
    const { card, answer: receiptP } = await carded('click', { x: ix, y: iy });
    const screen = card.screen;
    assert.ok(screen !== undefined);
    assert.equal(screen.card.planned, true);
    assert.deepEqual(screen.card.point, { x: ix, y: iy });
    assert.deepEqual([screen.card.width, screen.card.height], [answer.width, answer.height]);
    // Cards reach the UI without their pixels; the UI asks for each picture by id.
    assert.equal(screen.card.picture, '');
    const whole = await ui.command<{ picture: string }>('card_picture', { approval_id: card.approval_id, which: 'screen' });
    assert.match(whole.picture, /^data:image\/png;base64,/);
    assert.deepEqual(screen.detail.physical, physical);
    assert.equal(screen.detail.window?.title, 'Overseer Canvas');
    assert.ok(
      screen.card.crop !== undefined && screen.card.crop.width > 0 && screen.card.crop.width <= 400 && screen.card.crop.whole !== true,
      `the crop around a point with something to see is at most 400 px wide, cut to the region it is taken from (docs/supervision.md#card-pictures), got ${screen.card.crop?.width}`,
    );
    const point = screen.card.crop.point;
    assert.ok(point !== undefined, 'the crop marks the point');
    const cropPicture = (await ui.command<{ picture: string }>('card_picture', { approval_id: card.approval_id, which: 'crop' })).picture;
    const crop = decodePng(Buffer.from(cropPicture.split(',')[1] ?? '', 'base64'));
    assert.deepEqual(rgbAt(crop, point.x, point.y), RED, 'the crop is full resolution around the point');
    assert.equal(events(desktop).length, before, 'nothing dispatched before the person decided');
    await approve(card);
    const receipt = await receiptP;
    assert.equal(receipt.outcome, 'completed', JSON.stringify(receipt));
    assert.equal(receipt.path, 'x11:XTEST.FakeInput');
    assert.equal(receipt.decision?.verdict, 'approved');
    const press = await until(
      () =>
        events(desktop)
          .slice(before)
          .find((e) => e.ev === 'press'),
      'the press',
    );
    assert.deepEqual([press.x, press.y, press.button, press.n], [physical.x, physical.y, 1, 1]);
    // The timeline keeps a small picture of the screen after the click: a private file, bounded, by its hash in the receipt.
    assert.match(receipt.screen?.after_sha256 ?? '', /^[0-9a-f]{64}$/);
    const kept = await ui.command<{ picture: string }>('receipt_picture', { receipt_id: receipt.receipt_id });
    assert.match(kept.picture, /^data:image\/jpeg;base64,/);
    assert.equal(statSync(path.join(s.dataDir, 'pictures', `${receipt.receipt_id}.jpg`)).mode & 0o777, 0o600);
    await assert.rejects(ui.command('receipt_picture', { receipt_id: '../token' }), /invalid_argument/);
  });

  it('dispatches nothing when the person denies, and brakes refuse before any card', async () => {
    await shot();
    const before = events(desktop).length;
    const { card, answer } = await carded('double_click', { x: 200, y: 200 });
    await ui.command('deny', { approval_id: card.approval_id, reason: 'not that' });
    const receipt = await answer;
    assert.equal(receipt.outcome, 'refused');
    assert.equal(receipt.refusal?.code, 'denied');
    await ui.command('brake', { action: 'stop' });
    try {
      const braked = await toolJson<Receipt>(agent, 'click', { x: 200, y: 200 });
      assert.equal(braked.refusal?.code, 'braked');
    } finally {
      await ui.command('brake', { action: 'resume' });
    }
    await sleep(200);
    assert.equal(
      events(desktop)
        .slice(before)
        .filter((e) => e.ev === 'press').length,
      0,
    );
  });

  it('refuses stale_screen when the screen changed, before the card or after approval, and dispatches nothing', async () => {
    const { answer } = await shot();
    // Yellow bottom-right quadrant of the canvas, where a second window will open.
    const ix = Math.floor((WX + 320) / answer.scale_x);
    const iy = Math.floor((WY + 260) / answer.scale_y);
    const before = events(desktop).length;
    const { card, answer: pending } = await carded('click', { x: ix, y: iy });
    const cover = await desktop.launch('/usr/bin/python3', [CANVAS, '--x', String(WX + 300), '--y', String(WY + 240), '--title', 'Cover'], {
      waitForWindow: 'Cover',
    });
    await sleep(300);
    await approve(card);
    const receipt = await pending;
    assert.equal(receipt.outcome, 'refused', JSON.stringify(receipt));
    assert.equal(receipt.refusal?.code, 'stale_screen');
    assert.equal(receipt.refusal?.data?.['reason'], 'region_changed');
    assert.equal(receipt.action_call_made, false);
    // Planned on the same, now outdated screenshot: refused before any card.
    const early = await toolJson<Receipt>(agent, 'click', { x: ix, y: iy, screenshot: answer.screenshot });
    assert.equal(early.refusal?.code, 'stale_screen');
    await sleep(200);
    assert.equal(
      events(desktop)
        .slice(before)
        .filter((e) => e.ev === 'press').length,
      0,
    );
    await cover.stop();
  });

  it('masks the supervisor’s own window out of screenshots and refuses input aimed at it, or keys while it has the focus, before any card', async () => {
    const title = uiTitle(0);
    const own = await desktop.launch('/usr/bin/python3', [CANVAS, '--x', '700', '--y', '300', '--title', title], { waitForWindow: title });
    try {
      const { answer, png } = await shot();
      const ix = Math.floor(900 / answer.scale_x);
      const iy = Math.floor(450 / answer.scale_y);
      assert.ok(
        answer.masked.some((m) => ix >= m.x && ix < m.x + m.w && iy >= m.y && iy < m.y + m.h),
        `masked: ${JSON.stringify(answer.masked)}`,
      );
      assert.deepEqual(rgbAt(png, ix, iy), [0, 0, 0], 'its pixels are black');
      const since = ui.mark();
      const click = await toolJson<Receipt>(agent, 'click', { x: ix, y: iy });
      assert.equal(click.refusal?.code, 'excluded_target');
      const raw = await toolJson<Receipt>(agent, 'move', { x: 750, y: 350, raw: true });
      assert.equal(raw.refusal?.code, 'excluded_target');
      warp(desktop.display, 750, 350);
      const keys = await toolJson<Receipt>(agent, 'type_text', { text: 'secret' });
      assert.equal(keys.refusal?.code, 'excluded_target');
      const pend = ui.events.slice(since).filter((e) => e.event === 'pending' && (e.data as PendingApproval[]).length > 0);
      assert.equal(pend.length, 0, 'no card was shown');
    } finally {
      await own.stop();
    }
  });

  it('types any Unicode exactly and presses key combos, into the window under the pointer', async () => {
    warp(desktop.display, WX + 200, WY + 150);
    const before = events(desktop).length;
    const text = 'aZ ж中😀';
    const { card, answer } = await carded('type_text', { text });
    assert.equal(card.text, text);
    assert.equal(card.screen.card.planned, false, 'keys name no screenshot: the card shows a capture made for it');
    await approve(card);
    assert.equal((await answer).outcome, 'completed');
    const typed = await until(() => {
      const t = events(desktop)
        .slice(before)
        .filter((e) => e.ev === 'key')
        .map((e) => e.text ?? '')
        .join('');
      return t === text ? t : undefined;
    }, `the text ${text}`);
    assert.equal(typed, text);
    const mid = events(desktop).length;
    const combo = await carded('key', { keys: 'ctrl+shift+Return esc' });
    assert.equal(combo.card.screen.detail.keys, 'ctrl+shift+Return Escape');
    await approve(combo.card);
    assert.equal((await combo.answer).outcome, 'completed');
    await until(
      () =>
        events(desktop)
          .slice(mid)
          .filter((e) => e.ev === 'key').length >= 4
          ? true
          : undefined,
      'four key presses',
    );
  });

  it('lands triple clicks, drags, scroll detents and raw physical points at the exact pixels', async () => {
    const { answer } = await shot({ max_width: 641, max_height: 401 });
    const before = events(desktop).length;
    const triple = await carded('triple_click', { x: 100, y: 80 });
    await approve(triple.card);
    assert.equal((await triple.answer).outcome, 'completed');
    const at = imageToPhysical(answer, 100, 80);
    // GTK reports each press, then its own double- and triple-press events (n = 2, 3) after the second and third.
    const presses = await until(() => {
      const p = events(desktop)
        .slice(before)
        .filter((e) => e.ev === 'press');
      return p.some((e) => e.n === 3) ? p : undefined;
    }, 'a triple press');
    assert.ok(presses.every((e) => e.x === at.x && e.y === at.y && e.button === 1));
    assert.deepEqual(
      presses.map((e) => e.n),
      [1, 1, 2, 1, 3],
    );

    const mid = events(desktop).length;
    const drag = await carded('left_click_drag', { x: 90, y: 70, to_x: 150, to_y: 110 });
    assert.deepEqual(
      [drag.card.screen.card.point, drag.card.screen.card.to],
      [
        { x: 90, y: 70 },
        { x: 150, y: 110 },
      ],
    );
    await approve(drag.card);
    assert.equal((await drag.answer).outcome, 'completed');
    const from = imageToPhysical(answer, 90, 70);
    const to = imageToPhysical(answer, 150, 110);
    const release = await until(
      () =>
        events(desktop)
          .slice(mid)
          .find((e) => e.ev === 'release'),
      'the release',
    );
    const press = events(desktop)
      .slice(mid)
      .find((e) => e.ev === 'press');
    assert.deepEqual([press?.x, press?.y, release.x, release.y], [from.x, from.y, to.x, to.y]);

    const third = events(desktop).length;
    const scroll = await carded('scroll', { x: 120, y: 90, direction: 'down', amount: 4 });
    assert.equal(scroll.card.screen.card.direction, 'down');
    await approve(scroll.card);
    assert.equal((await scroll.answer).outcome, 'completed');
    const wheel = imageToPhysical(answer, 120, 90);
    const wheelEvents = (): AppEvent[] =>
      events(desktop)
        .slice(third)
        .filter((e) => e.ev === 'scroll');
    await until(() => (wheelEvents().length >= 4 ? true : undefined), 'four detents');
    await sleep(200);
    assert.equal(wheelEvents().length, 4, 'one event per detent');
    assert.ok(wheelEvents().every((e) => e.dir === 'down' && e.x === wheel.x && e.y === wheel.y));

    const fourth = events(desktop).length;
    const raw = await carded('click', { x: WX + 399, y: WY + 299, raw: true, button: 'right' });
    assert.equal(raw.card.screen.card.planned, false, 'raw names no screenshot: the card shows one made for it');
    await approve(raw.card);
    const r = await raw.answer;
    assert.equal(r.outcome, 'completed');
    assert.deepEqual(r.screen?.physical, { x: WX + 399, y: WY + 299 });
    const rp = await until(
      () =>
        events(desktop)
          .slice(fourth)
          .find((e) => e.ev === 'press'),
      'the raw press',
    );
    assert.deepEqual([rp.x, rp.y, rp.button], [WX + 399, WY + 299, 3]);
  });

  it('answers cursor_position in physical and image pixels, and wait waits', async () => {
    warp(desktop.display, 640, 400);
    const { answer } = await shot();
    const c = await toolJson<{ x: number; y: number; image?: { x: number; y: number }; screenshot?: string }>(agent, 'cursor_position');
    assert.deepEqual([c.x, c.y, c.screenshot], [640, 400, answer.screenshot]);
    assert.deepEqual(c.image, { x: Math.floor(640 / answer.scale_x), y: Math.floor(400 / answer.scale_y) });
    const w = await toolJson<{ waited_ms: number }>(agent, 'wait', { ms: 150 });
    assert.ok(w.waited_ms >= 140);
  });

  it('is a tier of progressive exposure, and the person can turn it off', async () => {
    const late = await httpClient(s, 'progressive-agent', { tiers: [] });
    try {
      await tool(late, 'computer_use_activate');
      assert.equal((await late.listTools()).tools.length, 1 + 2 + 5, 'the accessibility tier by default, and the two that talk to the person');
      const refused = await toolJson(late, 'screenshot');
      assert.equal(refused.error?.code, 'invalid_argument');
      assert.equal(refused.error?.data?.['reason'], 'tier_inactive');
      assert.match(refused.error?.detail ?? '', /computer_use_activate \{"tiers": \["screen"\]\}/);
      await tool(late, 'computer_use_activate', { tiers: ['screen'] });
      assert.equal((await late.listTools()).tools.length, 1 + 2 + 20);
      assert.equal((await tool(late, 'capabilities')).isError, false);
    } finally {
      await late.close();
    }
    await ui.command('update_settings', { screen_tools: false });
    const plain = await httpClient(s, 'plain-agent');
    try {
      assert.deepEqual(
        (await plain.listTools()).tools.map((t) => t.name),
        ['computer_use_activate', 'computer_ask', 'computer_ctrl', 'window_list', 'window_read', 'element_find', 'element_act', 'action_wait'],
        'the screen tier, activated, is not listed while the person does not offer it',
      );
      const off = await tool(plain, 'click', { x: 1, y: 1, raw: true });
      assert.match(off.text, /^error invalid_argument: click: the screen tier is turned off/);
    } finally {
      await plain.close();
      await ui.command('update_settings', { screen_tools: true });
    }
  });

  it('refuses ambiguous coordinates with invalid_argument', async () => {
    await shot();
    for (const args of [
      { x: 10.5, y: 3 },
      { x: [1, 2], y: 9 },
      { x: '0x20', y: 1 },
      { x: 5000, y: 5 },
      { coordinate: [1, 2], x: 3, y: 4 },
    ]) {
      const r = await tool(agent, 'click', args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(r.text, /^error invalid_argument/);
    }
  });

  it('masks typed text everywhere while a password field has the focus', async () => {
    const app = await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '5'], { waitForWindow: 'Overseer Fixture' });
    try {
      await shot();
      const list = await toolJson<{ windows: { window: string; title: string; rect?: { cx: number; cy: number } }[] }>(agent, 'window_list');
      const fixture = list.windows.find((w) => w.title === 'Overseer Fixture');
      assert.ok(fixture?.rect !== undefined);
      const focus = await toolJson<Receipt>(agent, 'element_act', { window: fixture.window, selector: { automation_id: 'password' }, action: 'focus' });
      assert.equal(focus.outcome, 'completed', JSON.stringify(focus));
      warp(desktop.display, fixture.rect.cx, fixture.rect.cy);
      const { card, answer } = await carded('type_text', { text: 'sesame' });
      assert.equal(card.password, true);
      assert.equal(card.text, '••••••');
      assert.ok(!JSON.stringify(card).includes('sesame'), 'the card never carries the text');
      await approve(card);
      const receipt = await answer;
      assert.equal(receipt.outcome, 'completed');
      assert.equal(receipt.text, '••••••');
      const found = await toolJson<{ matches: { name?: string }[] }>(agent, 'element_find', { window: fixture.window, selector: { automation_id: 'status' } });
      // Focusing the entry selected its text, so the typing replaced it: six characters reached the field.
      assert.match(found.matches[0]?.name ?? '', /password length 6$/);
      // An element_act card shows the target window with the element outlined.
      const since = ui.mark();
      const act = toolJson<Receipt>(agent, 'element_act', { window: fixture.window, selector: { automation_id: 'password' }, action: 'set_value', text: 'x' });
      const cards = await ui.waitFor<PendingApproval[]>('pending', (l) => l.some((p) => p.action === 'set_value'), 15_000, since);
      const elementCard = cards.find(cardIs('element', (p) => p.action === 'set_value'));
      const picture = elementCard?.picture;
      assert.ok(picture !== undefined, `no picture: ${elementCard?.picture_unavailable ?? ''}`);
      assert.equal(picture.picture, '', 'the card reaches the UI without its pixels');
      const pixels = await ui.command<{ picture: string }>('card_picture', { approval_id: elementCard?.approval_id, which: 'picture' });
      assert.match(pixels.picture, /^data:image\/jpeg;base64,/);
      assert.ok(picture.outline !== undefined);
      assert.ok(
        picture.outline.x >= 0 &&
          picture.outline.y >= 0 &&
          picture.outline.x + picture.outline.w <= picture.width &&
          picture.outline.y + picture.outline.h <= picture.height,
      );
      await ui.command('deny', { approval_id: elementCard?.approval_id });
      assert.equal((await act).refusal?.code, 'denied');
      const lines: string[] = [];
      await exportJournal(path.join(s.dataDir, 'journal'), (l) => lines.push(l));
      assert.ok(lines.length > 0);
      assert.ok(!lines.some((l) => l.includes('sesame')), 'the journal never holds the text');
      const shotRecord = lines
        .map((l) => JSON.parse(l) as { tool?: string; screenshot?: { sha256?: string; bytes?: number } })
        .find((l) => l.tool === 'screenshot');
      assert.match(shotRecord?.screenshot?.sha256 ?? '', /^[0-9a-f]{64}$/, 'a screenshot is journaled by its hash');
      assert.ok((shotRecord?.screenshot?.bytes ?? 0) > 0);
      assert.ok(!lines.some((l) => l.includes('base64')), 'and never by its pixels');
    } finally {
      await app.stop();
    }
  });
});
