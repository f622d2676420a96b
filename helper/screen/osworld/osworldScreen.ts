// The screen backend of an osworld_http connection (docs/connections.md#osworld): the screen of an
// OSWorld VM through its in-VM server. Capture is GET /screenshot (a PNG, validated and decoded here;
// regions are cut locally); pointer and keys are pyautogui statements through POST /execute, as
// OSWorld's own client sends them; the pointer's place is /cursor_position, the screen's size
// POST /screen_size, and windows come from the /accessibility tree (the VM names no process ids).
// Every call is made once: one whose answer never came is `connection_unavailable` with outcome
// "unknown", and nothing retries it.

import { fail } from '../../../protocol/index.js';
import { accessibilityXmlOf, desktopWindows } from '../../osworld/accessibilityXml.js';
import type { OsworldHttp } from '../../osworld/osworldHttp.js';
import { readPng, readPngHeader } from '../image/pngRead.js';
import type { CapturedImage, KeyName, MouseButton, NativeWindow, ScreenBackend, ScreenCapabilities, ScreenRect, ScrollDirection } from '../screenBackend.js';
import {
  CLIPBOARD_LOST,
  knownPyautoguiKeys,
  MODIFIER_KEYS,
  pasteStatements,
  pyautoguiKey,
  pyString,
  pythonCommand,
  typeableAscii,
} from './pyautoguiCommands.js';

export const CAPTURE_PATH = 'osworld:GET /screenshot';
export const INPUT_PATH = 'osworld:POST /execute pyautogui';

/** Named limits, for `capabilities`. */
const CAPTURE_DEGRADATIONS = [
  'screen_only', // the whole screen as the VM shows it; no window-bound capture
  'cursor_in_image', // OSWorld's server paints the pointer into its screenshots
];
const INPUT_DEGRADATIONS = [
  'text_via_clipboard', // text that is not ASCII is pasted through the VM's clipboard (ctrl+v), replacing what it held
  'no_process_ids', // the VM names no processes: windows come from its accessibility tree, without pids
  'window_stacking_unknown', // the tree gives no stacking order: the active window is first, then the tree's order
];

/** Time the application is given to fetch the clipboard after ctrl+v, before the command ends (a later copy would replace it). */
const PASTE_SETTLE_S = 0.3;

const BUTTONS: Record<MouseButton, string> = { left: 'left', middle: 'middle', right: 'right' };

function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/** Opens the backend: asks the screen's size and the VM's platform once (each later call says again if it is gone). */
export async function openOsworldScreenBackend(http: OsworldHttp): Promise<ScreenBackend> {
  const connection = http.settings.connection;
  const screenSize = async (): Promise<{ width: number; height: number }> => {
    const answer = await http.request('POST', '/screen_size');
    const size = http.json(answer, 'POST /screen_size') as { width?: unknown; height?: unknown } | null;
    const { width, height } = size ?? {};
    if (
      answer.status !== 200 ||
      typeof width !== 'number' ||
      typeof height !== 'number' ||
      !Number.isInteger(width) ||
      !Number.isInteger(height) ||
      width < 1 ||
      height < 1
    )
      throw fail('capture_unavailable', `the OSWorld server answered /screen_size with ${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`, {
        connection,
        reason: 'server_error',
      });
    return { width, height };
  };
  let size = await screenSize();
  const platformAnswer = await http.request('GET', '/platform');
  const platform = platformAnswer.status === 200 ? platformAnswer.body.toString('utf8').trim().slice(0, 40) : 'unknown';
  const held = new Set<KeyName>();
  let closed = false;

  const run = async (statements: string): Promise<void> => {
    if (closed) throw fail('input_unavailable', 'The OSWorld screen backend is closed.', { connection, reason: 'closed' });
    await http.execute(pythonCommand(statements), 'input_unavailable');
  };
  /** Pastes through the VM's clipboard, checked: text the clipboard did not hold is never answered as typed. */
  const paste = async (text: string): Promise<void> => {
    if (closed) throw fail('input_unavailable', 'The OSWorld screen backend is closed.', { connection, reason: 'closed' });
    const answer = await http.execute(pythonCommand(pasteStatements(text, PASTE_SETTLE_S)), 'input_unavailable');
    if (answer.output.includes(CLIPBOARD_LOST))
      throw fail('input_unavailable', "the VM's clipboard did not hold the text when it was to be pasted, so nothing was pasted", {
        connection,
        reason: 'clipboard_lost',
        hint: "the VM's pyperclip keeps the clipboard only while the copying process runs: install xclip (or xsel) in the VM, or run a clipboard manager there",
      });
  };
  const point = (x: number, y: number): void => {
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= size.width || y >= size.height)
      throw fail('invalid_argument', `the point ${x},${y} is off the VM's ${size.width}x${size.height} screen`, { x, y });
  };
  const keyNames = (keys: readonly KeyName[]): string[] => {
    if (keys.length === 0) throw fail('invalid_argument', 'No keys given.', {});
    return keys.map((name) => {
      const key = pyautoguiKey(name);
      if (key === null)
        throw fail(
          'invalid_argument',
          `Unknown key ${JSON.stringify(name)} for an OSWorld VM: one printable ASCII character or one of ${knownPyautoguiKeys().join(', ')} (type other characters as text).`,
          {
            key: name,
          },
        );
      return key;
    });
  };

  const windows = async (): Promise<NativeWindow[]> => {
    const answer = await http.request('GET', '/accessibility');
    const xml = answer.status === 200 ? accessibilityXmlOf(http.json(answer, 'GET /accessibility')) : undefined;
    if (xml === undefined)
      throw fail('capture_unavailable', `the OSWorld server answered /accessibility with ${answer.status}`, { connection, reason: 'server_error' });
    let windows;
    try {
      windows = desktopWindows(xml);
    } catch (error) {
      throw fail('capture_unavailable', `the VM's accessibility tree is malformed: ${error instanceof Error ? error.message : String(error)}`, {
        connection,
        reason: 'bad_answer',
      });
    }
    const active: NativeWindow[] = [];
    const rest: NativeWindow[] = [];
    for (const w of windows) {
      const r = w.node.rect;
      if (r === undefined || !w.node.states.has('showing')) continue;
      // Active first: the tree has no stacking order, and the active window is the one known to be on top.
      (w.node.states.has('active') ? active : rest).push({
        handle: w.id,
        title: w.node.name,
        classes: [w.app.name],
        rect: { x: r.x, y: r.y, width: r.w, height: r.h },
      });
    }
    return [...active, ...rest];
  };

  const backend: ScreenBackend = {
    name: 'osworld',
    async capabilities(): Promise<ScreenCapabilities> {
      size = await screenSize();
      const screen = { x: 0, y: 0, ...size };
      return {
        session: /^windows$/i.test(platform) ? 'windows' : 'x11',
        capture: { available: !closed, path: CAPTURE_PATH, degradations: [...CAPTURE_DEGRADATIONS] },
        input: { available: !closed, path: INPUT_PATH, degradations: [...INPUT_DEGRADATIONS] },
        monitors: [{ name: 'screen', primary: true, ...screen, scale: 1 }],
        screen,
      };
    },
    async capture(region?: ScreenRect): Promise<CapturedImage> {
      if (closed) throw fail('capture_unavailable', 'The OSWorld screen backend is closed.', { connection, reason: 'closed' });
      if (region !== undefined) {
        const { x, y, width, height } = region;
        if (![x, y, width, height].every(Number.isInteger) || width < 1 || height < 1 || x < 0 || y < 0 || x + width > size.width || y + height > size.height)
          throw fail('invalid_argument', `the region ${JSON.stringify(region)} is not inside the VM's ${size.width}x${size.height} screen`, { region });
      }
      const started = performance.now();
      const answer = await http.request('GET', '/screenshot');
      if (answer.status !== 200)
        throw fail('capture_unavailable', `the OSWorld server answered /screenshot with ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`, {
          connection,
          reason: 'server_error',
          status: answer.status,
        });
      const readable = <T>(read: () => T): T => {
        try {
          return read();
        } catch (error) {
          throw fail('capture_unavailable', `the VM's screenshot is not a PNG this backend reads: ${error instanceof Error ? error.message : String(error)}`, {
            connection,
            reason: 'bad_answer',
          });
        }
      };
      // The size the PNG declares is compared with the screen's before anything is inflated: a small
      // file that declares a huge image costs nothing (docs/connections.md#osworld).
      const header = readable(() => readPngHeader(answer.body));
      if (header.width !== size.width || header.height !== size.height) {
        size = await screenSize();
        if (header.width !== size.width || header.height !== size.height)
          throw fail('capture_unavailable', `the screenshot is ${header.width}x${header.height} but the screen is ${size.width}x${size.height}`, {
            connection,
            reason: 'size_mismatch',
          });
      }
      const expected = size;
      const png = readable(() => readPng(answer.body, expected));
      const r = region ?? { x: 0, y: 0, ...size };
      let data = png.data;
      if (region !== undefined) {
        data = Buffer.alloc(r.width * r.height * 4);
        for (let row = 0; row < r.height; row++)
          png.data.copy(data, row * r.width * 4, ((r.y + row) * png.width + r.x) * 4, ((r.y + row) * png.width + r.x + r.width) * 4);
      }
      return {
        width: r.width,
        height: r.height,
        stride: r.width * 4,
        pixelFormat: 'bgrx',
        data,
        origin: { x: r.x, y: r.y },
        capturePath: CAPTURE_PATH,
        captureMs: performance.now() - started,
      };
    },
    async move(x, y) {
      point(x, y);
      await run(`pyautogui.moveTo(${x}, ${y})`);
    },
    async button(button, action) {
      await run(`pyautogui.${action === 'down' ? 'mouseDown' : 'mouseUp'}(button=${pyString(BUTTONS[button])})`);
    },
    async click(x, y, button, count) {
      point(x, y);
      if (!Number.isInteger(count) || count < 1 || count > 3) throw fail('invalid_argument', `a click count of ${count}: 1, 2 or 3`, { count });
      await run(`pyautogui.click(x=${x}, y=${y}, clicks=${count}, interval=0.0, button=${pyString(BUTTONS[button])})`);
    },
    async scroll(x, y, direction: ScrollDirection, detents) {
      point(x, y);
      if (!Number.isInteger(detents) || detents < 1 || detents > 100) throw fail('invalid_argument', `scroll detents ${detents}: 1 to 100`, { detents });
      // pyautogui's amounts are wheel clicks on X11 (one button 4/5/6/7 press each): detents 1:1.
      const amount = direction === 'up' || direction === 'right' ? detents : -detents;
      const call = direction === 'up' || direction === 'down' ? 'scroll' : 'hscroll';
      await run(`pyautogui.moveTo(${x}, ${y}); pyautogui.${call}(${amount})`);
    },
    async typeText(text) {
      if (hasLoneSurrogate(text)) throw fail('invalid_argument', 'the text holds a lone UTF-16 surrogate, which is no character', {});
      if (text === '') return;
      const modifier = [...held].find((k) => MODIFIER_KEYS.has(k));
      if (modifier !== undefined)
        throw fail('input_unavailable', `${modifier} is held: typing now would press shortcuts; release it first`, { connection, reason: 'modifier_held' });
      if (typeableAscii(text)) await run(`pyautogui.write(${pyString(text)}, interval=0.0)`);
      // pyautogui types only what its keyboard map has; the rest goes through the VM's clipboard, whole, never dropped.
      else await paste(text);
    },
    async key(keys, action) {
      const names = keyNames(keys);
      const down = names.map((k) => `pyautogui.keyDown(${pyString(k)})`);
      const up = names.map((k) => `pyautogui.keyUp(${pyString(k)})`);
      const statements = action === 'tap' ? [...down, ...up.reverse()] : action === 'down' ? down : up;
      await run(statements.join('; '));
      for (const k of keys) {
        if (action === 'down') held.add(k);
        else held.delete(k);
      }
    },
    async cursor() {
      const answer = await http.request('GET', '/cursor_position');
      const at = http.json(answer, 'GET /cursor_position');
      if (answer.status !== 200 || !Array.isArray(at) || at.length !== 2 || !at.every((v) => Number.isInteger(v)))
        throw fail('input_unavailable', `the OSWorld server answered /cursor_position with ${answer.status} ${answer.body.toString('utf8').slice(0, 100)}`, {
          connection,
          reason: 'server_error',
        });
      return { x: at[0] as number, y: at[1] as number };
    },
    windows,
    async focusedWindow() {
      const answer = await http.request('GET', '/accessibility');
      const xml = answer.status === 200 ? accessibilityXmlOf(http.json(answer, 'GET /accessibility')) : undefined;
      if (xml === undefined) return undefined;
      const active = desktopWindows(xml).find((w) => w.node.states.has('active'));
      return active?.id;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Keys this backend left down are released, if the VM still answers; a dead VM holds nothing of ours.
      if (held.size > 0) {
        const names = [...held].map((k) => pyautoguiKey(k)).filter((k): k is string => k !== null);
        held.clear();
        await http.execute(pythonCommand(names.map((k) => `pyautogui.keyUp(${pyString(k)})`).join('; ')), 'input_unavailable').catch(() => undefined);
      }
    },
  };
  return backend;
}
