import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../../protocol/index.js';
import { callFor } from './uiaActions.js';

describe('UIA action dispatch choice', () => {
  it('calls each action through its pattern method, with the vtable slot of the SDK', () => {
    assert.deepEqual(callFor('invoke', ['invoke'], undefined), { pattern: 'invoke', interfaceName: 'InvokePattern', method: 'Invoke', slot: 3 });
    assert.deepEqual(callFor('collapse', ['expand_collapse'], undefined), {
      pattern: 'expand_collapse',
      interfaceName: 'ExpandCollapsePattern',
      method: 'Collapse',
      slot: 4,
    });
    assert.equal(callFor('focus', ['focus'], undefined), 'focus');
    assert.equal((callFor('scroll_into_view', ['scroll_item'], undefined) as { method: string }).method, 'ScrollIntoView');
  });

  it('sets text through ValuePattern and numbers through RangeValuePattern', () => {
    assert.equal((callFor('set_value', ['value'], 'Alice') as { pattern: string }).pattern, 'value');
    assert.equal((callFor('set_value', ['value', 'range_value'], '42') as { pattern: string }).pattern, 'range_value');
    assert.equal((callFor('set_value', ['value', 'range_value'], 'forty') as { pattern: string }).pattern, 'value');
    assert.equal((callFor('set_value', ['range_value'], '7.5') as { pattern: string }).pattern, 'range_value');
  });

  it('clears with "" through ValuePattern, and refuses "" for a range value alone instead of setting 0', () => {
    assert.equal((callFor('set_value', ['value'], '') as { pattern: string }).pattern, 'value');
    assert.equal((callFor('set_value', ['value', 'range_value'], '') as { pattern: string }).pattern, 'value');
    assert.throws(
      () => callFor('set_value', ['range_value'], ''),
      (error: unknown) => error instanceof OverseerError && error.code === 'invalid_argument',
    );
  });
});
