import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { knownKeyNames as x11KeyNames } from '../keysyms.js';
import { knownKeyNames, virtualKeyOf } from './win32KeyNames.js';

describe('Windows virtual-key names', () => {
  it('knows every named key the X11 backend knows, so one name works on both', () => {
    const missing = x11KeyNames().filter((name) => virtualKeyOf(name) === null);
    assert.deepEqual(missing, []);
  });

  it('maps names to their VK codes, with KEYEVENTF_EXTENDEDKEY on the enhanced block', () => {
    assert.deepEqual(virtualKeyOf('Return'), { vk: 0x0d, extended: false });
    assert.deepEqual(virtualKeyOf('Escape'), { vk: 0x1b, extended: false });
    assert.deepEqual(virtualKeyOf('BackSpace'), { vk: 0x08, extended: false });
    assert.deepEqual(virtualKeyOf('Control_L'), { vk: 0xa2, extended: false });
    assert.deepEqual(virtualKeyOf('Control_R'), { vk: 0xa3, extended: true });
    assert.deepEqual(virtualKeyOf('Alt_R'), { vk: 0xa5, extended: true });
    assert.deepEqual(virtualKeyOf('Super_L'), { vk: 0x5b, extended: true });
    assert.deepEqual(virtualKeyOf('Shift_R'), { vk: 0xa1, extended: false });
    for (const arrow of ['Left', 'Up', 'Right', 'Down', 'Delete', 'Insert', 'Home', 'End', 'Page_Up', 'Page_Down']) {
      assert.equal(virtualKeyOf(arrow)?.extended, true, arrow);
    }
    assert.deepEqual(virtualKeyOf('F1'), { vk: 0x70, extended: false });
    assert.deepEqual(virtualKeyOf('F12'), { vk: 0x7b, extended: false });
    assert.deepEqual(virtualKeyOf('F24'), { vk: 0x87, extended: false });
  });

  it('knows nothing else: no aliases, no inherited object keys', () => {
    for (const name of ['enter', 'ctrl', 'F25', 'F0', 'constructor', 'toString', '__proto__', 'a']) assert.equal(virtualKeyOf(name), null, name);
    assert.equal(new Set(knownKeyNames()).size, knownKeyNames().length);
  });
});
