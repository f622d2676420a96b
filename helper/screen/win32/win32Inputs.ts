// SendInput's INPUT records, built as bytes (x64 layout, 40 bytes each), and how text becomes
// keystrokes: every UTF-16 code unit one KEYEVENTF_UNICODE press and release (so a character
// outside the BMP, such as an emoji, is its surrogate pair, high unit first: the target receives two
// WM_CHARs and joins them), whatever the keyboard layout; newline and tab are the Return and Tab keys.

import { fail } from '../../../protocol/index.js';
import { VK_RETURN, VK_TAB } from './win32KeyNames.js';

/** sizeof(INPUT) on 64-bit Windows: a DWORD type, padding, and the union (MOUSEINPUT is its largest member, 32 bytes). */
export const INPUT_SIZE = 40;

export const MOUSEEVENTF = {
  MOVE: 0x0001,
  LEFTDOWN: 0x0002,
  LEFTUP: 0x0004,
  RIGHTDOWN: 0x0008,
  RIGHTUP: 0x0010,
  MIDDLEDOWN: 0x0020,
  MIDDLEUP: 0x0040,
  WHEEL: 0x0800,
  HWHEEL: 0x1000,
  VIRTUALDESK: 0x4000,
  ABSOLUTE: 0x8000,
} as const;

export const KEYEVENTF = { EXTENDEDKEY: 0x1, KEYUP: 0x2, UNICODE: 0x4 } as const;

/** One wheel notch. */
export const WHEEL_DELTA = 120;

/** One INPUT record: a mouse event (INPUT_MOUSE) or a keyboard event (INPUT_KEYBOARD). */
export type InputRecord = { type: 'mouse'; dx: number; dy: number; data: number; flags: number } | { type: 'key'; vk: number; scan: number; flags: number };

/** The records as the INPUT array SendInput reads (time 0: the system stamps them; no extra info). */
export function encodeInputs(records: readonly InputRecord[]): Buffer {
  const buf = Buffer.alloc(records.length * INPUT_SIZE);
  records.forEach((r, i) => {
    const o = i * INPUT_SIZE;
    if (r.type === 'mouse') {
      buf.writeUInt32LE(0, o); // INPUT_MOUSE
      buf.writeInt32LE(r.dx, o + 8);
      buf.writeInt32LE(r.dy, o + 12);
      buf.writeInt32LE(r.data, o + 16); // mouseData: signed for the wheel
      buf.writeUInt32LE(r.flags, o + 20);
    } else {
      buf.writeUInt32LE(1, o); // INPUT_KEYBOARD
      buf.writeUInt16LE(r.vk, o + 8);
      buf.writeUInt16LE(r.scan, o + 10);
      buf.writeUInt32LE(r.flags, o + 12);
    }
  });
  return buf;
}

/** One step of typing: a UTF-16 code unit sent as KEYEVENTF_UNICODE, or a virtual key (Return, Tab). */
export type TypingStep = { unit: number } | { vk: number };

/** How `text` is typed; invalid_argument for a lone surrogate, which is no character. */
export function typingPlan(text: string): TypingStep[] {
  const steps: TypingStep[] = [];
  let previous = '';
  for (const ch of text) {
    if (ch === '\n' && previous === '\r') {
      previous = ch; // \r\n is one Return
      continue;
    }
    previous = ch;
    if (ch === '\n' || ch === '\r') steps.push({ vk: VK_RETURN });
    else if (ch === '\t') steps.push({ vk: VK_TAB });
    else {
      const cp = ch.codePointAt(0) ?? 0;
      if (cp >= 0xd800 && cp <= 0xdfff) {
        throw fail('invalid_argument', `The text has a lone UTF-16 surrogate 0x${cp.toString(16)}, which is no character.`, { unit: cp });
      }
      for (let i = 0; i < ch.length; i++) steps.push({ unit: ch.charCodeAt(i) });
    }
  }
  return steps;
}

/** The press and release of one UTF-16 unit. */
export function unicodeStrokes(unit: number): InputRecord[] {
  return [
    { type: 'key', vk: 0, scan: unit, flags: KEYEVENTF.UNICODE },
    { type: 'key', vk: 0, scan: unit, flags: KEYEVENTF.UNICODE | KEYEVENTF.KEYUP },
  ];
}
