// Characters a person cannot see as themselves: controls, format characters, bidi controls,
// zero-width and joiner characters, variation selectors, tag characters. The supervisor's risk
// hints and the UI's escapes both decide by this one table, so a card that warns about a hidden
// character also shows it (docs/security.md#what-a-card-can-and-cannot-show).

/**
 * How a character misleads when shown raw: `bidi` reorders what is around it, `hidden` shows
 * nothing (or a box), `newline` and `tab` move what follows.
 */
export type HiddenKind = 'bidi' | 'hidden' | 'newline' | 'tab';

/** Line breaks: LF, VT, FF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. */
const NEWLINE = /^[\n\v\f\r\u0085\u2028\u2029]$/u;
/** Explicit bidi formatting: ALM, LRM, RLM, the embeddings and overrides, the isolates. */
const BIDI = /^[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]$/u;
/**
 * Shown as nothing, as a box, or not as themselves: controls (Cc), format characters (Cf, which
 * include soft hyphen, zero-width space and joiners, word joiner, BOM, tag characters), everything
 * Unicode says to render invisibly (Default_Ignorable_Code_Point: variation selectors, Hangul
 * fillers, combining grapheme joiner), lone surrogates, and the blank braille pattern.
 */
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\u2800]$/u;
/** Any character of the kinds above (one code point; use with the `u` flag's iteration). */
export const HIDDEN_CHAR = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\u2028\u2029\u2800]/u;

/** How a character (one code point, as a string) misleads when shown raw, or undefined when it shows as itself. */
export function hiddenKind(ch: string): HiddenKind | undefined {
  if (!HIDDEN_CHAR.test(ch)) return undefined;
  if (ch === '\t') return 'tab';
  if (NEWLINE.test(ch)) return 'newline';
  if (BIDI.test(ch)) return 'bidi';
  return HIDDEN.test(ch) ? 'hidden' : undefined;
}

/** A hidden character's names: `short` for its escape on screen (`RLO`), `name` for screen readers and tooltips. */
export interface CharName {
  /** `U+202E`. */
  code: string;
  /** A short name, or '' when Unicode gives none that people know. */
  short: string;
  /** The character's name, lower case. */
  name: string;
}

const C0 = 'NUL SOH STX ETX EOT ENQ ACK BEL BS TAB LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US'.split(' ');
const C1 = 'PAD HOP BPH NBH IND NEL SSA ESA HTS HTJ VTS PLD PLU RI SS2 SS3 DCS PU1 PU2 STS CCH MW SPA EPA SOS SGC SCI CSI ST OSC PM APC'.split(' ');

/** Names of the format and invisible characters people meet, by code point. */
const NAMES: ReadonlyMap<number, [string, string]> = new Map([
  [0x7f, ['DEL', 'delete control']],
  [0xad, ['SHY', 'soft hyphen']],
  [0x34f, ['CGJ', 'combining grapheme joiner']],
  [0x61c, ['ALM', 'arabic letter mark']],
  [0x115f, ['HCF', 'hangul choseong filler']],
  [0x1160, ['HJF', 'hangul jungseong filler']],
  [0x17b4, ['KIVAQ', 'khmer vowel inherent aq']],
  [0x17b5, ['KIVAA', 'khmer vowel inherent aa']],
  [0x180e, ['MVS', 'mongolian vowel separator']],
  [0x200b, ['ZWSP', 'zero width space']],
  [0x200c, ['ZWNJ', 'zero width non-joiner']],
  [0x200d, ['ZWJ', 'zero width joiner']],
  [0x200e, ['LRM', 'left-to-right mark']],
  [0x200f, ['RLM', 'right-to-left mark']],
  [0x2028, ['LS', 'line separator']],
  [0x2029, ['PS', 'paragraph separator']],
  [0x202a, ['LRE', 'left-to-right embedding']],
  [0x202b, ['RLE', 'right-to-left embedding']],
  [0x202c, ['PDF', 'pop directional formatting']],
  [0x202d, ['LRO', 'left-to-right override']],
  [0x202e, ['RLO', 'right-to-left override']],
  [0x2060, ['WJ', 'word joiner']],
  [0x2061, ['FA', 'function application']],
  [0x2062, ['IT', 'invisible times']],
  [0x2063, ['IS', 'invisible separator']],
  [0x2064, ['IP', 'invisible plus']],
  [0x2066, ['LRI', 'left-to-right isolate']],
  [0x2067, ['RLI', 'right-to-left isolate']],
  [0x2068, ['FSI', 'first strong isolate']],
  [0x2069, ['PDI', 'pop directional isolate']],
  [0x2800, ['BLANK', 'braille pattern blank']],
  [0x3164, ['HF', 'hangul filler']],
  [0xfeff, ['BOM', 'zero width no-break space (byte order mark)']],
  [0xffa0, ['HWHF', 'halfwidth hangul filler']],
  [0xfff9, ['IAA', 'interlinear annotation anchor']],
  [0xfffa, ['IAS', 'interlinear annotation separator']],
  [0xfffb, ['IAT', 'interlinear annotation terminator']],
  [0xe0001, ['LANG TAG', 'language tag']],
  [0xe007f, ['CANCEL TAG', 'cancel tag']],
]);

/** `U+202E`: the code point in hex, at least four digits. */
export function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The names of one hidden character (one code point). */
export function charName(ch: string): CharName {
  const cp = ch.codePointAt(0) ?? 0;
  const code = codePoint(ch);
  if (cp < 0x20) return { code, short: C0[cp] ?? '', name: `control character ${C0[cp] ?? ''}`.trim() };
  if (cp >= 0x80 && cp <= 0x9f) return { code, short: C1[cp - 0x80] ?? '', name: `control character ${C1[cp - 0x80] ?? ''}`.trim() };
  const named = NAMES.get(cp);
  if (named !== undefined) return { code, short: named[0], name: named[1] };
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) {
    const n = cp <= 0xfe0f ? cp - 0xfe00 + 1 : cp - 0xe0100 + 17;
    return { code, short: `VS${n}`, name: `variation selector ${n}` };
  }
  if (cp >= 0x180b && cp <= 0x180f) return { code, short: `FVS${cp === 0x180f ? 4 : cp - 0x180b + 1}`, name: 'mongolian free variation selector' };
  if (cp >= 0xe0020 && cp <= 0xe007e)
    return { code, short: `TAG ${String.fromCharCode(cp - 0xe0000)}`, name: `tag character ${String.fromCharCode(cp - 0xe0000)}` };
  if (cp >= 0xd800 && cp <= 0xdfff) return { code, short: '', name: 'lone surrogate (not a character)' };
  return { code, short: '', name: 'invisible or format character' };
}

/** One character's escape as plain text: `⟦U+202E RLO⟧`. */
export function plainEscape(ch: string): string {
  if (ch === '\n') return '↵';
  const n = charName(ch);
  return `⟦${n.code}${n.short !== '' ? ` ${n.short}` : ''}⟧`;
}

/**
 * A string for places that show plain text only (an OS notification, a tooltip, an `aria-label`,
 * an `<option>`): every hidden character written as its escape, so none can hide or reorder anything.
 */
export function escapeHiddenPlain(text: string): string {
  if (!HIDDEN_CHAR.test(text)) return text;
  let out = '';
  for (const ch of text) out += hiddenKind(ch) !== undefined ? plainEscape(ch) : ch;
  return out;
}

/** The risk hint for characters that change the text's direction (docs/supervision.md#risk-hints). */
export const DIRECTION_HINT = 'Text direction override';
/** The risk hint for characters that show as nothing or as a box. */
export const HIDDEN_HINT = 'Hidden characters';
/** The risk hint for risk words written with look-alike characters (Cyrillic е, fullwidth, mathematical letters). */
export const LOOKALIKE_HINT = 'Look-alike characters';
/** Risk hints that name characters, not words: the card shows them unquoted. */
export const CHARACTER_HINTS: readonly string[] = [DIRECTION_HINT, HIDDEN_HINT, LOOKALIKE_HINT];

/** The character hints a text earns: direction controls and hidden characters (tab and line breaks show as marks, so earn none). */
export function hiddenCharHints(text: string): string[] {
  if (!HIDDEN_CHAR.test(text)) return [];
  let bidi = false;
  let hidden = false;
  for (const ch of text) {
    const kind = hiddenKind(ch);
    if (kind === 'bidi') bidi = true;
    else if (kind === 'hidden') hidden = true;
  }
  return [...(bidi ? [DIRECTION_HINT] : []), ...(hidden ? [HIDDEN_HINT] : [])];
}

/** Longest line of a remote's text the supervisor writes to its log (the rest is counted, not written). */
export const MAX_LOG_LINE_CHARS = 2000;

/**
 * Text from elsewhere (a remote helper's stderr, ssh's words, a VM's message) made safe to write to
 * the supervisor's log and terminal: every hidden character of the table above — C0 controls with
 * CR, ESC and BEL, DEL, the C1 controls, the bidi overrides and isolates, zero-width and format
 * characters — written as a visible escape (`\x1b`, `\u202e`), a backslash doubled so no escape can
 * be faked, and the line cut at `maxChars`. What comes out cannot move the cursor, set a title,
 * write the clipboard (OSC 52), clear the screen or start a line of its own
 * (docs/security.md#what-a-remote-can-write-to-the-log).
 */
export function logSafe(text: string, maxChars = MAX_LOG_LINE_CHARS): string {
  let out = '';
  let seen = 0;
  for (const ch of text) {
    if (out.length >= maxChars) break;
    seen += ch.length;
    if (ch === '\\') out += '\\\\';
    else if (!HIDDEN_CHAR.test(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0) ?? 0;
      out += cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u{${cp.toString(16)}}`;
    }
  }
  return seen < text.length ? `${out}… (${text.length - seen} more characters cut)` : out;
}
