import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UI_WINDOW_TITLES, uiTitle } from '../../protocol/index.js';
import { isExcluded, isExcludedTitle } from './exclusions.js';
import { splitScope, withScope } from './scope.js';

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

  it('excludes an agent host only inside the calls made for that agent', async () => {
    const { params, scope } = splitScope({ window: 'w1', $scope: { agent: 'S1', exclude_pids: [4242] } });
    assert.deepEqual(params, { window: 'w1' }, 'the scope is taken off before the params are checked');
    assert.ok(!isExcluded({}, 4242, 'host'), 'outside any call, the host is anyone else’s window');
    assert.ok(await withScope(scope, () => Promise.resolve(isExcluded({}, 4242, 'host'))), 'inside the agent’s own call it is excluded');
    assert.ok(!(await withScope({ agent: 'S2' }, () => Promise.resolve(isExcluded({}, 4242, 'host')))), 'another agent’s call sees it');
    assert.deepEqual(splitScope({ limit: 3 }), { params: { limit: 3 }, scope: undefined });
    assert.throws(() => splitScope({ $scope: { agent: '', exclude_pids: [-1] } }), /\$scope/);
  });
});
