import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapedJson, firstSegments, lineCount, segments, segmentsText, SPACE_RUN_MIN, type Segment } from './untrustedText.js';

const shape = (segs: readonly Segment[]) =>
  segs.map((s) => (s.kind === 'text' ? s.text : s.kind === 'escape' ? `[${s.label}]` : s.kind === 'newline' ? `↵${s.label}` : `␣${s.text.length}`));

describe('untrusted text', () => {
  it('shows a right-to-left override as a chip before the text, in logical order', () => {
    const segs = segments('\u202Egnp.exe');
    assert.deepEqual(shape(segs), ['[U+202E RLO]', 'gnp.exe']);
    const chip = segs[0];
    assert.ok(chip?.kind === 'escape');
    assert.equal(chip.why, 'bidi');
    assert.equal(chip.name, 'right-to-left override (U+202E)');
  });

  it('marks soft hyphens, zero-width spaces, controls and tabs, and counts runs', () => {
    assert.deepEqual(shape(segments('De\u00ADlete all files and Se\u200Bnd to boss')), [
      'De',
      '[U+00AD SHY]',
      'lete all files and Se',
      '[U+200B ZWSP]',
      'nd to boss',
    ]);
    assert.deepEqual(shape(segments('a\u001b[2Jb\0c')), ['a', '[U+001B ESC]', '[2Jb', '[U+0000 NUL]', 'c']);
    assert.deepEqual(shape(segments('x\u200B\u200B\u200By')), ['x', '[U+200B ZWSP ×3]', 'y']);
    assert.deepEqual(shape(segments('k\tv')), ['k', '[U+0009 TAB]', 'v']);
    assert.equal((segments('k\tv')[1] as { why: string }).why, 'tab');
  });

  it('spells out what a run of tag characters says', () => {
    const smuggled = [...'hi there'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const segs = segments(`ok${smuggled}`);
    assert.deepEqual(shape(segs), ['ok', '[TAG “hi there”]']);
    assert.match((segs[1] as { name: string }).name, /8 hidden tag characters spelling “hi there”/);
  });

  it('shows line breaks as marks, each kind named, and counts lines', () => {
    const segs = segments('one\ntwo\r\nthree\u2028four\rfive');
    assert.deepEqual(shape(segs), ['one', '↵LF', 'two', '↵CR LF', 'three', '↵LS', 'four', '↵CR', 'five']);
    assert.equal(lineCount(segs), 5);
    assert.equal(lineCount(segments('\n'.repeat(60))), 61);
  });

  it('marks spaces at the ends, keeps the ones inside', () => {
    assert.deepEqual(shape(segments('  two  words ')), ['␣2', 'two  words', '␣1']);
    assert.deepEqual(shape(segments('   ')), ['␣3']);
    assert.deepEqual(shape(segments('')), []);
  });

  it('shows a run of spaces inside the text as one counted mark, so nothing can hide behind blank width', () => {
    const hidden = `ls -la${' '.repeat(3000)}; rm -rf ~/important`;
    const segs = segments(hidden);
    assert.deepEqual(shape(segs), ['ls -la', '␣3000', '; rm -rf ~/important']);
    assert.equal(segs[1]?.kind === 'space' && segs[1].edge, 'inside');
    assert.deepEqual(shape(firstSegments(segs, 40).shown), ['ls -la', '␣3000', '; rm -rf ~/important'], 'the collapsed view reaches the payload');
    assert.deepEqual(shape(segments(`a${' '.repeat(SPACE_RUN_MIN - 1)}b`)), [`a${' '.repeat(SPACE_RUN_MIN - 1)}b`], 'a short gap stays text');
    assert.deepEqual(shape(segments(`a${' '.repeat(SPACE_RUN_MIN)}b`)), ['a', `␣${SPACE_RUN_MIN}`, 'b']);
    assert.deepEqual(shape(segments('x\u00A0\u3000\u2003 \u00A0y')), ['x', '␣5', 'y'], 'no-break, ideographic and em spaces count as blanks');
    assert.equal(segmentsText(segs), hidden);
  });

  it('leaves plain text of any script whole, and collapses only piles of combining marks', () => {
    for (const t of ['Save', 'Сохранить', 'שלום עולם', 'مرحبا', '日本語', 'e\u0301te\u0301', '😀 ok']) assert.deepEqual(shape(segments(t)), [t]);
    const zalgo = `Z${'\u0336\u0301\u0316'.repeat(10)}ok`;
    const segs = segments(zalgo);
    assert.deepEqual(shape(segs), ['Z', '[U+0336… 30 marks]', 'ok']);
  });

  it('joins back to the exact string, whatever it holds', () => {
    const samples = [
      '\u202Egnp.exe',
      'De\u00ADlete all files and Se\u200Bnd to boss',
      '  lead and trail \t ',
      '\r\n\r\n\n\u2029',
      `x${'\n'.repeat(60)}y`,
      '\uD800 lone \uDC00',
      `emoji 👨\u200D👩\u200D👧 ❤\uFE0F ${String.fromCodePoint(0xe0041, 0xe0042)}`,
      `Z${'\u0301'.repeat(9)}`,
    ];
    // And a few thousand strings drawn from a mix of plain and hidden characters.
    const pool = [
      'a',
      ' ',
      ' ',
      ' ',
      '\u00A0',
      '\n',
      '\r',
      '\t',
      '\u202E',
      '\u2066',
      '\u200B',
      '\u00AD',
      '\u0301',
      '\u{E0061}',
      'ш',
      '\0',
      '\uFE0F',
      '\uD83D\uDE00',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % pool.length;
    for (let n = 0; n < 3000; n++) samples.push(Array.from({ length: 1 + (n % 17) }, () => pool[next()]).join(''));
    for (const t of samples) assert.equal(segmentsText(segments(t)), t, JSON.stringify(t));
  });

  it('cuts a huge string to a prefix for the collapsed view, never inside a mark', () => {
    const segs = segments(`${'a'.repeat(10)}\u202E${'b'.repeat(10)}`);
    assert.deepEqual(shape(firstSegments(segs, 5).shown), ['aaaaa']);
    assert.deepEqual(shape(firstSegments(segs, 11).shown), ['aaaaaaaaaa', '[U+202E RLO]']);
    assert.equal(firstSegments(segs, 11).cut, true);
    assert.equal(firstSegments(segs, 21).cut, false);
  });

  it('writes JSON with hidden characters as \\u escapes: the same JSON, nothing hidden', () => {
    const value = { text: '\u202Egnp.exe', name: 'a\u200Bb\n', tag: '\u{E0041}' };
    const json = escapedJson(value);
    assert.equal(json.includes('\u202E'), false);
    assert.match(json, /"\\u202egnp\.exe"/);
    assert.match(json, /"a\\u200bb\\n"/);
    assert.match(json, /"\\udb40\\udc41"/);
    assert.deepEqual(JSON.parse(json), value);
  });
});
