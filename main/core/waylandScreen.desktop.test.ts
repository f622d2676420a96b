// The screen tier on a GNOME Wayland session through the real server (docs/wayland.md): a real MCP
// client takes screenshots through the Screenshot portal and drives the canvas app through the
// RemoteDesktop portal, the person approving each input over the real UI channel and answering
// the desktop's own consent dialogs on its virtual monitor, as they would. Where input lands is
// read from the app (its points are relative to its window on Wayland).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGnomeDesktop, type GnomeDesktop } from '../../desktop/gnomeDesktop.js';
import { answerRemoteDesktop, answerScreenshotQuestion, remoteDesktopDialogShown, screenshotQuestionShown } from '../../desktop/gnomeDialogs.js';
import type { PendingApproval, Receipt, ScreenConsent, ScreenshotAnswer } from '../../protocol/index.js';
import { canvasIn } from '../testing/canvasPattern.js';
import { decodePng, rgbAt, type DecodedPng } from '../testing/pngDecode.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../testing/serveHarness.js';
import { REPO_ROOT } from './runtime/paths.js';
import { LANDING_GRACE_MS } from './supervision/landingGuard.js';
import { cardIs, type CardOf } from '../testing/cards.js';
import { until } from '../testing/until.js';

const CANVAS = `${REPO_ROOT}desktop/apps/canvasApp.py`;

interface AppEvent {
  ev: string;
  button?: number;
  n?: number;
  x?: number;
  y?: number;
  text?: string;
}

function events(desktop: GnomeDesktop): AppEvent[] {
  const logs = path.join(desktop.dir, 'logs');
  const file = readdirSync(logs).find((f) => f.endsWith('-python3.out.log'));
  if (file === undefined) return [];
  return readFileSync(path.join(logs, file), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{') && l.endsWith('}'))
    .map((l) => JSON.parse(l) as AppEvent);
}

/** The first press the canvas logged after event `before`, once it comes. */
function pressSince(desktop: GnomeDesktop, before: number): Promise<AppEvent> {
  return until(
    () =>
      events(desktop)
        .slice(before)
        .find((e) => e.ev === 'press'),
    'the press',
  );
}

describe('the screen tier on a GNOME Wayland session through the real server', () => {
  let desktop: GnomeDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let canvas: { x: number; y: number };

  const shot = async (): Promise<{ answer: ScreenshotAnswer; png: DecodedPng }> => {
    const r = await agent.callTool({ name: 'screenshot', arguments: {} });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    const image = (r.content as { type: string; data?: string }[]).find((c) => c.type === 'image');
    return { answer: r.structuredContent as ScreenshotAnswer, png: decodePng(Buffer.from(image?.data ?? '', 'base64')) };
  };
  const carded = async (name: string, args: Record<string, unknown>): Promise<{ card: CardOf<'screen'>; answer: Promise<Receipt> }> => {
    const since = ui.mark();
    const isIt = cardIs('screen', (p) => p.action === name);
    const answer = toolJson<Receipt>(agent, name, args, { timeout: 60_000 });
    const list = await Promise.race([
      ui.waitFor<PendingApproval[]>('pending', (l) => l.some(isIt), 20_000, since),
      answer.then((a) => {
        throw new Error(`answered before a card: ${JSON.stringify(a)}`);
      }),
    ]);
    return { card: list.find(isIt) as CardOf<'screen'>, answer };
  };
  /** A decision as the person makes it: told it came while an agent's input was landing (the landing guard), they do it again a moment later. */
  const decide = async <T>(command: string, params: unknown): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await ui.command<T>(command, params);
      } catch (error) {
        if (attempt >= 3 || !/could have been them/.test(String(error))) throw error;
        await sleep(LANDING_GRACE_MS);
      }
    }
  };
  const approve = (card: PendingApproval): Promise<unknown> => decide('approve', { approval_id: card.approval_id });
  const connect = async (): Promise<void> => {
    s = await serve(desktop.env, s === undefined ? {} : { dataDir: s.dataDir });
    agent = await httpClient(s, 'wayland-agent');
    ui = await UiClient.connect(s);
  };
  const disconnect = async (): Promise<void> => {
    ui?.close();
    await agent?.close();
    await s?.kill();
  };

  before(async () => {
    desktop = await startGnomeDesktop({ width: 1280, height: 800 });
    await desktop.launch('/usr/bin/python3', [CANVAS], { waitForWindow: 'Overseer Canvas' });
    await connect();
  });

  after(async () => {
    await disconnect();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('names the portal paths in capabilities, and that windows have no known places', async () => {
    const caps = await toolJson<{
      session: string;
      capture: { available: boolean; path: string; degradations: string[] };
      input: { available: boolean; path: string; degradations: string[] };
      screen: unknown;
    }>(agent, 'capabilities');
    assert.equal(caps.session, 'wayland');
    assert.equal(caps.capture.path, 'portal:Screenshot');
    assert.equal(caps.input.path, 'portal:RemoteDesktop');
    assert.deepEqual(caps.screen, { x: 0, y: 0, width: 1280, height: 800 });
    for (const d of ['no_window_positions', 'consent_not_yet_given']) assert.ok(caps.capture.degradations.includes(d), d);
    for (const d of ['no_window_positions', 'consent_per_session', 'consent_not_yet_given', 'cursor_position_tracked', 'text_via_clipboard'])
      assert.ok(caps.input.degradations.includes(d), d);
    assert.ok(!caps.input.degradations.includes('text_limited_to_layout'));
  });

  it('asks the person once for screenshots; the canvas is in the picture at its exact pixels', async () => {
    const [first] = await Promise.all([shot(), answerScreenshotQuestion(desktop, 'Allow')]);
    let found = canvasIn(first.png);
    for (let i = 0; found === undefined && i < 50; i++) {
      await sleep(100);
      found = canvasIn((await shot()).png);
    }
    assert.ok(found !== undefined, 'the canvas pattern is in the screenshot');
    canvas = found;
    const { answer, png } = await shot();
    assert.equal(await screenshotQuestionShown(desktop), false, 'asked once: no question the second time');
    assert.deepEqual([answer.width, answer.height, answer.scale_x, answer.capture_path], [1280, 800, 1, 'portal:Screenshot']);
    const c = canvas;
    assert.deepEqual(rgbAt(png, c.x + 50, c.y + 50), [255, 0, 0]);
    assert.deepEqual(rgbAt(png, c.x + 350, c.y + 50), [0, 255, 0]);
    assert.deepEqual(rgbAt(png, c.x + 50, c.y + 250), [0, 0, 255]);
    assert.deepEqual(rgbAt(png, c.x + 350, c.y + 250), [255, 255, 0]);
    for (const [x, y] of [
      [0, 0],
      [1, 0],
      [399, 0],
      [399, 299],
      [0, 299],
    ] as const) {
      const v = (x + y) % 2 === 0 ? 0 : 255;
      assert.deepEqual(rgbAt(png, c.x + x, c.y + y), [v, v, v], `border ${x},${y}`);
    }
  });

  it('clicks the exact pixel the person approved, after the desktop asked for remote interaction once; the card says the place is unknown', async () => {
    const c = canvas;
    for (const [i, [x, y]] of (
      [
        [c.x + 23, c.y + 45],
        [c.x + 301, c.y + 202],
      ] as const
    ).entries()) {
      await sleep(600);
      const before = events(desktop).length;
      const { card, answer } = await carded('click', { x, y });
      assert.equal(card.screen.detail.windows_unknown, true, 'the card says where it lands is unknown, rather than naming a guess');
      assert.equal(card.screen.detail.window, undefined);
      assert.equal(events(desktop).length, before, 'nothing dispatched before the person decided');
      await approve(card);
      if (i === 0) await answerRemoteDesktop(desktop, 'share');
      else assert.equal(await remoteDesktopDialogShown(desktop), false, 'the consent is asked once per session');
      const receipt = await answer;
      assert.equal(receipt.outcome, 'completed', JSON.stringify(receipt));
      assert.equal(receipt.path, 'portal:RemoteDesktop');
      const press = await pressSince(desktop, before);
      assert.deepEqual([press.x, press.y, press.button], [x - c.x, y - c.y, 1], 'the app saw the press at the exact pixel (window-relative on Wayland)');
    }
  });

  it('types ASCII, Cyrillic, CJK and emoji exactly and in order: keys for what the layout has, the clipboard for the rest; a control character is refused before any card', async () => {
    const before = events(desktop).length;
    const sent = 'Hello, Wayland!\tПривет, мир: 漢字 😀👍🏽\n42';
    const { card, answer } = await carded('type_text', { text: sent });
    // Wayland names no window's place, but the accessibility tree names the active one: the keys go there.
    assert.equal(card.screen.detail.window?.title, 'Overseer Canvas', 'the card names the window with the keyboard focus');
    await approve(card);
    const receipt = await answer;
    assert.equal(receipt.outcome, 'completed', JSON.stringify(receipt));
    // The canvas logs a key's text as GTK gives it: Tab is "\t", Return "\r"; a paste is its whole text.
    const expected = sent.replace('\n', '\r');
    const text = await until(() => {
      const typed = events(desktop)
        .slice(before)
        .map((e) => e.text ?? '')
        .join('');
      return typed.length >= expected.length ? typed : undefined;
    }, 'the typed text');
    assert.equal(text, expected);
    const pasted = events(desktop)
      .slice(before)
      .filter((e) => e.ev === 'paste')
      .map((e) => e.text);
    assert.deepEqual(pasted, ['Привет, мир: 漢字 😀👍🏽'], 'only the line the layout lacks went through the clipboard');
    await sleep(300);
    const settled = events(desktop).length;
    const since = ui.mark();
    const refused = await toolJson<Receipt>(agent, 'type_text', { text: 'ring \u0007 the bell' });
    assert.equal(refused.outcome, 'refused', JSON.stringify(refused));
    assert.equal(refused.refusal?.code, 'input_unavailable');
    assert.equal(refused.refusal?.data?.['reason'], 'not_in_keymap');
    assert.deepEqual(refused.refusal?.data?.['characters'], ['U+0007']);
    assert.equal(refused.decision, undefined, 'the person was never asked');
    assert.ok(!ui.events.slice(since).some((e) => e.event === 'pending' && (e.data as PendingApproval[]).some((p) => p.action === 'type_text')), 'no card');
    await sleep(300);
    assert.equal(events(desktop).length, settled, 'nothing more was typed');
  });

  it("refuses keys before any card while the keyboard focus is on a window titled as Overseer's own, as the accessibility tree names it", async () => {
    const own = await desktop.launch('/usr/bin/zenity', ['--info', '--title=Overseer', '--text=not the agent’s to type into'], { waitForWindow: 'Overseer' });
    try {
      // The desktop gives the new window the focus; the tree says so (and the window list leaves it out, as Overseer's own).
      await until(async () => {
        const { windows } = await toolJson<{ windows: { title: string; foreground: boolean }[] }>(agent, 'window_list');
        return windows.some((w) => w.foreground) ? undefined : true;
      }, 'the canvas to lose the focus');
      const since = ui.mark();
      const refused = await toolJson<Receipt>(agent, 'key', { keys: 'Return' });
      assert.equal(refused.refusal?.code, 'excluded_target', JSON.stringify(refused));
      assert.match(refused.refusal?.detail ?? '', /supervisor’s own window/);
      assert.equal(refused.decision, undefined, 'the person was never asked');
      assert.ok(!ui.events.slice(since).some((e) => e.event === 'pending' && (e.data as PendingApproval[]).some((p) => p.action === 'key')), 'no card');
    } finally {
      await own.stop();
    }
  });

  it("holds back the person's decisions while an agent's input lands where windows have no known places, and takes them after", async () => {
    // The click waits on its card while the held key is being sent; whatever approves it meanwhile could be that key's echo.
    const waiting = await carded('click', { x: canvas.x + 77, y: canvas.y + 66 });
    const holding = await carded('hold_key', { keys: 'shift', duration_ms: 2500 });
    await approve(holding.card);
    await sleep(400);
    const before = events(desktop).length;
    await assert.rejects(ui.command('approve', { approval_id: waiting.card.approval_id }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'excluded_target', e.message);
      assert.match(e.message, /could have been them/);
      return true;
    });
    await assert.rejects(ui.command('brake', { action: 'rearm' }), /excluded_target/, 'letting agents go on again is held back too');
    await ui.command('snapshot', {}); // reads are not
    assert.equal((await holding.answer).outcome, 'completed');
    await sleep(LANDING_GRACE_MS + 100);
    await ui.command('approve', { approval_id: waiting.card.approval_id });
    assert.equal((await waiting.answer).outcome, 'completed');
    const press = await pressSince(desktop, before);
    assert.deepEqual([press.x, press.y], [77, 66]);
  });

  it('keeps the screenshot consent for a new helper; asks for remote interaction again (RemoteDesktop version 1); a refusal is typed and sticks', async () => {
    await disconnect();
    await connect();
    const { png } = await shot();
    assert.equal(await screenshotQuestionShown(desktop), false, 'the portal remembered the screenshot answer');
    assert.deepEqual(canvasIn(png), canvas);
    await sleep(600);
    const { card, answer } = await carded('click', { x: canvas.x + 10, y: canvas.y + 10 });
    await approve(card);
    await answerRemoteDesktop(desktop, 'cancel');
    const receipt = await answer;
    assert.equal(receipt.outcome, 'refused', JSON.stringify(receipt));
    assert.equal(receipt.refusal?.code, 'input_unavailable');
    assert.equal(receipt.refusal?.data?.['reason'], 'consent_refused');
    // The agent cannot bring the dialog back by retrying: refused before any card, with the reason.
    const again = await toolJson<Receipt>(agent, 'click', { x: canvas.x + 10, y: canvas.y + 10 });
    assert.equal(again.outcome, 'refused', JSON.stringify(again));
    assert.equal(again.refusal?.code, 'input_unavailable');
    assert.equal(again.refusal?.data?.['reason'], 'consent_refused');
    assert.equal(again.decision, undefined, 'the person was never asked');
    assert.equal(await remoteDesktopDialogShown(desktop), false);
  });

  it('forgets the answers when the person asks in Settings: the desktop asks again, and a denied screenshot is typed and sticks', async () => {
    const now = await decide<ScreenConsent>('screen_consent', {});
    assert.deepEqual([now.asks, now.screenshots, now.input, now.input_per_session, now.windows_unknown], [true, 'given', 'refused', true, true]);
    const forgot = await decide<ScreenConsent>('screen_consent', { forget: true });
    assert.deepEqual([forgot.screenshots, forgot.input, forgot.forgotten], ['not_yet_given', 'not_yet_given', true]);
    const [denied] = await Promise.all([
      toolJson<{ error?: { code: string; data?: Record<string, unknown> } }>(agent, 'screenshot', {}),
      answerScreenshotQuestion(desktop, 'Deny'),
    ]);
    assert.equal(denied.error?.code, 'capture_unavailable', JSON.stringify(denied));
    assert.equal(denied.error?.data?.['reason'], 'consent_refused');
    const started = performance.now();
    const again = await toolJson<{ error?: { code: string; data?: Record<string, unknown> } }>(agent, 'screenshot', {});
    assert.equal(again.error?.data?.['reason'], 'consent_refused', JSON.stringify(again));
    assert.ok(performance.now() - started < 3000, 'refused at once');
    assert.equal(await screenshotQuestionShown(desktop), false, 'the desktop does not ask again by itself');
    // Without screenshots no input can be bound to what the person sees: refused before any card.
    const unbound = await toolJson<Receipt>(agent, 'click', { x: canvas.x + 120, y: canvas.y + 80 });
    assert.equal(unbound.refusal?.code, 'capture_unavailable', JSON.stringify(unbound));
    assert.equal(unbound.decision, undefined);
    // The person forgets again and allows; input was forgotten too: the next click asks again, and lands.
    await decide('screen_consent', { forget: true });
    await Promise.all([shot(), answerScreenshotQuestion(desktop, 'Allow')]);
    await sleep(600);
    const before = events(desktop).length;
    const { card, answer } = await carded('click', { x: canvas.x + 120, y: canvas.y + 80 });
    await approve(card);
    await answerRemoteDesktop(desktop, 'share');
    assert.equal((await answer).outcome, 'completed');
    const press = await pressSince(desktop, before);
    assert.deepEqual([press.x, press.y], [120, 80]);
  });
});
