import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { charName, escapeHiddenPlain, hiddenCharHints, hiddenKind, logSafe } from '../index.js';

describe('hidden characters', () => {
  it('classifies bidi controls, invisible characters, line breaks and tabs, and leaves visible text alone', () => {
    for (const ch of ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'])
      assert.equal(hiddenKind(ch), 'bidi', charName(ch).code);
    const hidden = ['\0', '\u001b', '\u007f', '\u0080', '\u009b', '\u00AD', '\u034F', '\u180E', '\u200B', '\u200C', '\u200D', '\u2060', '\u2062', '\uFEFF'];
    hidden.push('\u3164', '\uFFA0', '\u115F', '\uFE0F', '\u{E0100}', '\u{E0001}', '\u{E0041}', '\u{E007F}', '\u2800', '\uD800', '\uFFF9');
    for (const ch of hidden) assert.equal(hiddenKind(ch), 'hidden', charName(ch).code);
    for (const ch of ['\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029']) assert.equal(hiddenKind(ch), 'newline', charName(ch).code);
    assert.equal(hiddenKind('\t'), 'tab');
    for (const ch of ['a', ' ', '\u00A0', 'е', 'Ｄ', '\u{1D403}', '\u0301', 'א', 'ش', '😀', '\u3000', '\uE000'])
      assert.equal(hiddenKind(ch), undefined, `${charName(ch).code} shows as itself`);
  });

  it('names the characters people meet, and gives every other one its code point', () => {
    assert.deepEqual(charName('\u202E'), { code: 'U+202E', short: 'RLO', name: 'right-to-left override' });
    assert.deepEqual(charName('\0'), { code: 'U+0000', short: 'NUL', name: 'control character NUL' });
    assert.equal(charName('\u001b').short, 'ESC');
    assert.equal(charName('\u009b').short, 'CSI');
    assert.equal(charName('\u00AD').short, 'SHY');
    assert.equal(charName('\u200B').short, 'ZWSP');
    assert.equal(charName('\uFE0F').short, 'VS16');
    assert.equal(charName('\u{E0100}').short, 'VS17');
    assert.equal(charName('\u{E0068}').short, 'TAG h');
    assert.deepEqual(charName('\u{E0FFF}'), { code: 'U+E0FFF', short: '', name: 'invisible or format character' });
  });

  it('writes plain text with escapes, so a notification or a label hides nothing', () => {
    assert.equal(escapeHiddenPlain('\u202Egnp.exe'), '⟦U+202E RLO⟧gnp.exe');
    assert.equal(escapeHiddenPlain('De\u00ADlete\nall'), 'De⟦U+00AD SHY⟧lete↵all');
    assert.equal(escapeHiddenPlain('plain text, Сохранить'), 'plain text, Сохранить');
  });

  it('earns a direction hint for bidi controls and a hidden hint for the rest, none for line breaks and tabs', () => {
    assert.deepEqual(hiddenCharHints('\u202Egnp.exe'), ['Text direction override']);
    assert.deepEqual(hiddenCharHints('a\u200Bb\u2067c'), ['Text direction override', 'Hidden characters']);
    assert.deepEqual(hiddenCharHints('one\ntwo\tthree\r\n'), []);
    assert.deepEqual(hiddenCharHints('plain'), []);
  });
});

describe('a remote’s text made safe for the log', () => {
  it('writes every control, C1 control and bidi override as a visible escape, so nothing reaches the terminal raw', () => {
    const hostile = '\x1b]0;pwned\x07\x1b]52;c;b3ZlcnNlZXI=\x07\x1b[2J\rOverseer UI: http://127.0.0.1:1/pair?code=x\u202egnp.exe\u2066\x9b\x7f\t\0';
    const safe = logSafe(hostile);
    assert.equal(
      safe,
      '\\x1b]0;pwned\\x07\\x1b]52;c;b3ZlcnNlZXI=\\x07\\x1b[2J\\x0dOverseer UI: http://127.0.0.1:1/pair?code=x\\u202egnp.exe\\u2066\\x9b\\x7f\\x09\\x00',
    );
    assert.ok(![...safe].some((ch) => hiddenKind(ch) !== undefined), 'nothing hidden is left');
  });

  it('doubles a backslash so an escape cannot be faked, and leaves ordinary text of any script alone', () => {
    assert.equal(logSafe('C:\\x1b is text'), 'C:\\\\x1b is text');
    assert.equal(logSafe('Straße Ёжик 東京 🙂'), 'Straße Ёжик 東京 🙂');
    assert.equal(logSafe('\u{e0041}'), '\\u{e0041}', 'a tag character');
  });

  it('cuts a long line and says how much was cut', () => {
    const cut = logSafe('a'.repeat(5000), 100);
    assert.equal(cut, `${'a'.repeat(100)}… (4900 more characters cut)`);
    assert.ok(logSafe('\x1b'.repeat(5000), 100).length < 140, 'escapes count toward the cap');
    assert.equal(logSafe('short', 100), 'short');
  });
});
