// Key name -> X keysym: a deliberately minimal table shared by the screen backends that speak X
// keysyms (X11 XTEST, the Wayland portals' NotifyKeyboardKeysym); the agent-facing key vocabulary and
// its aliases are defined elsewhere and translate into these names. A single character is its own
// keysym: Latin-1 code points are their keysym, others 0x1000000 + code point.

const NAMED: Record<string, number> = {
  BackSpace: 0xff08,
  Tab: 0xff09,
  Return: 0xff0d,
  Escape: 0xff1b,
  Delete: 0xffff,
  Home: 0xff50,
  Left: 0xff51,
  Up: 0xff52,
  Right: 0xff53,
  Down: 0xff54,
  Page_Up: 0xff55,
  Page_Down: 0xff56,
  End: 0xff57,
  Print: 0xff61,
  Insert: 0xff63,
  Menu: 0xff67,
  space: 0x20,
  Shift_L: 0xffe1,
  Shift_R: 0xffe2,
  Control_L: 0xffe3,
  Control_R: 0xffe4,
  Caps_Lock: 0xffe5,
  Alt_L: 0xffe9,
  Alt_R: 0xffea,
  Super_L: 0xffeb,
  Super_R: 0xffec,
};
for (let n = 1; n <= 24; n++) NAMED[`F${n}`] = 0xffbd + n; // F1 = 0xffbe … F24 = 0xffd5

/** The keysym of the left Shift key, held for second-level keysyms. */
export const SHIFT_L = 0xffe1;

/** The keysym of one Unicode code point (newline and tab become Return and Tab). */
export function charKeysym(codePoint: number): number {
  if (codePoint === 0x0a) return NAMED['Return'] ?? 0xff0d;
  if (codePoint === 0x09) return NAMED['Tab'] ?? 0xff09;
  if ((codePoint >= 0x20 && codePoint <= 0x7e) || (codePoint >= 0xa0 && codePoint <= 0xff)) return codePoint;
  return 0x1000000 + codePoint;
}

/** The keysym of a key name: a named key of the table above, or one character; null if neither. */
export function keysymOf(name: string): number | null {
  const named = NAMED[name];
  if (named !== undefined) return named;
  const chars = [...name];
  if (chars.length !== 1) return null;
  const cp = chars[0]?.codePointAt(0);
  if (cp === undefined || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return null;
  return charKeysym(cp);
}

/** The names the table knows, for error messages. */
export function knownKeyNames(): string[] {
  return Object.keys(NAMED);
}
