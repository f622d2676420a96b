import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BS, ES, WS, checkedState, classify } from './controls.js';

const visible = WS.VISIBLE | WS.CHILD | WS.TABSTOP;

describe('Win32 control classification', () => {
  it('offers only the message contracts it can honour', () => {
    assert.deepEqual(classify('Button', visible | BS.PUSHBUTTON), {
      kind: 'push',
      role: 'button',
      patterns: ['invoke'],
      state: { enabled: true, offscreen: false, focusable: true },
    });
    assert.deepEqual(classify('BUTTON', visible | BS.AUTOCHECKBOX).patterns, ['toggle']);
    assert.deepEqual(classify('Button', visible | BS.AUTORADIOBUTTON).patterns, ['selection_item']);
    assert.deepEqual(classify('Button', visible | BS.GROUPBOX).patterns, []);
    assert.deepEqual(classify('Edit', visible).patterns, ['value']);
    assert.deepEqual(classify('Edit', visible | ES.READONLY).patterns, [], 'a read-only edit is not writable');
    assert.deepEqual(classify('msctls_trackbar32', visible), {
      kind: 'other',
      role: 'slider',
      patterns: [],
      state: { enabled: true, offscreen: false, focusable: true },
    });
    assert.equal(classify('SomeCustomClass', visible).role, 'pane');
  });

  it('reads states from styles', () => {
    const disabled = classify('Button', (visible | WS.DISABLED) & ~WS.TABSTOP);
    assert.equal(disabled.state.enabled, false);
    assert.equal(disabled.state.focusable, false);
    assert.equal(classify('Button', WS.CHILD).state.offscreen, true, 'a hidden window is offscreen');
    const password = classify('Edit', visible | ES.PASSWORD);
    assert.equal(password.state.password, true);
    assert.equal(classify('Edit', visible | ES.MULTILINE).state.multi_line, true);
    assert.equal(classify('ComboBox', visible | 3).state.expandable, true);
  });

  it('reads BM_GETCHECK', () => {
    assert.equal(checkedState(0), false);
    assert.equal(checkedState(1), true);
    assert.equal(checkedState(2), 'mixed');
  });
});
