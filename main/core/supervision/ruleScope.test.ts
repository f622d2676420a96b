import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseKeys } from '../../../protocol/index.js';
import { keysOutOfScope, textOutOfScope } from './ruleScope.js';

const keys = (scope: 'element' | 'app', k: string, hold = false): string | undefined => keysOutOfScope(scope, parseKeys(k), hold);

describe('what a session rule covers of keys and text', () => {
  it('an element rule covers keys that stay in the element, and nothing that can move the focus or submit', () => {
    for (const k of ['End', 'Home', 'a b c', 'shift+Left BackSpace', 'Delete', 'space', 'Up Down']) assert.equal(keys('element', k), undefined, k);
    for (const k of ['Tab Tab space', 'shift+Tab', 'Return', 'enter', 'Escape', 'ctrl+a', 'ctrl+s', 'alt+F4', 'super', 'F6', 'F10', 'Menu', 'End Tab'])
      assert.match(keys('element', k) ?? '', /does not cover|no rule covers|no key/, k);
  });

  it('an app rule covers what stays in the application, never what reaches other applications or the system', () => {
    for (const k of ['Tab', 'Return', 'ctrl+s', 'Escape']) assert.equal(keys('app', k), undefined, k);
    for (const k of ['alt+Tab', 'super', 'super+d', 'ctrl+alt+Delete', 'alt+F4']) assert.match(keys('app', k) ?? '', /no rule covers/, k);
    assert.match(keys('app', 'a', true) ?? '', /held/, 'a held key is never covered');
  });

  it('text with a tab, a line break or another control is beyond an element rule', () => {
    assert.equal(textOutOfScope('element', 'plain text, ünïcödé ✓'), undefined);
    for (const t of ['\t\t ', 'line\n', 'a\rb', 'x\u2028y', 'esc\u001b'])
      assert.match(textOutOfScope('element', t) ?? '', /element rule does not cover/, JSON.stringify(t));
    assert.equal(textOutOfScope('app', 'two\nlines'), undefined);
  });
});
