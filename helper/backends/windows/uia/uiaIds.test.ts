import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PATTERNS, ROLES } from '../../../../protocol/index.js';
import { CONTROL_TYPE_ROLES, PATTERN_AVAILABLE_PROPERTIES, PATTERN_IDS, checkedOfToggleState, expansionOf, roleOfControlType } from './uiaIds.js';

describe('UI Automation ids', () => {
  it('maps every control type of the SDK (50000–50040) onto the shared roles', () => {
    for (let id = 50000; id <= 50040; id++) assert.ok(ROLES.includes(CONTROL_TYPE_ROLES[id] as (typeof ROLES)[number]), `control type ${id}`);
    assert.equal(roleOfControlType(50000), 'button');
    assert.equal(roleOfControlType(50004), 'edit');
    assert.equal(roleOfControlType(50020), 'label', 'UIA Text is a label, as AT-SPI and the Win32 tier call it');
    assert.equal(roleOfControlType(50032), 'window');
    assert.equal(roleOfControlType(59999), 'unknown');
  });

  it('has a pattern id and an availability property for every action pattern but focus (SetFocus is on the element)', () => {
    for (const p of PATTERNS.filter((x) => x !== 'focus')) {
      assert.ok(p in PATTERN_IDS, p);
      assert.ok(p in PATTERN_AVAILABLE_PROPERTIES, p);
    }
    assert.equal(PATTERN_IDS.invoke, 10000);
    assert.equal(PATTERN_IDS.scroll_item, 10017);
    assert.equal(PATTERN_AVAILABLE_PROPERTIES.value, 30043);
  });

  it('reads toggle and expand/collapse states', () => {
    assert.equal(checkedOfToggleState(0), false);
    assert.equal(checkedOfToggleState(1), true);
    assert.equal(checkedOfToggleState(2), 'mixed');
    assert.deepEqual(expansionOf(0), { expanded: false, expandable: true });
    assert.deepEqual(expansionOf(1), { expanded: true, expandable: true });
    assert.deepEqual(expansionOf(3), { expandable: false });
  });
});
