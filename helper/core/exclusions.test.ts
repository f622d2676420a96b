import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UI_WINDOW_TITLES, uiTitle } from '../../protocol/index.js';
import { isExcluded, isExcludedTitle } from './exclusions.js';

describe('exclusions', () => {
  const ui = { titles: UI_WINDOW_TITLES };

  it('recognises every window title the UI can give a browser or the desktop app', () => {
    for (const title of [uiTitle(0), uiTitle(3), `${uiTitle(1)} - Chromium`, `${uiTitle(0)} — Mozilla Firefox`, `${uiTitle(12)} – Google Chrome`, 'overseer'])
      assert.ok(isExcludedTitle(ui, title), title);
  });

  it('leaves other windows alone, the fixture and documents named after Overseer included', () => {
    for (const title of ['Overseer Fixture', 'Overseer notes.txt - Mousepad', 'Mousepad', '(1) Inbox - Chromium', 'My Overseer - Chromium', ''])
      assert.ok(!isExcludedTitle(ui, title), title);
  });

  it('matches apps and titles exactly after case folding, or as /regex/, and ignores a broken regex', () => {
    assert.ok(isExcluded({ apps: ['GEDIT'] }, 1, 'gedit'));
    assert.ok(isExcluded({ apps: ['/^moused?pad$/'] }, 1, 'Mousepad'));
    assert.ok(!isExcluded({ apps: ['/(/'] }, 1, '('));
    assert.ok(isExcluded({ pids: [42] }, 42, 'anything'));
    assert.ok(isExcludedTitle({ titles: ['Secret Vault'] }, 'secret vault'));
  });
});
