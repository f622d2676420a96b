import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { INPUT_SIZE, KEYEVENTF, MOUSEEVENTF } from './win32Inputs.js';
import { Win32Input } from './win32Input.js';
import type { ScreenApi } from './win32ScreenApi.js';

/** What one SendInput call carried, decoded back from the INPUT bytes. */
type Sent = Array<{ mouse: number; data: number; dx: number; dy: number } | { key: number; scan: number; flags: number }>;

/** A ScreenApi with only what Win32Input calls: it records every SendInput batch; `accept` caps the insert count. */
function fakeApi(options: { accept?: number; held?: number[]; vkScan?: Record<string, number> } = {}): { api: ScreenApi; batches: Sent[] } {
  const batches: Sent[] = [];
  const api = {
    SendInput: (count: number, inputs: Buffer, size: number) => {
      assert.equal(size, INPUT_SIZE);
      const batch: Sent = [];
      for (let i = 0; i < count; i++) {
        const o = i * INPUT_SIZE;
        if (inputs.readUInt32LE(o) === 0)
          batch.push({ mouse: inputs.readUInt32LE(o + 20), data: inputs.readInt32LE(o + 16), dx: inputs.readInt32LE(o + 8), dy: inputs.readInt32LE(o + 12) });
        else batch.push({ key: inputs.readUInt16LE(o + 8), scan: inputs.readUInt16LE(o + 10), flags: inputs.readUInt32LE(o + 12) });
      }
      batches.push(batch);
      return Math.min(count, options.accept ?? count);
    },
    GetLastError: () => 5,
    GetAsyncKeyState: (vk: number) => ((options.held ?? []).includes(vk) ? -0x8000 : 0),
    MapVirtualKeyW: (vk: number) => vk + 0x100, // a marker: the low byte is the scan code sent
    VkKeyScanW: (ch: number) => options.vkScan?.[String.fromCharCode(ch)] ?? -1,
    GetCursorPos: () => false,
  } as unknown as ScreenApi;
  return { api, batches };
}

const DESK = { x: -1280, y: 0, width: 2560, height: 1024 };
const MOVE = MOUSEEVENTF.MOVE | MOUSEEVENTF.ABSOLUTE | MOUSEEVENTF.VIRTUALDESK;

describe('Win32Input over SendInput', () => {
  it('refuses with input_unavailable, the count and GetLastError, when SendInput inserts fewer events (UIPI)', () => {
    const { api } = fakeApi({ accept: 1 });
    assert.throws(
      () => new Win32Input(api, () => DESK).click(0, 0, 'left', 1),
      (e: unknown) =>
        e instanceof OverseerError &&
        e.code === 'input_unavailable' &&
        e.info.data?.['reason'] === 'sendinput_blocked' &&
        e.info.data['inserted'] === 1 &&
        e.info.data['requested'] === 3 &&
        e.info.data['last_error'] === 5,
    );
  });

  it('sends a double click as one burst: an absolute virtual-desktop move, then two presses and releases, each at the point', () => {
    const { api, batches } = fakeApi();
    new Win32Input(api, () => DESK).click(-1, 5, 'right', 2);
    assert.deepEqual(
      batches[0]?.map((r) => ('mouse' in r ? r.mouse : -1)),
      [MOVE, MOVE | MOUSEEVENTF.RIGHTDOWN, MOVE | MOUSEEVENTF.RIGHTUP, MOVE | MOUSEEVENTF.RIGHTDOWN, MOVE | MOUSEEVENTF.RIGHTUP],
    );
    assert.equal(new Set(batches[0]?.map((r) => ('mouse' in r ? `${r.dx},${r.dy}` : '?'))).size, 1);
  });

  it('scrolls one WHEEL_DELTA per detent, each at the point: up and right positive, down and left negative', () => {
    const { api, batches } = fakeApi();
    const input = new Win32Input(api, () => DESK);
    input.scroll(0, 0, 'down', 2);
    input.scroll(0, 0, 'left', 1);
    input.scroll(0, 0, 'right', 1);
    const wheel = batches
      .flatMap((b) => b.slice(1))
      .map((r) => ('mouse' in r ? `${r.mouse === (MOVE | MOUSEEVENTF.WHEEL) ? 'v' : r.mouse === (MOVE | MOUSEEVENTF.HWHEEL) ? 'h' : '?'}${r.data}` : '?'));
    assert.deepEqual(wheel, ['v-120', 'v-120', 'h-120', 'h120']);
    assert.equal(new Set(batches.flat().map((r) => ('mouse' in r ? `${r.dx},${r.dy}` : '?'))).size, 1);
  });

  it('taps a combo in order and releases it in reverse, with scan codes and the extended flag', () => {
    const { api, batches } = fakeApi({ vkScan: { s: 0x53, S: 0x153 } });
    new Win32Input(api, () => DESK).key(['Control_R', 'S'], 'tap');
    assert.deepEqual(batches[0], [
      { key: 0xa3, scan: 0xa3, flags: KEYEVENTF.EXTENDEDKEY },
      { key: 0xa0, scan: 0xa0, flags: 0 }, // Shift, which 'S' needs in this layout
      { key: 0x53, scan: 0x53, flags: 0 },
      { key: 0x53, scan: 0x53, flags: KEYEVENTF.KEYUP },
      { key: 0xa0, scan: 0xa0, flags: KEYEVENTF.KEYUP },
      { key: 0xa3, scan: 0xa3, flags: KEYEVENTF.EXTENDEDKEY | KEYEVENTF.KEYUP },
    ]);
  });

  it('sends a character no key of the layout types as its UTF-16 units', () => {
    const { api, batches } = fakeApi();
    new Win32Input(api, () => DESK).key(['😀'], 'tap');
    assert.deepEqual(
      batches[0]?.map((r) => ('key' in r ? [r.scan.toString(16), r.flags] : [])),
      [
        ['d83d', KEYEVENTF.UNICODE],
        ['de00', KEYEVENTF.UNICODE],
        ['d83d', KEYEVENTF.UNICODE | KEYEVENTF.KEYUP], // the pair released as one key, in its own order
        ['de00', KEYEVENTF.UNICODE | KEYEVENTF.KEYUP],
      ],
    );
  });

  it('refuses to type while a modifier is held, and sends nothing', () => {
    const { api, batches } = fakeApi({ held: [0x11] });
    assert.throws(
      () => new Win32Input(api, () => DESK).typeText('x'),
      (e: unknown) => e instanceof OverseerError && e.info.data?.['reason'] === 'modifier_held',
    );
    assert.equal(batches.length, 0);
  });

  it('releases what it holds on close', () => {
    const { api, batches } = fakeApi();
    const input = new Win32Input(api, () => DESK);
    input.button('left', 'down');
    input.key(['Shift_L'], 'down');
    input.close();
    assert.deepEqual(batches.at(-1), [
      { mouse: MOUSEEVENTF.LEFTUP, data: 0, dx: 0, dy: 0 },
      { key: 0xa0, scan: 0xa0, flags: KEYEVENTF.KEYUP },
    ]);
    input.close();
    assert.equal(batches.length, 3, 'a second close sends nothing');
  });
});
