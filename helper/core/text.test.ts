import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonChars } from './text.js';

describe('jsonChars', () => {
  it('counts exactly what JSON.stringify writes when no string needs escaping', () => {
    const values: unknown[] = [
      '',
      'Save',
      'жёлтый 中文 😀',
      0,
      -12.5,
      1e21,
      true,
      false,
      null,
      [],
      {},
      [1, 'a', [true, {}]],
      {
        key: 'atspi::1.7/org/a11y/atspi/accessible/12',
        role: 'button',
        state: {},
        patterns: ['invoke', 'focus'],
        rect: { x: 1, y: 2, w: 3, h: 4, cx: 2, cy: 4 },
      },
      { a: undefined, b: 1, c: [undefined, 2] },
    ];
    for (const v of values) assert.equal(jsonChars(v), JSON.stringify(v).length, JSON.stringify(v));
  });

  it('undercounts only escapes', () => {
    const v = { name: 'say "hi"\n' };
    assert.equal(JSON.stringify(v).length - jsonChars(v), 3);
  });
});
