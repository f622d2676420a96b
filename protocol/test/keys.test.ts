import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { KEYS, OverseerError, closeKeys, formatKeys, keysDoc, lookupKey, parseKeys } from '../index.js';

function refused(keys: string, pattern: RegExp): OverseerError {
  let caught: unknown;
  assert.throws(() => {
    try {
      parseKeys(keys);
    } catch (e) {
      caught = e;
      throw e;
    }
  });
  assert.ok(caught instanceof OverseerError);
  assert.equal(caught.code, 'invalid_argument');
  assert.match(caught.info.detail, pattern);
  return caught;
}

describe('the key vocabulary', () => {
  it('maps every alias, in any case and spelling, to its canonical name', () => {
    for (const entry of KEYS) {
      for (const name of [entry.name, ...entry.aliases]) {
        for (const spelling of [name, name.toUpperCase(), name.toLowerCase(), name.replace(/_/g, '-')]) {
          assert.equal(lookupKey(spelling)?.name, entry.name, spelling);
        }
      }
    }
    const expected: Record<string, string> = {
      enter: 'Return',
      esc: 'Escape',
      cmd: 'super',
      win: 'super',
      meta: 'super',
      option: 'alt',
      pgup: 'Page_Up',
      pgdn: 'Page_Down',
      PageDown: 'Page_Down',
      'page-up': 'Page_Up',
      del: 'Delete',
      ins: 'Insert',
      arrowleft: 'Left',
      ArrowRight: 'Right',
      backspace: 'BackSpace',
      f5: 'F5',
      F24: 'F24',
      control: 'ctrl',
    };
    for (const [alias, name] of Object.entries(expected)) assert.equal(lookupKey(alias)?.name, name, alias);
    assert.equal(lookupKey('F25'), undefined);
  });

  it('round-trips every canonical name and combo through format and parse', () => {
    for (const entry of KEYS) {
      const combos = parseKeys(entry.name);
      assert.deepEqual(combos, [entry.modifier ? { modifiers: [entry.name], key: null } : { modifiers: [], key: entry.name }]);
      assert.equal(formatKeys(combos), entry.name);
    }
    for (const keys of ['ctrl+shift+s', 'ctrl+a ctrl+c', 'super+Left', 'alt+F4', 'ctrl+shift', 'ctrl++', 'shift+A', 'é']) {
      assert.equal(formatKeys(parseKeys(keys)), keys);
    }
  });

  it('shows the characters a password field would receive as •, and what named keys and shortcuts do', () => {
    assert.equal(formatKeys(parseKeys('s e shift+S space 4 Return'), { password: true }), '• • • • • Return');
    assert.equal(formatKeys(parseKeys('ctrl+a BackSpace Tab shift+Tab é'), { password: true }), 'ctrl+a BackSpace Tab shift+Tab •');
    assert.equal(formatKeys(parseKeys('s e Return')), 's e Return');
  });

  it('parses combos and sequences in the xdotool syntax', () => {
    assert.deepEqual(parseKeys('Ctrl+Shift+s'), [{ modifiers: ['ctrl', 'shift'], key: 's' }]);
    assert.deepEqual(parseKeys('  ctrl+s   ctrl+v '), [
      { modifiers: ['ctrl'], key: 's' },
      { modifiers: ['ctrl'], key: 'v' },
    ]);
    assert.deepEqual(parseKeys('cmd+enter'), [{ modifiers: ['super'], key: 'Return' }]);
    assert.deepEqual(parseKeys('ctrl++'), [{ modifiers: ['ctrl'], key: '+' }]);
    assert.deepEqual(parseKeys('+'), [{ modifiers: [], key: '+' }]);
    assert.deepEqual(parseKeys(' '), [{ modifiers: [], key: 'space' }]);
    assert.deepEqual(parseKeys('shift+Tab'), [{ modifiers: ['shift'], key: 'Tab' }]);
    assert.deepEqual(parseKeys('page-down'), [{ modifiers: [], key: 'Page_Down' }]);
  });

  it('refuses unknown names and lists close matches', () => {
    const e = refused('ctrl+entr', /unknown key "entr"\. Did you mean .*Return/);
    assert.ok((e.info.data?.['close'] as string[]).includes('Return'));
    refused('escpe', /Did you mean Escape/);
    refused('pgupp', /Page_Up/);
    refused('hello', /unknown key "hello"/);
    assert.deepEqual(closeKeys('zzzzzzzz'), []);
    refused('F25', /unknown key "F25"/);
  });

  it('refuses malformed combos', () => {
    refused('', /no key given/);
    refused('   ', /no key given/);
    refused('s+ctrl', /only modifiers .* before the last key/);
    refused('a+b', /only modifiers/);
    refused('ctrl+ctrl+s', /names ctrl twice/);
    refused('ctrl+cmd+win+meta', /names super twice/);
    refused('ctrl++b', /empty key/);
    refused('ctrl+', /unknown key "ctrl\+"/);
  });

  it('is the vocabulary docs/keys.md lists', () => {
    const doc = readFileSync(new URL('../../docs/keys.md', import.meta.url), 'utf8');
    assert.equal(doc, keysDoc(), 'regenerate: npx tsx -e "import(\'./protocol/keys.ts\').then(m => process.stdout.write(m.keysDoc()))" > docs/keys.md');
  });
});
