import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_COORDINATE, OverseerError, normalizePoint } from '../index.js';

function refused(args: Record<string, unknown>, pattern: RegExp, options = {}): void {
  assert.throws(
    () => normalizePoint(args, options),
    (e: unknown) => {
      assert.ok(e instanceof OverseerError, String(e));
      assert.equal(e.code, 'invalid_argument');
      assert.match(e.info.detail, pattern, JSON.stringify(args));
      assert.ok(Array.isArray(e.info.data?.['issues']));
      return true;
    },
    JSON.stringify(args),
  );
}

describe('the coordinate normalizer', () => {
  it('accepts every shape models emit for one point', () => {
    const shapes: Record<string, unknown>[] = [
      { x: 640, y: 400 },
      { x: [640, 400] },
      { x: '640,400' },
      { x: '640, 400' },
      { x: ' 640 ,400 ' },
      { x: '[640, 400]' },
      { x: '(640,400)' },
      { coordinate: [640, 400] },
      { coordinate: '640,400' },
      { x: [640, 400], y: [640, 400] },
      { x: '640,400', y: '640, 400' },
      { x: [640, 400], y: 400 },
      { x: '640', y: '400' },
      { x: 640, y: ' 400' },
      { x: ['640', '400'] },
      { coordinate: [640, 400], x: 640, y: 400 },
      { coordinate: [640, 400], x: [640, 400] },
      { x: 640.0, y: 400 },
    ];
    for (const args of shapes) assert.deepEqual(normalizePoint(args), { x: 640, y: 400 }, JSON.stringify(args));
    assert.deepEqual(normalizePoint({ x: 0, y: 0 }), { x: 0, y: 0 });
    assert.deepEqual(normalizePoint({ x: -0, y: '0' }), { x: 0, y: 0 });
    assert.deepEqual(normalizePoint({ x: MAX_COORDINATE, y: 1 }), { x: MAX_COORDINATE, y: 1 });
  });

  it('refuses values that are not one whole pixel', () => {
    refused({ x: Number.NaN, y: 1 }, /^x: NaN is not a coordinate/);
    refused({ x: Infinity, y: 1 }, /Infinity/);
    refused({ x: 640.5, y: 1 }, /not a whole pixel/);
    refused({ x: '6.4e2', y: 1 }, /not a whole number/);
    refused({ x: '0x280', y: 1 }, /not a whole number/);
    refused({ x: '640.0', y: 1 }, /not a whole number/);
    refused({ x: '', y: 1 }, /not a whole number/);
    refused({ x: '640px', y: 1 }, /not a whole number/);
    refused({ x: 1, y: -1 }, /^y: -1 is left of or above/);
    refused({ x: '-5,3' }, /^x: -5 is left of or above/);
    refused({ x: MAX_COORDINATE + 1, y: 1 }, /beyond 32767/);
    refused({ x: '6.4e2,3' }, /not a point/);
    refused({ x: '640,400,2' }, /not a point/);
  });

  it('refuses objects, booleans, null and pairs of the wrong length', () => {
    refused({ x: { x: 640, y: 400 } }, /expected a number of pixels, got object/);
    refused({ x: true, y: 1 }, /got boolean/);
    refused({ x: null, y: 1 }, /got null/);
    refused({ x: [640] }, /2 numbers, not 1/);
    refused({ x: [640, 400, 1] }, /2 numbers, not 3/);
    refused({ coordinate: [] }, /^coordinate: .*not 0/);
    refused({ coordinate: 640 }, /^coordinate: expected \[x, y\]/);
    refused({ x: [640, null] }, /^x\.1: expected a number of pixels, got null/);
  });

  it('refuses two sources that disagree, and missing halves', () => {
    refused({ x: [640, 400], y: 401 }, /^y: x is the pair \(640, 400\) and y says 401/);
    refused({ x: '640,400', y: [1, 2] }, /^y: x says \(640, 400\) and y says \(1, 2\)/);
    refused({ coordinate: [1, 2], x: 640, y: 400 }, /^x: coordinate says \(1, 2\) and x says \(640, 400\)/);
    refused({ x: 640, y: [640, 400] }, /^y: y is a pair/);
    refused({ x: 640 }, /^y: y is missing/);
    refused({ y: 400 }, /^x: x is missing/);
    refused({}, /no point given: pass x and y or coordinate/);
  });

  it('takes other field names and negatives for raw physical pixels', () => {
    const names = { x: 'to_x', y: 'to_y' };
    assert.deepEqual(normalizePoint({ x: 1, y: 2, to_x: '30, 40' }, { names }), { x: 30, y: 40 });
    refused({ to_x: 3 }, /^to_y: to_y is missing/, { names });
    assert.deepEqual(normalizePoint({ x: -1920, y: '-5' }, { allowNegative: true }), { x: -1920, y: -5 });
    assert.deepEqual(normalizePoint({ x: '-1920,-5' }, { allowNegative: true }), { x: -1920, y: -5 });
    assert.throws(() => normalizePoint({ x: -32768, y: 0 }, { allowNegative: true }), /beyond/);
  });
});
