// Pointer and keyboard input through SendInput. Moves are absolute over the virtual desktop
// (MOUSEEVENTF_MOVE | ABSOLUTE | VIRTUALDESK, win32Coordinates.ts), read afresh for every move so a
// monitor change is followed. A press, release or wheel detent at a point carries that move in its own
// record, so it is at the point whatever moved the cursor between two records (under Wine, a late echo
// of an earlier move did, and a wheel landed one scroll behind); wheel detents are one WHEEL_DELTA event each; text goes as
// KEYEVENTF_UNICODE units, keys as virtual keys with their scan codes. SendInput answers how many
// events it inserted: fewer than asked (UIPI: the foreground window runs at a higher integrity
// level; or the input desktop is not ours) is input_unavailable with the count and GetLastError,
// never a silent success.

import { fail } from '../../../protocol/index.js';
import type { KeyName, MouseButton, ScreenRect, ScrollDirection } from '../screenBackend.js';
import { toAbsolute } from './win32Coordinates.js';
import { encodeInputs, INPUT_SIZE, KEYEVENTF, MOUSEEVENTF, typingPlan, unicodeStrokes, WHEEL_DELTA, type InputRecord } from './win32Inputs.js';
import { knownKeyNames, TEXT_CHANGING_VKS, virtualKeyOf, VK_LSHIFT, type VirtualKey } from './win32KeyNames.js';
import type { ScreenApi } from './win32ScreenApi.js';

export const INPUT_PATH = 'win32:SendInput';

const BUTTON_FLAGS: Record<MouseButton, { down: number; up: number }> = {
  left: { down: MOUSEEVENTF.LEFTDOWN, up: MOUSEEVENTF.LEFTUP },
  middle: { down: MOUSEEVENTF.MIDDLEDOWN, up: MOUSEEVENTF.MIDDLEUP },
  right: { down: MOUSEEVENTF.RIGHTDOWN, up: MOUSEEVENTF.RIGHTUP },
};
/** Records per SendInput call when typing: one call is one uninterrupted burst, but keep target queues from flooding. */
const TYPING_CHUNK = 256;
const MAPVK_VK_TO_VSC = 0;

/** A key as pressed: a virtual key, or (a character no key of the layout types) its UTF-16 units. */
type PressedKey = { vk: VirtualKey } | { units: number[] };

export class Win32Input {
  private readonly heldButtons = new Set<MouseButton>();
  private readonly heldKeys = new Map<number, VirtualKey>();

  constructor(
    private readonly api: ScreenApi,
    private readonly desktop: () => ScreenRect,
  ) {}

  move(x: number, y: number): void {
    this.send([this.motion(x, y)]);
  }

  button(button: MouseButton, action: 'down' | 'up'): void {
    const flags = buttonFlags(button);
    this.send([{ type: 'mouse', dx: 0, dy: 0, data: 0, flags: action === 'down' ? flags.down : flags.up }]);
    if (action === 'down') this.heldButtons.add(button);
    else this.heldButtons.delete(button);
  }

  click(x: number, y: number, button: MouseButton, count: number): void {
    if (!Number.isInteger(count) || count < 1 || count > 3) throw fail('invalid_argument', `count must be 1, 2 or 3, not ${count}.`, { count });
    const flags = buttonFlags(button);
    const at = this.motion(x, y);
    const records: InputRecord[] = [at];
    for (let i = 0; i < count; i++) {
      records.push({ ...at, flags: at.flags | flags.down }, { ...at, flags: at.flags | flags.up });
    }
    this.send(records); // one burst: the presses fall inside the double-click time and rectangle
  }

  scroll(x: number, y: number, direction: ScrollDirection, detents: number): void {
    if (!Number.isInteger(detents) || detents < 1 || detents > 100)
      throw fail('invalid_argument', `detents must be an integer 1..100, not ${detents}.`, { detents });
    // WHEEL: positive is away from the user (up); HWHEEL: positive is to the right.
    const vertical = direction === 'up' || direction === 'down';
    const data = direction === 'up' || direction === 'right' ? WHEEL_DELTA : -WHEEL_DELTA;
    const at = this.motion(x, y);
    const records: InputRecord[] = [at];
    for (let i = 0; i < detents; i++) records.push({ ...at, data, flags: at.flags | (vertical ? MOUSEEVENTF.WHEEL : MOUSEEVENTF.HWHEEL) });
    this.send(records);
  }

  typeText(text: string): void {
    const plan = typingPlan(text);
    this.refuseHeldModifiers();
    const records: InputRecord[] = [];
    for (const step of plan) {
      if ('unit' in step) records.push(...unicodeStrokes(step.unit));
      else records.push(this.keyRecord({ vk: step.vk, extended: false }, false), this.keyRecord({ vk: step.vk, extended: false }, true));
    }
    for (let at = 0; at < records.length; at += TYPING_CHUNK) this.send(records.slice(at, at + TYPING_CHUNK));
  }

  key(keys: readonly KeyName[], action: 'tap' | 'down' | 'up'): void {
    if (keys.length === 0) throw fail('invalid_argument', 'No keys given.', {});
    const pressed: PressedKey[] = [];
    for (const name of keys) pressed.push(...this.resolve(name));
    const downs: InputRecord[] = [];
    const ups: InputRecord[] = [];
    for (const k of pressed) {
      if ('vk' in k) {
        downs.push(this.keyRecord(k.vk, false));
        ups.unshift(this.keyRecord(k.vk, true));
      } else {
        for (const unit of k.units) downs.push({ type: 'key', vk: 0, scan: unit, flags: KEYEVENTF.UNICODE });
        ups.unshift(...k.units.map((unit): InputRecord => ({ type: 'key', vk: 0, scan: unit, flags: KEYEVENTF.UNICODE | KEYEVENTF.KEYUP })));
      }
    }
    this.send(action === 'tap' ? [...downs, ...ups] : action === 'down' ? downs : ups);
    for (const k of pressed) {
      if (!('vk' in k)) continue;
      if (action === 'down') this.heldKeys.set(k.vk.vk, k.vk);
      else this.heldKeys.delete(k.vk.vk);
    }
  }

  cursor(): { x: number; y: number } {
    const point = Buffer.alloc(8);
    if (!this.api.GetCursorPos(point)) {
      throw fail('input_unavailable', `GetCursorPos failed (error ${this.api.GetLastError()}): the input desktop is not this session's.`, {
        reason: 'no_cursor',
      });
    }
    return { x: point.readInt32LE(0), y: point.readInt32LE(4) };
  }

  /** Release every button and key this backend holds. */
  close(): void {
    const records: InputRecord[] = [];
    for (const b of this.heldButtons) records.push({ type: 'mouse', dx: 0, dy: 0, data: 0, flags: BUTTON_FLAGS[b].up });
    for (const k of [...this.heldKeys.values()].reverse()) records.push(this.keyRecord(k, true));
    this.heldButtons.clear();
    this.heldKeys.clear();
    if (records.length > 0) this.api.SendInput(records.length, encodeInputs(records), INPUT_SIZE);
  }

  private motion(x: number, y: number): InputRecord & { type: 'mouse' } {
    const { dx, dy } = toAbsolute(x, y, this.desktop());
    return { type: 'mouse', dx, dy, data: 0, flags: MOUSEEVENTF.MOVE | MOUSEEVENTF.ABSOLUTE | MOUSEEVENTF.VIRTUALDESK };
  }

  private keyRecord(key: VirtualKey, up: boolean): InputRecord {
    const scan = this.api.MapVirtualKeyW(key.vk, MAPVK_VK_TO_VSC) & 0xff;
    return { type: 'key', vk: key.vk, scan, flags: (key.extended ? KEYEVENTF.EXTENDEDKEY : 0) | (up ? KEYEVENTF.KEYUP : 0) };
  }

  /** A named key, or one character: its key in the current layout (with Shift if it needs it), else its UTF-16 units. */
  private resolve(name: KeyName): PressedKey[] {
    const named = virtualKeyOf(name);
    if (named !== null) return [{ vk: named }];
    const chars = [...name];
    const cp = chars.length === 1 ? (name.codePointAt(0) ?? 0) : -1;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff)) {
      throw fail('invalid_argument', `Unknown key ${JSON.stringify(name)}: one character or one of ${knownKeyNames().join(', ')}.`, { key: name });
    }
    if (cp <= 0xffff) {
      const scan = this.api.VkKeyScanW(cp);
      const shiftState = (scan >> 8) & 0xff;
      // -1: no key types it; Ctrl or Alt in the shift state (AltGr characters): send the character itself.
      if (scan !== -1 && (shiftState & ~1) === 0) {
        const vk: PressedKey = { vk: { vk: scan & 0xff, extended: false } };
        return shiftState === 1 ? [{ vk: { vk: VK_LSHIFT, extended: false } }, vk] : [vk];
      }
    }
    return [{ units: Array.from({ length: name.length }, (_, i) => name.charCodeAt(i)) }];
  }

  private refuseHeldModifiers(): void {
    const held = TEXT_CHANGING_VKS.filter((vk) => (this.api.GetAsyncKeyState(vk) & 0x8000) !== 0);
    if (held.length > 0) {
      throw fail(
        'input_unavailable',
        `A modifier is held (VK ${held.map((vk) => `0x${vk.toString(16)}`).join(', ')}), so typed text would not come out exactly; nothing was typed.`,
        { reason: 'modifier_held' },
      );
    }
  }

  private send(records: InputRecord[]): void {
    const inserted = this.api.SendInput(records.length, encodeInputs(records), INPUT_SIZE);
    if (inserted !== records.length) {
      const error = this.api.GetLastError();
      throw fail(
        'input_unavailable',
        `SendInput inserted ${inserted} of ${records.length} events (error ${error}): input to the foreground window is blocked (UIPI: it runs elevated, or the secure desktop is up).`,
        { reason: 'sendinput_blocked', inserted, requested: records.length, last_error: error },
      );
    }
  }
}

function buttonFlags(button: MouseButton): { down: number; up: number } {
  const flags = BUTTON_FLAGS[button] as { down: number; up: number } | undefined;
  if (flags === undefined) throw fail('invalid_argument', `Unknown button ${JSON.stringify(button)}: left, middle or right.`, { button });
  return flags;
}
