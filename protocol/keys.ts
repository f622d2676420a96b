// The one key vocabulary of the screen tier's key and hold_key tools: canonical names in X11 keysym
// spelling, the aliases models use, and the parser of combos and sequences. docs/keys.md is
// generated from KEYS (keysDoc) and a test keeps them equal.
//
// Syntax, as xdotool's `key` (which computer-use agents are trained on): a sequence of combos
// separated by whitespace ("ctrl+a ctrl+c"), pressed in turn; a combo is keys joined by "+",
// modifiers first, the last key tapped while the modifiers are held ("ctrl+shift+s"); a combo of
// modifiers alone presses them ("ctrl+shift", for hold_key). Names match case-insensitively and
// ignoring "_", "-" and inner spaces ("page-up", "PageUp", "Page_Up"). Any other single character is
// that literal key ("a", "/", "é", "+"; "ctrl++" is ctrl and plus); the keys string " " is space.
import { fail, type OverseerError } from './errors.js';

/** A named key: its canonical name, what else models call it, and whether it is a modifier. */
export interface KeyEntry {
  /** Canonical name (X11 keysym spelling; modifiers in lower case). */
  name: string;
  /** Other names accepted, in lower case. */
  aliases: readonly string[];
  /** Modifiers may precede other keys in a combo. */
  modifier: boolean;
  /** One line for the docs. */
  doc: string;
}

function key(name: string, doc: string, ...aliases: string[]): KeyEntry {
  return { name, aliases, modifier: false, doc };
}
function modifier(name: string, doc: string, ...aliases: string[]): KeyEntry {
  return { name, aliases, modifier: true, doc };
}

/** The table: every named key, in the order the docs list them. */
export const KEYS: readonly KeyEntry[] = [
  modifier('ctrl', 'Control.', 'control', 'ctl', 'ctrl_l', 'control_l'),
  modifier('shift', 'Shift.', 'shift_l'),
  modifier('alt', 'Alt (Option on a Mac).', 'option', 'opt', 'alt_l', 'altgr'),
  modifier('super', 'The logo key: Windows, Command on a Mac.', 'cmd', 'command', 'win', 'windows', 'meta', 'super_l', 'logo', 'os'),
  key('Return', 'Enter.', 'enter', 'ret', 'kp_enter', 'newline'),
  key('Escape', 'Esc.', 'esc'),
  key('Tab', 'Tab.'),
  key('BackSpace', 'Backspace.', 'bksp', 'back'),
  key('Delete', 'Delete (forward).', 'del'),
  key('Insert', 'Insert.', 'ins'),
  key('Home', 'Home.'),
  key('End', 'End.'),
  key('Page_Up', 'Page Up.', 'pgup', 'prior'),
  key('Page_Down', 'Page Down.', 'pgdn', 'next'),
  key('Left', 'Left arrow.', 'arrowleft', 'leftarrow'),
  key('Right', 'Right arrow.', 'arrowright', 'rightarrow'),
  key('Up', 'Up arrow.', 'arrowup', 'uparrow'),
  key('Down', 'Down arrow.', 'arrowdown', 'downarrow'),
  key('space', 'Space bar.', 'spacebar', 'spc'),
  key('Print', 'Print Screen.', 'printscreen', 'prtsc', 'prtscr', 'sysrq'),
  key('Menu', 'The context-menu key.', 'apps', 'contextmenu', 'application'),
  ...Array.from({ length: 24 }, (_, i) => key(`F${i + 1}`, `Function key ${i + 1}.`)),
];

/** Names compare case-insensitively, without "_", "-" or spaces. */
function fold(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}

const BY_NAME = new Map<string, KeyEntry>();
for (const entry of KEYS) {
  for (const name of [entry.name, ...entry.aliases]) {
    const folded = fold(name);
    if (BY_NAME.has(folded)) throw new Error(`[keys] ${name} is listed twice`);
    BY_NAME.set(folded, entry);
  }
}

/** The canonical entry for a key name or alias, or undefined. */
export function lookupKey(name: string): KeyEntry | undefined {
  return BY_NAME.get(fold(name));
}

/** One combo: modifiers held (canonical, in the order given) and the key tapped, or null for modifiers alone. */
export interface KeyCombo {
  modifiers: string[];
  /** A canonical name from KEYS or a single literal character. */
  key: string | null;
}

function refuse(keys: string, message: string, data: Record<string, unknown> = {}): OverseerError {
  return fail('invalid_argument', `keys ${JSON.stringify(keys)}: ${message}`, { issues: [{ path: 'keys', message }], ...data });
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j]!;
      row[j] = next;
    }
  }
  return row[b.length]!;
}

/** Up to five canonical names close to an unknown one (edit distance ≤ 2, or a prefix). */
export function closeKeys(name: string): string[] {
  const folded = fold(name);
  const best = new Map<string, number>();
  for (const [known, entry] of BY_NAME) {
    const d = known.startsWith(folded) && folded.length >= 2 ? 1 : distance(folded, known);
    if (d <= 2 && d < (best.get(entry.name) ?? Infinity)) best.set(entry.name, d);
  }
  return [...best]
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, 5)
    .map(([n]) => n);
}

/** One part of a combo → its canonical name, or a literal single character. */
function part(keys: string, token: string): KeyEntry | string {
  const entry = lookupKey(token);
  if (entry !== undefined) return entry;
  if ([...token].length === 1) return token;
  const close = closeKeys(token);
  const hint = close.length > 0 ? ` Did you mean ${close.join(', ')}?` : '';
  throw refuse(keys, `unknown key "${token}".${hint} Names: docs/keys.md; text goes to type_text.`, { unknown: token, close });
}

/** Parses a keys string into the combos to press in turn, or throws invalid_argument. */
export function parseKeys(keys: string): KeyCombo[] {
  if (keys === ' ') return [{ modifiers: [], key: 'space' }];
  const combos = keys.trim().split(/\s+/);
  if (combos.length === 0 || combos[0] === '') throw refuse(keys, 'no key given.');
  return combos.map((combo) => {
    const parts = combo.split(/\+(?=.)/);
    const modifiers: string[] = [];
    let tapped: string | null = null;
    parts.forEach((token, i) => {
      if (token === '') throw refuse(keys, `"${combo}" has an empty key between two "+".`);
      const p = part(keys, token);
      const last = i === parts.length - 1;
      if (typeof p !== 'string' && p.modifier) {
        if (modifiers.includes(p.name)) throw refuse(keys, `"${combo}" names ${p.name} twice.`);
        modifiers.push(p.name);
      } else if (!last) {
        throw refuse(keys, `in "${combo}" only modifiers (ctrl, shift, alt, super) may come before the last key.`);
      } else {
        tapped = typeof p === 'string' ? p : p.name;
      }
    });
    return { modifiers, key: tapped };
  });
}

/** A combo in canonical spelling: parseKeys(formatKeys(x)) equals x. */
export function formatKeys(combos: readonly KeyCombo[], options: { password?: boolean } = {}): string {
  return combos.map((c) => (options.password === true && typesCharacter(c) ? '•' : [...c.modifiers, ...(c.key === null ? [] : [c.key])].join('+'))).join(' ');
}

/**
 * Whether a combo types a character into a text field (a literal key or space, with shift at most):
 * what a password field receives of it is part of the password, so it is shown as `•` there.
 * Named keys (Return, Tab, arrows) and shortcuts stay readable: they say what the keys do.
 */
export function typesCharacter(c: KeyCombo): boolean {
  if (c.key === null || c.modifiers.some((m) => m !== 'shift')) return false;
  return c.key === 'space' || lookupKey(c.key) === undefined;
}

/** docs/keys.md, generated from KEYS. */
export function keysDoc(): string {
  const rows = KEYS.filter((k) => !/^F\d+$/.test(k.name)).map(
    (k) => `| \`${k.name}\` | ${k.modifier ? 'modifier' : 'key'} | ${k.aliases.map((a) => `\`${a}\``).join(', ')} | ${k.doc} |`,
  );
  return [
    '# Keys',
    '',
    '<!-- Generated from protocol/keys.ts (keysDoc); protocol/test/keys.test.ts keeps it equal. -->',
    '',
    'The vocabulary of the `key` and `hold_key` tools. A keys string is a sequence of combos separated by',
    'spaces, pressed in turn (`ctrl+a ctrl+c`); a combo joins keys with `+`, modifiers first, and taps the',
    'last key while the modifiers are held (`ctrl+shift+s`). Modifiers alone are pressed together',
    '(`ctrl+shift`). Names match case-insensitively and ignoring `_`, `-` and spaces (`page-up`, `PageUp`).',
    'Any other single character is that literal key (`a`, `/`, `é`; `ctrl++` is ctrl and plus). Anything',
    'else is refused `invalid_argument` with the closest names. Text is typed with `type_text`, not `key`.',
    '',
    '| name | kind | also accepted | what |',
    '|---|---|---|---|',
    ...rows,
    '| `F1` … `F24` | key | `f1` … `f24` | Function keys. |',
    '',
  ].join('\n');
}
