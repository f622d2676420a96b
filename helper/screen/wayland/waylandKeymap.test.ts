import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { compileKeymap, KeymapUnknown, parseKxkbrc, parseSources, parseStrings, readInputSources } from './waylandKeymap.js';

const cp = (ch: string): number => ch.codePointAt(0) ?? 0;
const us = { layout: 'us', variant: '' };
const ru = { layout: 'ru', variant: '' };

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

  it("trusts GNOME's settings only on GNOME and kxkbrc only on KDE: elsewhere the layouts are unknown, never guessed", async () => {
    for (const desktop of ['', 'sway', 'XFCE'])
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

  it("reads KDE's kxkbrc: LayoutList, VariantList and Options of [Layout], and us where it names none", () => {
    assert.deepEqual(parseKxkbrc(''), { layouts: [us], options: '' });
    assert.deepEqual(parseKxkbrc('[Layout]\nUse=false\nLayoutList=de\n'), { layouts: [us], options: '' }, 'KDE does not manage the layouts');
    assert.deepEqual(
      parseKxkbrc(
        '[$Version]\nupdate_info=kxkb.upd\n\n[Layout]\nDisplayNames=,\nLayoutList=us,de\nOptions=grp:alt_shift_toggle\nUse=true\nVariantList=,nodeadkeys\n[Other]\nLayoutList=fr\n',
      ),
      { layouts: [us, { layout: 'de', variant: 'nodeadkeys' }], options: 'grp:alt_shift_toggle' },
    );
  });

  it('on KDE trusts a single layout, and several only when KDE says which is in use', async () => {
    const config = mkdtempSync(path.join(os.tmpdir(), 'overseer-kxkbrc-'));
    try {
      const env = { XDG_CURRENT_DESKTOP: 'KDE', XDG_CONFIG_HOME: config };
      assert.deepEqual(await readInputSources(env), { layouts: [us], current: 0, lookup: 0, options: '' }, 'no kxkbrc: KDE types with us');
      writeFileSync(path.join(config, 'kxkbrc'), '[Layout]\nLayoutList=us,ru\nUse=true\n');
      await assert.rejects(readInputSources(env), (e: unknown) => e instanceof KeymapUnknown && /which one is in use/.test(e.message));
      await assert.rejects(
        readInputSources(env, () => Promise.resolve(undefined)),
        (e: unknown) => e instanceof KeymapUnknown,
      );
      assert.deepEqual(await readInputSources(env, () => Promise.resolve(1)), { layouts: [us, ru], current: 1, lookup: 0, options: '' });
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it('models KWin 5.27: a keysym looked up in the first layout, its key typed with the layout in use', async () => {
    // Russian in use: `a` would type ф (its key there), ж is not in the first layout at all; digits are the same on both.
    const russianInUse = await compileKeymap({ layouts: [us, ru], current: 1, lookup: 0, options: '' });
    assert.equal(russianInUse.typeable(cp('a')), undefined, 'the key of a types ф with Russian in use');
    assert.equal(russianInUse.typeable(cp('ж')), undefined, 'dropped: not in the first layout');
    assert.deepEqual(russianInUse.typeable(cp('1')), { keysym: 0x31, level: 0 });
    assert.equal(russianInUse.layout, 'ru (keys looked up in us)');
    // The first layout in use: what it has is typeable, the second layout's characters are not.
    const usInUse = await compileKeymap({ layouts: [us, ru], current: 0, lookup: 0, options: '' });
    assert.deepEqual(usInUse.typeable(cp('a')), { keysym: 0x61, level: 0 });
    assert.deepEqual(usInUse.typeable(cp('A')), { keysym: 0x41, level: 1 });
    assert.equal(usInUse.typeable(cp('ж')), undefined);
    // German in use after us: z is on the key that types y there.
    const germanInUse = await compileKeymap({ layouts: [us, { layout: 'de', variant: '' }], current: 1, lookup: 0, options: '' });
    assert.equal(germanInUse.typeable(cp('z')), undefined);
    assert.deepEqual(germanInUse.typeable(cp('a')), { keysym: 0x61, level: 0 });
  });
});
