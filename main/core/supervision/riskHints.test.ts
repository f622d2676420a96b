import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { riskHints, skeleton } from './riskHints.js';

/** The mathematical bold capital and small letters of an ASCII word (U+1D400, U+1D41A). */
const mathBold = (word: string): string =>
  [...word].map((c) => String.fromCodePoint(c >= 'a' ? 0x1d41a + c.charCodeAt(0) - 97 : 0x1d400 + c.charCodeAt(0) - 65)).join('');
/** The fullwidth forms of an ASCII word (U+FF01 onwards). */
const fullwidth = (word: string): string => [...word].map((c) => String.fromCodePoint(c.charCodeAt(0) + 0xfee0)).join('');

describe('risk hints', () => {
  it('names risk words in targets, text and ancestors, in the list order, and nothing in plain text without them', () => {
    assert.deepEqual(riskHints(['Delete all', undefined, 'Send money']), ['Delete', 'Send']);
    assert.deepEqual(riskHints(['Send money', 'Delete all']), ['Delete', 'Send']);
    assert.deepEqual(riskHints(['Save', 'Overseer Fixture', 'push_button:Counter', 'Hello, world! 42 apples.', '']), []);
    assert.deepEqual(riskHints([undefined]), []);
  });

  it('matches only at the start of a word, in any script', () => {
    assert.deepEqual(riskHints(['Undelete']), [], 'not inside a word');
    assert.deepEqual(riskHints(['Resend']), []);
    assert.deepEqual(riskHints(['Ünsend', 'Дsend', 'ñdelete']), [], 'a non-ASCII letter before the word is a letter too');
    assert.deepEqual(riskHints(['re-send']), ['Send']);
    assert.deepEqual(riskHints(['push_button:Delete']), ['Delete'], 'an ancestor step role:name');
    assert.deepEqual(riskHints(['ファイルをdelete']), ['Delete'], 'a script written without spaces ends the word before');
    assert.deepEqual(riskHints(['«Delete»', '(pay)']), ['Delete', 'Pay']);
    assert.deepEqual(riskHints(['Deleted items', 'Signature']), ['Delete', 'Sign'], 'a word that starts with a risk word');
  });

  it('sees through a soft hyphen and a zero-width space, and says hidden characters are there', () => {
    assert.deepEqual(riskHints(['De\u00ADlete all files and Se\u200Bnd to boss']), ['Delete', 'Send', 'Hidden characters']);
    assert.deepEqual(riskHints(['D\u2060e\uFEFFl\u200Dete']), ['Delete', 'Hidden characters'], 'word joiner, BOM, zero-width joiner');
    assert.deepEqual(riskHints(['Del\u{E0041}ete']), ['Delete', 'Hidden characters'], 'a tag character');
    assert.deepEqual(riskHints(['Del\uFE0Fete']), ['Delete', 'Hidden characters'], 'a variation selector');
  });

  it('gives a right-to-left override its own hint, with or without a risk word', () => {
    assert.deepEqual(riskHints(['\u202Egnp.exe']), ['Text direction override']);
    assert.deepEqual(riskHints(['report\u2067fdp.exe\u2069']), ['Text direction override'], 'an isolate');
    assert.deepEqual(
      riskHints(['\u202EeteleD']),
      ['Text direction override'],
      'raw, this shows "Delete"; the card shows the override as an escape and the letters in their real order, which spell no risk word',
    );
    assert.deepEqual(riskHints(['Send\u200E']), ['Send', 'Text direction override'], 'a left-to-right mark');
  });

  it('reads controls as word breaks, not as glue', () => {
    assert.deepEqual(riskHints(['keep\nsend now']), ['Send'], 'a newline starts a word');
    assert.deepEqual(riskHints(['keep\tsend']), ['Send']);
    assert.deepEqual(riskHints(['x\u001bdelete']), ['Delete', 'Hidden characters'], 'ESC is a hidden character and a break');
    assert.deepEqual(riskHints(['line one\r\nline two']), [], 'line breaks alone earn no hint: the card shows them as marks');
  });

  it('finds risk words written with look-alike letters, and says they are disguised', () => {
    assert.deepEqual(riskHints(['D\u0435lete']), ['Delete', 'Look-alike characters'], 'Cyrillic е (U+0435)');
    assert.deepEqual(riskHints(['\u0405end']), ['Send', 'Look-alike characters'], 'Cyrillic Ѕ (U+0405)');
    assert.deepEqual(riskHints(['\u0420\u0430y']), ['Pay', 'Look-alike characters'], 'Cyrillic Р and а');
    assert.deepEqual(riskHints([fullwidth('Delete')]), ['Delete', 'Look-alike characters'], 'fullwidth Ｄｅｌｅｔｅ');
    assert.deepEqual(riskHints([mathBold('Delete')]), ['Delete', 'Look-alike characters'], 'mathematical bold 𝐃𝐞𝐥𝐞𝐭𝐞');
    assert.deepEqual(riskHints(['Déléte']), ['Delete', 'Look-alike characters'], 'accents do not hide the word');
    assert.deepEqual(riskHints(['D\u0336e\u0336l\u0336e\u0336t\u0336e\u0336']), ['Delete', 'Look-alike characters'], 'nor do strike-through marks');
    assert.deepEqual(riskHints(['rernove', '0rder']), ['Remove', 'Order', 'Look-alike characters'], 'rn for m, 0 for o');
    assert.deepEqual(riskHints(['DELETE', 'Delete']), ['Delete'], 'case is not a disguise');
  });

  it('maps look-alikes to one skeleton', () => {
    assert.equal(skeleton('D\u0435lete'), skeleton('delete'));
    assert.equal(skeleton(fullwidth('DELETE')), skeleton('delete'));
    assert.equal(skeleton(mathBold('Send')), skeleton('send'));
    assert.equal(skeleton('Se\u200Bnd'), 'send');
    assert.notEqual(skeleton('Save'), skeleton('Send'));
  });

  it('reads a text of the largest size an agent may send', () => {
    const big = `${'lorem ipsum \u200B dolor '.repeat(5000)}Send`.slice(-100_000);
    assert.equal(big.length, 100_000);
    const started = performance.now();
    assert.deepEqual(riskHints([big]), ['Send', 'Hidden characters']);
    console.log(`[risk-hints] ${big.length} characters in ${(performance.now() - started).toFixed(1)} ms`);
  });
});
