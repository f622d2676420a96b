import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { topAvoiding } from './dialogPlace.js';

describe('where a second step opens', () => {
  it('above the button that opened it when it fits, else below, else nowhere it would cover it', () => {
    assert.equal(topAvoiding({ top: 600, bottom: 630 }, 300, 720), 292, 'above: its bottom 8 px over the button');
    assert.equal(topAvoiding({ top: 100, bottom: 130 }, 300, 720), 138, 'below');
    assert.equal(topAvoiding({ top: 300, bottom: 330 }, 400, 720), undefined, 'fits neither side');
  });
});
