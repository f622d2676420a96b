import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { charKeysym, keysymOf } from './keysyms.js';

describe('key names as X keysyms', () => {
  it('maps Latin-1 to itself, other code points to 0x1000000 + code point, newline and tab to keys', () => {
    assert.equal(charKeysym(0x61), 0x61);
    assert.equal(charKeysym(0xe9), 0xe9);
    assert.equal(charKeysym(0x436), 0x1000436);
    assert.equal(charKeysym(0x1f600), 0x101f600);
    assert.equal(charKeysym(0x0a), 0xff0d);
    assert.equal(charKeysym(0x09), 0xff09);
  });

  it('knows the named keys of its table and single characters, nothing else', () => {
    assert.equal(keysymOf('Return'), 0xff0d);
    assert.equal(keysymOf('Control_L'), 0xffe3);
    assert.equal(keysymOf('F1'), 0xffbe);
    assert.equal(keysymOf('F12'), 0xffc9);
    assert.equal(keysymOf('😀'), 0x101f600);
    assert.equal(keysymOf('ж'), 0x1000436);
    assert.equal(keysymOf('enter'), null);
    assert.equal(keysymOf('ab'), null);
    assert.equal(keysymOf('\u0001'), null);
  });
});
