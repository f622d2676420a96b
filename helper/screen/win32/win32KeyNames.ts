// Key name -> Windows virtual-key code: the X11 backend's key names (helper/screen/keysyms.ts)
// plus F13–F24, so one name means the same key on both. `extended`: the key sits on the enhanced
// keyboard's extra block (arrows, Insert/Delete/Home/End/Page keys, right Control and Alt, the
// Windows and menu keys) and needs KEYEVENTF_EXTENDEDKEY, or the OS takes it for its numpad twin.

/** A virtual key and whether it is an extended key. */
export interface VirtualKey {
  vk: number;
  extended: boolean;
}

const key = (vk: number, extended = false): VirtualKey => ({ vk, extended });

const NAMED: Record<string, VirtualKey> = {
  BackSpace: key(0x08),
  Tab: key(0x09),
  Return: key(0x0d),
  Escape: key(0x1b),
  Delete: key(0x2e, true),
  Home: key(0x24, true),
  Left: key(0x25, true),
  Up: key(0x26, true),
  Right: key(0x27, true),
  Down: key(0x28, true),
  Page_Up: key(0x21, true),
  Page_Down: key(0x22, true),
  End: key(0x23, true),
  Print: key(0x2c, true), // VK_SNAPSHOT
  Insert: key(0x2d, true),
  Menu: key(0x5d, true), // VK_APPS
  space: key(0x20),
  Shift_L: key(0xa0), // VK_LSHIFT
  Shift_R: key(0xa1),
  Control_L: key(0xa2), // VK_LCONTROL
  Control_R: key(0xa3, true),
  Caps_Lock: key(0x14),
  Alt_L: key(0xa4), // VK_LMENU
  Alt_R: key(0xa5, true),
  Super_L: key(0x5b, true), // VK_LWIN
  Super_R: key(0x5c, true),
};
for (let n = 1; n <= 24; n++) NAMED[`F${n}`] = key(0x6f + n); // VK_F1 = 0x70 … VK_F24 = 0x87

/** VK_SHIFT, VK_CONTROL, VK_MENU (Alt), VK_LWIN, VK_RWIN: held, they change what typed text does. */
export const TEXT_CHANGING_VKS = [0x10, 0x11, 0x12, 0x5b, 0x5c] as const;
/** VK_LSHIFT, pressed around a character whose key needs Shift. */
export const VK_LSHIFT = 0xa0;
/** VK_RETURN and VK_TAB, which newline and tab in typed text become. */
export const VK_RETURN = 0x0d;
export const VK_TAB = 0x09;

/** The virtual key of a named key of the table, or null. */
export function virtualKeyOf(name: string): VirtualKey | null {
  return Object.hasOwn(NAMED, name) ? (NAMED[name] ?? null) : null;
}

/** The names the table knows, for error messages. */
export function knownKeyNames(): string[] {
  return Object.keys(NAMED);
}
