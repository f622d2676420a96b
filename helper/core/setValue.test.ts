import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../protocol/index.js';
import { setValueRoute } from './setValue.js';

const refusedWith = (code: string, run: () => unknown): void => {
  assert.throws(run, (error: unknown) => error instanceof OverseerError && error.code === code);
};

describe('set_value route (one rule for every backend)', () => {
  it('clears a text field with "" through its text', () => {
    assert.deepEqual(setValueRoute(['value', 'text'], ''), { via: 'text', text: '' });
  });

  it('sends "" and blanks to a spin button as text, never as the number 0', () => {
    assert.deepEqual(setValueRoute(['value', 'range_value'], ''), { via: 'text', text: '' });
    assert.deepEqual(setValueRoute(['value', 'range_value'], '  '), { via: 'text', text: '  ' });
  });

  it('sends numbers to the range value when there is one, words to the text', () => {
    assert.deepEqual(setValueRoute(['value', 'range_value'], '7'), { via: 'number', number: 7 });
    assert.deepEqual(setValueRoute(['range_value'], '7.5'), { via: 'number', number: 7.5 });
    assert.deepEqual(setValueRoute(['value', 'range_value'], 'seven'), { via: 'text', text: 'seven' });
    assert.deepEqual(setValueRoute(['value'], '42'), { via: 'text', text: '42' });
  });

  it('refuses "" and words for an element with only a range value', () => {
    refusedWith('invalid_argument', () => setValueRoute(['range_value'], ''));
    refusedWith('invalid_argument', () => setValueRoute(['range_value'], 'loud'));
    refusedWith('invalid_argument', () => setValueRoute(['range_value'], 'Infinity'));
  });

  it('refuses a missing text and an element without a value', () => {
    refusedWith('invalid_argument', () => setValueRoute(['value'], undefined));
    refusedWith('pattern_unsupported', () => setValueRoute(['invoke'], 'x'));
  });
});
