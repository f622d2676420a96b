import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileKeymap, KeymapUnknown, parseSources, parseStrings, readInputSources } from './waylandKeymap.js';

describe("the keyboard layout's typeable characters", () => {
  it("reads GNOME's input sources and options as gsettings prints them", () => {
    assert.deepEqual(parseSources("[('xkb', 'us'), ('xkb', 'de+nodeadkeys'), ('ibus', 'anthy')]"), [
      ['xkb', 'us'],
      ['xkb', 'de+nodeadkeys'],
      ['ibus', 'anthy'],
    ]);
    assert.deepEqual(parseSources('@a(ss) []'), []);
    assert.deepEqual(parseStrings("['compose:ralt', 'caps:escape']"), ['compose:ralt', 'caps:escape']);
    assert.deepEqual(parseStrings('@as []'), []);
  });

  it("trusts GNOME's settings only on GNOME: elsewhere the layouts are unknown, never guessed", async () => {
    for (const desktop of ['KDE', '', 'sway'])
      await assert.rejects(readInputSources({ XDG_CURRENT_DESKTOP: desktop, PATH: process.env['PATH'] }), (e: unknown) => e instanceof KeymapUnknown);
  });

  it('finds each character as the compositor would, on the current layout, with its level', async () => {
    const us = await compileKeymap({ layouts: [{ layout: 'us', variant: '' }], current: 0, options: '' });
    assert.equal(us.layout, 'us');
    assert.deepEqual(us.typeable(0x61), { keysym: 0x61, level: 0 });
    assert.deepEqual(us.typeable(0x41), { keysym: 0x41, level: 1 }, 'A needs Shift');
    for (const ch of ['ж', '漢', '😀', 'é']) assert.equal(us.typeable(ch.codePointAt(0) ?? 0), undefined, `${ch} is not on a us layout`);
    assert.equal(us.hasKeysym(0xff0d), true, 'Return');
    assert.equal(us.hasKeysym(0xffc2), true, 'F5');
  });

  it("sends the layout's own keysym: a Russian layout has Cyrillic_zhe, not U+0436's", async () => {
    const ru = await compileKeymap({
      layouts: [
        { layout: 'us', variant: '' },
        { layout: 'ru', variant: '' },
      ],
      current: 1,
      options: '',
    });
    assert.deepEqual(ru.typeable('ж'.codePointAt(0) ?? 0), { keysym: 0x6d6, level: 0 });
    assert.deepEqual(ru.typeable('Ж'.codePointAt(0) ?? 0), { keysym: 0x6f6, level: 1 });
    assert.equal(ru.typeable(0x61), undefined, 'the layout in use is the Russian one');
  });

  it('reaches the third level with AltGr where the layout has it (German @ and €)', async () => {
    const de = await compileKeymap({ layouts: [{ layout: 'de', variant: '' }], current: 0, options: '' });
    assert.deepEqual(de.typeable(0x40), { keysym: 0x40, level: 2 });
    assert.deepEqual(de.typeable(0xdf), { keysym: 0xdf, level: 0 }, 'ß');
  });
});
