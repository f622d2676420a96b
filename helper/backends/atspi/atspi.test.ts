import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROLES } from '../../../protocol/index.js';
import { keyOf, refOf } from './refs.js';
import { mapRole, mapState, stateSet } from './roles.js';

describe('AT-SPI mapping', () => {
  it('maps numeric roles onto the shared vocabulary', () => {
    assert.deepEqual(mapRole(43), { role: 'button', nativeRole: 'push-button' });
    assert.deepEqual(mapRole(7), { role: 'check_box', nativeRole: 'check-box' });
    assert.deepEqual(mapRole(40), { role: 'edit', nativeRole: 'password-text' });
    assert.deepEqual(mapRole(79), { role: 'edit', nativeRole: 'entry' });
    assert.deepEqual(mapRole(129), { role: 'split_button', nativeRole: 'push-button-menu' });
    assert.equal(mapRole(999).role, 'unknown');
    for (let i = 0; i < 130; i++) assert.ok((ROLES as readonly string[]).includes(mapRole(i).role));
  });

  it('decodes the two-word state bitfield', () => {
    const s = stateSet([(1 << 8) | (1 << 24) | (1 << 25) | (1 << 30) | (1 << 4), 1 << (41 - 32)]);
    assert.ok(s.has(8) && s.has(24) && s.has(41));
    const state = mapState(s, 'check-box');
    assert.equal(state.enabled, true);
    assert.equal(state.checked, true);
    assert.equal(state.offscreen, false);
    assert.equal(mapState(stateSet([0, 0]), 'push-button').enabled, false);
    assert.equal(mapState(stateSet([1 << 24, 0]), 'push-button').enabled, true, 'one of the two suffices (GTK4)');
    assert.equal(mapState(stateSet([0, 0]), 'password-text').password, true);
  });

  it('round-trips element keys', () => {
    const key = keyOf(':1.42', '/org/a11y/atspi/accessible/123');
    assert.equal(key, ':1.42~123');
    assert.deepEqual(refOf(key), { bus: ':1.42', path: '/org/a11y/atspi/accessible/123' });
    assert.deepEqual(refOf(keyOf(':1.4', '/org/other/x')), { bus: ':1.4', path: '/org/other/x' });
    assert.equal(refOf('not-a-key'), undefined);
  });
});
