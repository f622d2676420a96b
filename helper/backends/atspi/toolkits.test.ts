import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnName, parseAddress, cellAddress } from './children.js';
import { toolkitKind, toolkitProfile, undoubled } from './toolkits.js';

describe('toolkit profiles', () => {
  it('tells the toolkits apart as they report themselves', () => {
    assert.equal(toolkitKind('gtk', '3.24.38', 'mousepad'), 'gtk3');
    assert.equal(toolkitKind('GTK', '4.8.3', 'gnome-calculator'), 'gtk4');
    assert.equal(toolkitKind('Gecko', '153.8.0', 'Firefox'), 'gecko');
    assert.equal(toolkitKind('Chromium', '1.0', 'Chromium'), 'chromium');
    assert.equal(toolkitKind('Chromium', '1.0', 'Code'), 'chromium', 'Electron apps report Chromium');
    assert.equal(toolkitKind('Qt', '5.15.8', 'FeatherPad'), 'qt5');
    assert.equal(toolkitKind('Qt', '6.4.2', 'Qt6 Form'), 'qt6');
    assert.equal(toolkitKind('J2SE-access-bridge', '1.0', 'Swing Form'), 'java');
    assert.equal(toolkitKind('gtk', '3.24.38', 'soffice'), 'libreoffice', "LibreOffice's own provider, whatever it draws with");
    assert.equal(toolkitKind('Qt', '5.15.8', 'soffice'), 'libreoffice');
    assert.equal(toolkitKind('', '', 'mystery'), 'other');
  });

  it('reads the character count first where text past the end answers ""', () => {
    for (const [tk, v, app] of [
      ['Gecko', '153', 'Firefox'],
      ['gtk', '3.24', 'soffice'],
      ['Qt', '5.15', 'FeatherPad'],
      ['', '', 'x'],
    ] as const)
      assert.equal(toolkitProfile(tk, v, app).textEnd, 'exact', tk);
    for (const [tk, v, app] of [
      ['gtk', '3.24', 'mousepad'],
      ['GTK', '4.8', 'gnome-calculator'],
      ['Chromium', '1.0', 'Chromium'],
      ['J2SE-access-bridge', '1.0', 'Swing'],
    ] as const)
      assert.equal(toolkitProfile(tk, v, app).textEnd, 'clamps', tk);
  });

  it('never asks Qt 5 for GetAll, which makes it exit', () => {
    assert.equal(toolkitProfile('Qt', '5.15.8', 'FeatherPad').getAll, false);
    assert.equal(toolkitProfile('Qt', '5.15.8', 'FeatherPad').ids, 'unsupported');
    assert.equal(toolkitProfile('gtk', '3.24', 'mousepad').getAll, true);
  });

  it('gives GTK 4.8 the names a person sees', () => {
    const gtk4 = toolkitProfile('GTK', '4.8.3', 'gnome-calculator');
    assert.deepEqual(gtk4.name('7 7'), { name: '7' });
    assert.deepEqual(gtk4.name('GtkMenuButton'), { name: '', className: 'GtkMenuButton' });
    assert.deepEqual(gtk4.name('Undo'), { name: 'Undo' });
    assert.equal(gtk4.showingUnreported, true);
    assert.deepEqual(toolkitProfile('gtk', '3.24', 'mousepad').name('GtkMenuButton'), { name: 'GtkMenuButton' }, 'only GTK 4');
  });

  it('undoubles only a name that is one text twice', () => {
    assert.equal(undoubled('7 7'), '7');
    assert.equal(undoubled('Save file Save file'), 'Save file');
    assert.equal(undoubled('Go Go Go'), 'Go Go Go');
    assert.equal(undoubled('7  7'), '7  7');
    assert.equal(undoubled('a b'), 'a b');
    assert.equal(undoubled(''), '');
  });

  it('keeps what an application says of its toolkit short and plain before a card shows it', () => {
    const label = toolkitProfile('Gecko\u202e<b>evil</b>'.repeat(10), '1.0\n\nApprove now', 'x').label;
    assert.ok(label.length <= 70, label);
    assert.doesNotMatch(label, /[<>\n\u202e]/);
  });
});

describe('spreadsheet addresses', () => {
  it('names columns as people do', () => {
    assert.deepEqual([0, 25, 26, 27, 701, 702, 16383].map(columnName), ['A', 'Z', 'AA', 'AB', 'ZZ', 'AAA', 'XFD']);
    assert.equal(cellAddress(32, 14), 'O33');
  });

  it('parses an address back, and nothing else', () => {
    assert.deepEqual(parseAddress('O33'), { row: 32, column: 14 });
    assert.deepEqual(parseAddress('XFD1048576'), { row: 1048575, column: 16383 });
    assert.equal(parseAddress('Sheet1'), undefined);
    assert.equal(parseAddress('A0'), undefined);
    assert.equal(parseAddress(''), undefined);
  });
});
