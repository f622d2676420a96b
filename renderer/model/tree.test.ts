import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Element } from '../../protocol/index.js';
import { displayValue, flattenTree, visibleNodes } from './tree.js';

const el = (key: string, extra: Partial<Element> = {}): Element => ({ key, role: 'group', state: {}, patterns: [], ...extra });

describe('tree', () => {
  it('flattens a nested tree in document order with depths and parents', () => {
    const nodes = flattenTree([el('a', { children: [el('b', { children: [el('c')] }), el('d')] })]);
    assert.deepEqual(
      nodes.map((n) => [n.key, n.depth, n.parent, n.childCount]),
      [
        ['a', 0, undefined, 2],
        ['b', 1, 'a', 1],
        ['c', 2, 'b', 0],
        ['d', 1, 'a', 0],
      ],
    );
    assert.equal('children' in (nodes[0]?.element ?? {}), false);
  });

  it('accepts the flat format with depth and parent', () => {
    const nodes = flattenTree([el('a', { depth: 0 }), el('b', { depth: 1, parent: 'a' })]);
    assert.deepEqual(
      nodes.map((n) => n.childCount),
      [1, 0],
    );
  });

  it('hides the descendants of collapsed rows', () => {
    const nodes = flattenTree([el('a', { children: [el('b', { children: [el('c')] }), el('d')] })]);
    assert.deepEqual(
      visibleNodes(nodes, new Set(['b'])).map((n) => n.key),
      ['a', 'b', 'd'],
    );
    assert.deepEqual(
      visibleNodes(nodes, new Set(['a'])).map((n) => n.key),
      ['a'],
    );
  });

  it('flattens 5,000 nodes in a deep chain without overflowing', () => {
    let e = el('n4999');
    for (let i = 4998; i >= 0; i--) e = el(`n${i}`, { children: [e] });
    assert.equal(flattenTree([e]).length, 5000);
  });

  it('never shows a password value', () => {
    assert.equal(displayValue({ value: 'secret', state: { password: true } }), '••••');
    assert.equal(displayValue({ redacted: true, state: {} }), '••••');
    assert.equal(displayValue({ value: 'x', state: {} }), 'x');
  });
});
