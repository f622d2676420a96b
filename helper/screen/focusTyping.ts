// Typing into one element of one application, for element_act's set_value where a field takes
// its text only typed (docs/tools.md#set-value-by-typing). The keyboard goes to whatever window
// and field hold the focus, so each step is sent only after checking both: the window with the
// keyboard belongs to the target's process, and the accessibility tree says the field has the focus.

import { setTimeout as sleep } from 'node:timers/promises';
import { fail } from '../../protocol/index.js';
import type { NativeWindow, ScreenBackend } from './screenBackend.js';

/** One step: a key combination tapped, or text typed exactly. */
export type FocusStep = { keys: readonly string[] } | { text: string };

/** A window as the screen service annotates it: its application and why it is excluded, if it is. */
export type FocusWindow = NativeWindow & { app: string; excludedWhy?: string };

/** What typing needs of the screen service. */
export interface FocusAccess {
  /** The backend, opened (throws input_unavailable when there is none). */
  backend(): Promise<ScreenBackend>;
  /** The window stack with application names and exclusions. */
  stack(backend: ScreenBackend): Promise<FocusWindow[]>;
  /** The window that has the keyboard (on Wayland: the one the tree says is active). */
  focus(backend: ScreenBackend, windowsUnknown: boolean): Promise<{ handle?: string; window?: FocusWindow }>;
  /** Whether the element has the keyboard focus, asked of its application. */
  hasFocus(key: string): Promise<boolean | undefined>;
}

/** How long the window and then the field get to take the focus. */
const WINDOW_FOCUS_MS = 1500;
const FIELD_FOCUS_MS = 1000;
const POLL_MS = 50;
/** Characters typed between two checks of the focus. */
const CHUNK = 32;

/** Throws input_unavailable when keys cannot be sent here (no backend, or input refused). */
export async function checkKeyboard(access: FocusAccess): Promise<ScreenBackend> {
  const backend = await access.backend();
  const caps = await backend.capabilities();
  if (!caps.input.available)
    throw fail('input_unavailable', `keys cannot be sent on this desktop (${caps.input.path})`, { reason: 'backend', degradations: caps.input.degradations });
  return backend;
}

async function until<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const end = performance.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined || performance.now() >= end) return got;
    await sleep(POLL_MS);
  }
}

/**
 * Sends `steps` to element `key` of process `pid`, whose window is titled `title`. Brings the
 * window to the keyboard first where the desktop lets a program do so; refuses with nothing sent
 * when it cannot. Between steps (and every CHUNK characters) the focus is checked again; a focus
 * that left stops the rest (`stale_screen`, `data.sent`: steps sent).
 */
export async function typeIntoElement(
  access: FocusAccess,
  target: { pid: number; title: string; key: string; focus(): Promise<void> },
  steps: readonly FocusStep[],
): Promise<{ path: string }> {
  const backend = await checkKeyboard(access);
  const caps = await backend.capabilities();
  const windowsUnknown = caps.input.degradations.includes('no_window_positions');
  // The target's own window: its process's, and the one titled as the tree titles it where the process has several (Calc and Writer share one soffice).
  const mine = async (): Promise<{ handle?: string; window?: FocusWindow } | undefined> => {
    const f = await access.focus(backend, windowsUnknown);
    if (f.window?.pid !== target.pid) return undefined;
    if (f.window.title === target.title) return f;
    const own = windowsUnknown ? [] : (await access.stack(backend)).filter((w) => w.pid === target.pid);
    return own.length <= 1 ? f : undefined;
  };
  let focus = await mine();
  if (focus === undefined) {
    const held = (await access.focus(backend, windowsUnknown)).window;
    const where = held === undefined ? 'no window' : `"${held.title}"`;
    if (backend.activate === undefined || windowsUnknown)
      throw fail(
        'input_unavailable',
        `the keyboard is on ${where}, not on "${target.title}", and this desktop lets no program move it: bring that window to the front, then ask again`,
        {
          reason: 'focus_elsewhere',
          sent: 0,
        },
      );
    const stack = await access.stack(backend);
    const own = stack.filter((w) => w.pid === target.pid);
    const window = own.find((w) => w.title === target.title) ?? (own.length === 1 ? own[0] : undefined);
    if (window === undefined)
      throw fail('input_unavailable', `no window of "${target.title}" is on the screen to type into`, { reason: 'window_not_on_screen', sent: 0 });
    await backend.activate(window.handle);
    focus = await until(WINDOW_FOCUS_MS, mine);
    if (focus === undefined)
      throw fail('input_unavailable', `"${target.title}" did not take the keyboard (it stayed on ${where}); nothing was typed`, {
        reason: 'focus_elsewhere',
        sent: 0,
      });
  }
  if (focus.window?.excludedWhy !== undefined)
    throw fail('excluded_target', `the keyboard focus is on ${focus.window.excludedWhy} ("${focus.window.title}"): keys are never sent there`, { sent: 0 });
  const handle = focus.handle;
  // The field takes the focus once its window has the keyboard (activating a window moves its focus to where it was before).
  const fieldFocused = async (): Promise<boolean> =>
    (await until(FIELD_FOCUS_MS, async () => ((await access.hasFocus(target.key)) === true ? true : undefined))) === true;
  await target.focus();
  if (!(await fieldFocused())) {
    await target.focus();
    if (!(await fieldFocused()))
      throw fail('input_unavailable', 'the field did not take the keyboard focus; nothing was typed', {
        reason: 'element_not_focused',
        sent: 0,
        focused: true,
      });
  }
  // Each piece is sent only while the same window has the keyboard and the field the focus.
  const pieces = steps.flatMap((s): FocusStep[] => ('keys' in s ? [s] : chunks(s.text).map((text) => ({ text }))));
  let sent = 0;
  for (const piece of pieces) {
    const now = await access.focus(backend, windowsUnknown);
    const field = await access.hasFocus(target.key);
    if (now.handle !== handle || field !== true)
      throw fail('stale_screen', `the keyboard focus left ${now.handle !== handle ? 'the window' : 'the field'}; the rest was not typed`, {
        reason: 'focus_changed',
        sent,
        of: pieces.length,
        focused: true,
      });
    if ('keys' in piece) await backend.key(piece.keys, 'tap');
    else await backend.typeText(piece.text);
    sent++;
  }
  return { path: caps.input.path };
}

/** Text in pieces of CHUNK code points (a surrogate pair is never split). */
function chunks(text: string): string[] {
  const points = [...text];
  const out: string[] = [];
  for (let i = 0; i < points.length; i += CHUNK) out.push(points.slice(i, i + CHUNK).join(''));
  return out.length === 0 ? [''] : out;
}
