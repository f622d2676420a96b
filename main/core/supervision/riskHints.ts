// Risk hints (docs/supervision.md#risk-hints): words on a card that deserve a second look, found
// on what a person reads, not on the code points an agent chose. A soft hyphen, a zero-width space,
// a Cyrillic е, fullwidth or mathematical letters all leave "Delete" looking like "Delete", so the
// words are matched on a skeleton of the text; the characters that hide or reorder text earn hints
// of their own.
import unhomoglyph from 'unhomoglyph';
import { DIRECTION_HINT, HIDDEN_HINT, LOOKALIKE_HINT, hiddenCharHints } from '../../../protocol/index.js';

/** Words that deserve a second look before approving. */
export const RISK_WORDS = [
  'delete',
  'remove',
  'erase',
  'destroy',
  'send',
  'submit',
  'pay',
  'purchase',
  'buy',
  'order',
  'transfer',
  'format',
  'wipe',
  'reset',
  'uninstall',
  'overwrite',
  'discard',
  'publish',
  'confirm',
  'sign',
] as const;

/** Controls break words (a newline between two words is a space to the reader). */
const CONTROLS = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
/** Shown as nothing: removed, so "De\u00ADlete" is the word it looks like. */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const MARKS = /\p{M}/gu;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const UNSPACED = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]$/u;

/**
 * What a text looks like, for matching words: NFKC (fullwidth, mathematical and other compatibility
 * letters become plain ones), controls as spaces, invisible characters removed, lower case, each
 * character mapped to its prototype by Unicode's confusables table (UTS #39, through `unhomoglyph`),
 * and accents dropped. Two texts that look alike have the same skeleton; it is not for reading
 * (`m` becomes `rn`).
 */
export function skeleton(text: string): string {
  const visible = text.normalize('NFKC').replace(CONTROLS, ' ').replace(INVISIBLE, '');
  return unhomoglyph(visible.toLowerCase()).toLowerCase().normalize('NFD').replace(MARKS, '');
}

/** The plain reading of a text, without look-alike mapping: a risk word found only in the skeleton was disguised. */
function plainReading(text: string): string {
  return text.replace(CONTROLS, ' ').replace(INVISIBLE, '').toLowerCase();
}

const WORD_SKELETONS = RISK_WORDS.map((w) => ({ hint: w.charAt(0).toUpperCase() + w.slice(1), word: w, skeleton: skeleton(w) }));

/**
 * The risk words at the start of a word of `text`: after anything but a letter or digit
 * (`file:delete`, `re-send`), or after a letter of a script written without spaces between words
 * (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar: `ファイルをdelete`), where Unicode's word
 * rules (UAX #29) start a word too. A letter of another alphabet glues (`Дsend` is one word).
 */
function wordStarts(text: string, words: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const w of words) {
    for (let at = text.indexOf(w); at >= 0 && !found.has(w); at = text.indexOf(w, at + 1)) {
      const before = [...text.slice(Math.max(0, at - 2), at)].at(-1);
      if (before === undefined || !LETTER_OR_DIGIT.test(before) || UNSPACED.test(before)) found.add(w);
    }
  }
  return found;
}

/**
 * Risk hints for the texts a card shows (the target's name, the text to set or type, the
 * ancestors' names, the window title, the keys): the risk words, by their skeleton, at the start
 * of a word; then "Look-alike characters" when a word was found only through its skeleton; then
 * "Text direction override" and "Hidden characters" when any text holds such characters.
 */
export function riskHints(texts: readonly (string | undefined)[]): string[] {
  const words = new Set<string>();
  const chars = new Set<string>();
  let disguised = false;
  for (const t of texts) {
    if (t === undefined || t === '') continue;
    const bySkeleton = wordStarts(
      skeleton(t),
      WORD_SKELETONS.map((w) => w.skeleton),
    );
    if (bySkeleton.size === 0) {
      for (const h of hiddenCharHints(t)) chars.add(h);
      continue;
    }
    const plain = wordStarts(plainReading(t), RISK_WORDS);
    for (const w of WORD_SKELETONS) {
      if (!bySkeleton.has(w.skeleton)) continue;
      words.add(w.hint);
      if (!plain.has(w.word)) disguised = true;
    }
    for (const h of hiddenCharHints(t)) chars.add(h);
  }
  return [
    ...WORD_SKELETONS.filter((w) => words.has(w.hint)).map((w) => w.hint),
    ...(disguised ? [LOOKALIKE_HINT] : []),
    ...[DIRECTION_HINT, HIDDEN_HINT].filter((h) => chars.has(h)),
  ];
}
