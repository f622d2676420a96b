// What the OSWorld screen backend sends to the VM: pyautogui statements, as OSWorld's own client
// sends them (`python -c "import pyautogui; …"` through POST /execute). Key names translate from the
// screen tier's X11 names to pyautogui's; text is written as an ASCII-only Python literal, so no
// character of it can end the string or change the statement.

/** The prefix every command starts with, as OSWorld's PythonController has it (no fail-safe corner). */
export const PYAUTOGUI_PREFIX = 'import pyautogui; import time; pyautogui.FAILSAFE = False; pyautogui.PAUSE = 0; ';

/** The argv of one /execute: the VM's `python` with the statements. */
export function pythonCommand(statements: string): string[] {
  return ['python', '-c', PYAUTOGUI_PREFIX + statements];
}

/** A Python string literal of any text, ASCII only (\uXXXX and \UXXXXXXXX escapes). */
export function pyString(text: string): string {
  let out = "'";
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x20 && cp < 0x7f && ch !== "'" && ch !== '\\') out += ch;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}'`;
}

/** pyautogui's key names for the screen tier's named keys. */
const NAMED: Record<string, string> = {
  BackSpace: 'backspace',
  Tab: 'tab',
  Return: 'enter',
  Escape: 'esc',
  Delete: 'delete',
  Home: 'home',
  Left: 'left',
  Up: 'up',
  Right: 'right',
  Down: 'down',
  Page_Up: 'pageup',
  Page_Down: 'pagedown',
  End: 'end',
  Print: 'printscreen',
  Insert: 'insert',
  Menu: 'apps',
  space: 'space',
  Shift_L: 'shiftleft',
  Shift_R: 'shiftright',
  Control_L: 'ctrlleft',
  Control_R: 'ctrlright',
  Caps_Lock: 'capslock',
  Alt_L: 'altleft',
  Alt_R: 'altright',
  Super_L: 'winleft',
  Super_R: 'winright',
};
for (let n = 1; n <= 24; n++) NAMED[`F${n}`] = `f${n}`;

/** The modifiers: while one is held, typing is refused (it would type shortcuts). */
export const MODIFIER_KEYS = new Set(['Shift_L', 'Shift_R', 'Control_L', 'Control_R', 'Alt_L', 'Alt_R', 'Super_L', 'Super_R']);

/**
 * pyautogui's name of a key: a named key, or one printable ASCII character (pyautogui presses only
 * those; other characters go through typeText's clipboard path). null when it has none.
 */
export function pyautoguiKey(name: string): string | null {
  const named = NAMED[name];
  if (named !== undefined) return named;
  if (name.length === 1 && name >= ' ' && name <= '~') return name === ' ' ? 'space' : name;
  return null;
}

/** The key names known, for error messages. */
export function knownPyautoguiKeys(): string[] {
  return Object.keys(NAMED);
}

/** True when every character is printable ASCII, newline or tab: what pyautogui.write types key by key. */
export function typeableAscii(text: string): boolean {
  return /^[\x20-\x7e\n\t]*$/.test(text);
}

/** What the paste command prints, and nothing else, when the clipboard did not hold the text: nothing was pasted. */
export const CLIPBOARD_LOST = 'overseer:clipboard_lost';
/** How long another process may take to read the clipboard back, in seconds. */
const READ_BACK_S = 3;

/**
 * The statements that paste `text` through the VM's clipboard (after PYAUTOGUI_PREFIX): copy it,
 * read it back from another process, and press Ctrl+V only when that process got the text whole —
 * as the application that pastes will ask for it. A clipboard that only its copying process serves
 * (pyperclip's GTK mode with no clipboard manager: the owner runs no event loop and ends with the
 * command) reads back as nothing, and the command prints CLIPBOARD_LOST instead of pasting.
 * `settleS`: how long the application is given to fetch the clipboard after Ctrl+V.
 */
export function pasteStatements(text: string, settleS: number): string {
  const readBack = pyString('import pyperclip, sys; sys.stdout.buffer.write(pyperclip.paste().encode("utf-8"))');
  return [
    'import pyperclip, subprocess, sys',
    `t = ${pyString(text)}`,
    'pyperclip.copy(t)',
    'try:',
    `    back = subprocess.run([sys.executable, '-c', ${readBack}], capture_output=True, timeout=${READ_BACK_S}).stdout.decode('utf-8', 'replace')`,
    'except Exception:',
    '    back = None',
    'if back != t:',
    `    sys.stdout.write(${pyString(CLIPBOARD_LOST)})`,
    'else:',
    `    pyautogui.hotkey('ctrl', 'v'); time.sleep(${settleS})`,
  ].join('\n');
}
