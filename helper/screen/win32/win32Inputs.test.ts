import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { encodeInputs, INPUT_SIZE, KEYEVENTF, MOUSEEVENTF, typingPlan, unicodeStrokes } from './win32Inputs.js';

const units = (text: string): number[] => typingPlan(text).map((s) => ('unit' in s ? s.unit : -s.vk));

describe('typing plan (UTF-16 units for KEYEVENTF_UNICODE)', () => {
  it('sends BMP characters as one unit each: ASCII, Cyrillic, CJK', () => {
    assert.deepEqual(units('Hi!'), [0x48, 0x69, 0x21]);
    assert.deepEqual(units('жЁ'), [0x436, 0x401]);
    assert.deepEqual(units('漢字かな'), [0x6f22, 0x5b57, 0x304b, 0x306a]);
  });

  it('sends a character outside the BMP as its surrogate pair, high unit first', () => {
    assert.deepEqual(units('😀'), [0xd83d, 0xde00]);
    // A skin-tone modifier is a code point of its own: two pairs.
    assert.deepEqual(units('👍🏽'), [0xd83d, 0xdc4d, 0xd83c, 0xdffd]);
    assert.deepEqual(units('a𝄞b'), [0x61, 0xd834, 0xdd1e, 0x62]);
    assert.equal(String.fromCharCode(...units('é€😀👍🏽')), 'é€😀👍🏽');
  });

  it('types newline (and CR LF once) as Return, tab as Tab', () => {
    assert.deepEqual(units('a\nb\r\nc\td\r'), [0x61, -0x0d, 0x62, -0x0d, 0x63, -0x09, 0x64, -0x0d]);
  });

  it('refuses a lone surrogate with invalid_argument', () => {
    for (const bad of ['\ud83d', 'x\ude00y', '\ude00\ud83d']) {
      assert.throws(
        () => typingPlan(bad),
        (e: unknown) => e instanceof OverseerError && e.code === 'invalid_argument',
      );
    }
  });
});

describe('INPUT records', () => {
  it('lays out MOUSEINPUT and KEYBDINPUT as 64-bit Windows does', () => {
    const buf = encodeInputs([
      { type: 'mouse', dx: 32768, dy: 65535, data: -120, flags: MOUSEEVENTF.WHEEL },
      ...unicodeStrokes(0xd83d),
      { type: 'key', vk: 0x25, scan: 0x4b, flags: KEYEVENTF.EXTENDEDKEY | KEYEVENTF.KEYUP },
    ]);
    assert.equal(buf.length, 4 * INPUT_SIZE);
    assert.deepEqual(
      [buf.readUInt32LE(0), buf.readInt32LE(8), buf.readInt32LE(12), buf.readInt32LE(16), buf.readUInt32LE(20)],
      [0, 32768, 65535, -120, 0x0800],
    );
    assert.deepEqual([buf.readUInt32LE(24), buf.readBigUInt64LE(32)], [0, 0n], 'time and dwExtraInfo are zero');
    const k = INPUT_SIZE;
    assert.deepEqual([buf.readUInt32LE(k), buf.readUInt16LE(k + 8), buf.readUInt16LE(k + 10), buf.readUInt32LE(k + 12)], [1, 0, 0xd83d, KEYEVENTF.UNICODE]);
    assert.equal(buf.readUInt32LE(2 * k + 12), KEYEVENTF.UNICODE | KEYEVENTF.KEYUP);
    assert.deepEqual([buf.readUInt16LE(3 * k + 8), buf.readUInt16LE(3 * k + 10), buf.readUInt32LE(3 * k + 12)], [0x25, 0x4b, 3]);
  });
});
