// How a string an agent (or an application an agent drives) supplied is cut into what the UI shows:
// plain text, and marks for everything that would hide, reorder or move text when shown raw
// (docs/supervision.md#what-the-ui-shows). The segments join back to the exact string: what a card
// shows is what runs.
import { charName, hiddenKind, HIDDEN_CHAR } from '../../protocol/index.js';

/** Text shown as it is. */
export interface TextSegment {
  kind: 'text';
  text: string;
}

/** A run of hidden characters, shown as one marked escape (a chip). */
export interface EscapeSegment {
  kind: 'escape';
  /** The characters it stands for, exactly. */
  text: string;
  /** What it misleads by: reordering (`bidi`), showing nothing (`hidden`), a tab, or a pile of combining marks. */
  why: 'bidi' | 'hidden' | 'tab' | 'marks';
  /** On the chip: `U+202E RLO`, `U+200B ZWSP ×3`, `TAG "hi"`, `U+0301… 12 marks`. */
  label: string;
  /** For screen readers and the tooltip: `right-to-left override (U+202E)`. */
  name: string;
}

/** A line break, shown as ↵ (and, in a block, as a real break after it). */
export interface NewlineSegment {
  kind: 'newline';
  text: string;
  /** `LF`, `CR LF`, `U+2028 LS`, … */
  label: string;
}

/**
 * Spaces that would not show as themselves: at the start or end of the string, or a run of
 * SPACE_RUN_MIN or more blank characters inside it, which would push what follows out of sight
 * (`ls -la` + 3,000 spaces + `; rm -rf ~`). Shown as a mark with its count, never as blank width.
 */
export interface SpaceSegment {
  kind: 'space';
  text: string;
  edge: 'start' | 'end' | 'inside';
}

/** One piece of an untrusted string as the UI shows it. */
export type Segment = TextSegment | EscapeSegment | NewlineSegment | SpaceSegment;

/** More combining marks than this on one character are shown as a chip: they would paint over the lines around them. */
export const MAX_MARKS = 4;

/** A run of this many blank characters (spaces, no-break and other space separators) inside a string is shown as one counted mark. */
export const SPACE_RUN_MIN = 4;

const BLANK = /^\p{Zs}$/u;

const MARK = /^\p{M}$/u;
const TAG_PRINTABLE = (cp: number): boolean => cp >= 0xe0020 && cp <= 0xe007e;
const NEWLINE_LABEL: Record<string, string> = {
  '\n': 'LF',
  '\r\n': 'CR LF',
  '\r': 'CR',
  '\v': 'VT',
  '\f': 'FF',
  '\u0085': 'NEL',
  '\u2028': 'LS',
  '\u2029': 'PS',
};
/** Strings that need nothing but text: the common case, decided by one regex. */
const PLAIN = new RegExp(`^(?! )(?!.* $)(?!.*\\p{Zs}{${SPACE_RUN_MIN}})[^\\p{M}]*$`, 'su');

/** Cuts an untrusted string into the segments the UI shows; `segmentsText` joins them back to the same string. */
export function segments(text: string): Segment[] {
  if (!HIDDEN_CHAR.test(text) && PLAIN.test(text)) return text === '' ? [] : [{ kind: 'text', text }];
  const chars = [...text];
  const out: Segment[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') out.push({ kind: 'text', text: plain });
    plain = '';
  };
  let i = 0;
  const lead = /^ +/.exec(text)?.[0].length ?? 0;
  const trail = lead === text.length ? 0 : (/ +$/.exec(text)?.[0].length ?? 0);
  if (lead > 0) {
    out.push({ kind: 'space', text: ' '.repeat(lead), edge: 'start' });
    i = lead;
  }
  const end = chars.length - trail;
  while (i < end) {
    const ch = chars[i] as string;
    const kind = hiddenKind(ch);
    if (kind === 'newline') {
      flush();
      const crlf = ch === '\r' && chars[i + 1] === '\n' && i + 1 < end;
      const t = crlf ? '\r\n' : ch;
      out.push({ kind: 'newline', text: t, label: NEWLINE_LABEL[t] ?? charName(ch).code });
      i += crlf ? 2 : 1;
      continue;
    }
    if (kind !== undefined) {
      flush();
      const cp = ch.codePointAt(0) ?? 0;
      if (TAG_PRINTABLE(cp)) {
        // A run of tag characters spells ASCII nobody sees ("ASCII smuggling"): show what it spells.
        let j = i;
        let spelled = '';
        for (let c = cp; j < end && TAG_PRINTABLE(c); c = chars[++j]?.codePointAt(0) ?? 0) spelled += String.fromCharCode(c - 0xe0000);
        const shown = spelled.length > 40 ? `${spelled.slice(0, 40)}…` : spelled;
        out.push({
          kind: 'escape',
          text: chars.slice(i, j).join(''),
          why: 'hidden',
          label: `TAG “${shown}”`,
          name: `${j - i} hidden tag characters spelling “${spelled}”`,
        });
        i = j;
        continue;
      }
      let j = i + 1;
      while (j < end && chars[j] === ch) j++;
      const n = charName(ch);
      const count = j - i;
      out.push({
        kind: 'escape',
        text: ch.repeat(count),
        why: kind === 'bidi' ? 'bidi' : kind === 'tab' ? 'tab' : 'hidden',
        label: `${n.code}${n.short !== '' ? ` ${n.short}` : ''}${count > 1 ? ` ×${count}` : ''}`,
        name: `${count > 1 ? `${count} × ` : ''}${n.name} (${n.code})`,
      });
      i = j;
      continue;
    }
    if (BLANK.test(ch)) {
      let j = i;
      while (j < end && BLANK.test(chars[j] as string)) j++;
      if (j - i >= SPACE_RUN_MIN) {
        flush();
        out.push({ kind: 'space', text: chars.slice(i, j).join(''), edge: 'inside' });
      } else plain += chars.slice(i, j).join('');
      i = j;
      continue;
    }
    if (MARK.test(ch)) {
      let j = i;
      while (j < end && MARK.test(chars[j] as string)) j++;
      if (j - i > MAX_MARKS) {
        flush();
        out.push({
          kind: 'escape',
          text: chars.slice(i, j).join(''),
          why: 'marks',
          label: `${charName(ch).code}… ${j - i} marks`,
          name: `${j - i} combining marks stacked on one character`,
        });
      } else plain += chars.slice(i, j).join('');
      i = j;
      continue;
    }
    plain += ch;
    i++;
  }
  flush();
  if (trail > 0) out.push({ kind: 'space', text: ' '.repeat(trail), edge: 'end' });
  return out;
}

/** The exact string the segments stand for. */
export function segmentsText(segs: readonly Segment[]): string {
  return segs.map((s) => s.text).join('');
}

/** How many lines a string takes when its line breaks are honoured. */
export function lineCount(segs: readonly Segment[]): number {
  return 1 + segs.filter((s) => s.kind === 'newline').length;
}

/**
 * The first `limit` code points' worth of segments (a segment is cut, never split inside an
 * escape), and whether anything was left out: what a collapsed view renders of a huge string.
 */
export function firstSegments(segs: readonly Segment[], limit: number): { shown: Segment[]; cut: boolean } {
  const shown: Segment[] = [];
  let left = limit;
  for (const s of segs) {
    if (left <= 0) return { shown, cut: true };
    if (s.kind === 'text') {
      const cps = [...s.text];
      if (cps.length > left) {
        shown.push({ kind: 'text', text: cps.slice(0, left).join('') });
        return { shown, cut: true };
      }
      left -= cps.length;
    } else left -= 1;
    shown.push(s);
  }
  return { shown, cut: false };
}

const HIDDEN_CHARS = new RegExp(HIDDEN_CHAR.source, 'gu');
const unitEscape = (ch: string): string => Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * A value as JSON for the receipt's detail panel, with every hidden character written as its `\u`
 * escape: the same JSON (they occur only inside strings, where JSON.stringify already escaped the
 * C0 controls; a raw line break is the layout's), and nothing in it hides or reorders.
 */
export function escapedJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(HIDDEN_CHARS, (ch) => (ch === '\n' ? ch : unitEscape(ch)));
}
