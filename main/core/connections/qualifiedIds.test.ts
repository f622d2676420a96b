import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ownerOf, qualify, qualifyAnswer, unqualifyParams } from './qualifiedIds.js';

describe('window ids qualified by their connection', () => {
  it('remote window ids carry their connection both ways; equal native ids of two desktops stay apart', () => {
    const known = (n: string): boolean => n === 'lab' || n === 'vm1';
    assert.equal(qualify('local', ':1.2~1'), ':1.2~1');
    assert.equal(qualify('lab', ':1.2~1'), 'lab/:1.2~1');
    assert.deepEqual(ownerOf(':1.2~1', known), { name: 'local', tag: 'local' });
    assert.deepEqual(ownerOf('lab/:1.2~1', known), { name: 'lab', tag: 'lab' });
    assert.deepEqual(ownerOf('lab~2/:1.2~1', known), { name: 'lab', tag: 'lab~2' }, 'a later incarnation of the name');
    assert.deepEqual(ownerOf('nobody/:1.2~1', known), { name: 'local', tag: 'local' }, 'a prefix that names no connection is part of a local id');
    const answer = { window: { window: ':1.2~1', title: 't' }, elements: [{ ref: { window: ':1.2~1' } }] };
    qualifyAnswer('lab', answer);
    assert.equal(answer.window.window, 'lab/:1.2~1');
    assert.equal(answer.elements[0]?.ref.window, 'lab/:1.2~1');
    const params = { element: { window: 'lab/:1.2~1', key: 'k' }, stay: { window: 'handle-7' } };
    assert.deepEqual(unqualifyParams('lab', params), { element: { window: ':1.2~1', key: 'k' }, stay: { window: 'handle-7' } });
    assert.equal(params.element.window, 'lab/:1.2~1', "the caller's objects are not changed");
  });
});
