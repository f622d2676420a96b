import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteBudget } from './byteBudget.js';

describe('the bytes of agents’ requests the supervisor holds', () => {
  it('takes what fits, refuses what does not, and wakes whoever waits once room is made', () => {
    const budget = new ByteBudget(100);
    assert.ok(budget.take(60));
    assert.equal(budget.take(50), false, 'nothing is taken past the limit');
    assert.equal(budget.inUse, 60);
    let woken = 0;
    const stop = budget.onRoom(() => woken++);
    assert.equal(budget.force(60), false, 'a message already read is counted, and says the budget is spent');
    assert.ok(budget.full);
    budget.release(10);
    assert.equal(woken, 0, 'still over the limit');
    budget.release(60);
    assert.equal(woken, 1);
    stop();
    budget.release(500);
    assert.equal(budget.inUse, 0, 'never below nothing');
    assert.equal(woken, 1);
  });
});
