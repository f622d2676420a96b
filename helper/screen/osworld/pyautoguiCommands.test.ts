import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLIPBOARD_LOST, pasteStatements, pyautoguiKey, pyString, pythonCommand, typeableAscii } from './pyautoguiCommands.js';

describe('pyautogui commands for an OSWorld VM', () => {
  it('writes any text as an ASCII-only Python literal that cannot end early', () => {
    assert.equal(pyString(`a'b\\c`), "'a\\u0027b\\u005cc'");
    assert.equal(pyString('é日😀\n'), "'\\u00e9\\u65e5\\U0001f600\\u000a'");
    assert.match(pyString("'); import os; os.system('x"), /^'[^']*'$/);
  });

  it('runs statements with the VM python and the pyautogui prefix, as OSWorld’s client does', () => {
    const argv = pythonCommand('pyautogui.moveTo(1, 2)');
    assert.deepEqual(argv.slice(0, 2), ['python', '-c']);
    assert.match(argv[2] ?? '', /^import pyautogui; .*pyautogui\.FAILSAFE = False; .*pyautogui\.moveTo\(1, 2\)$/);
  });

  it('maps the screen tier’s key names to pyautogui’s, and refuses what pyautogui cannot press', () => {
    assert.deepEqual(['Return', 'Control_L', 'Page_Down', 'F12', 'a', '(', ' '].map(pyautoguiKey), ['enter', 'ctrlleft', 'pagedown', 'f12', 'a', '(', 'space']);
    assert.equal(pyautoguiKey('ж'), null);
    assert.equal(pyautoguiKey('NoSuchKey'), null);
    assert.ok(typeableAscii('Hello, World!\n\t~'));
    assert.ok(!typeableAscii('héllo'));
  });

  it('pastes only after another process read the clipboard back as the text, else says the clipboard was lost', () => {
    const script = pasteStatements("Straße 'x'\n東京", 0.3);
    assert.ok(script.includes("t = 'Stra\\u00dfe \\u0027x\\u0027\\u000a\\u6771\\u4eac'"), script);
    const lines = script.split('\n');
    const copied = lines.indexOf('pyperclip.copy(t)');
    const readBack = lines.findIndex((l) => l.includes('subprocess.run([sys.executable'));
    const pasted = lines.findIndex((l) => l.includes("pyautogui.hotkey('ctrl', 'v')"));
    assert.ok(copied >= 0 && copied < readBack && readBack < pasted, script);
    assert.equal(lines[pasted - 1], 'else:', 'Ctrl+V only in the branch where the text came back whole');
    assert.ok(script.includes(`sys.stdout.write('${CLIPBOARD_LOST}')`));
  });
});
