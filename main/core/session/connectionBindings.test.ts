import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { ConnectionBindings, type BoundKind } from './connectionBindings.js';

function errorOf(f: () => void): { code: string; data: unknown } | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    assert.ok(e instanceof OverseerError);
    return { code: e.code, data: e.info.data };
  }
}

const WRONG = (connection: string, active: string): { code: string; data: unknown } => ({ code: 'wrong_connection', data: { connection, active } });

describe('ids bound to the connection that issued them', () => {
  for (const kind of ['observation', 'screenshot'] as BoundKind[])
    it(`a ${kind} from another connection answers wrong_connection naming both`, () => {
      const b = new ConnectionBindings();
      b.note(kind, 'id-1', 'lab');
      assert.equal(
        errorOf(() => b.check(kind, 'id-1', 'lab')),
        undefined,
      );
      assert.deepEqual(
        errorOf(() => b.check(kind, 'id-1', 'local')),
        WRONG('lab', 'local'),
      );
      assert.equal(
        errorOf(() => b.check(kind, 'never-issued', 'local')),
        undefined,
        "an id never issued is its store's to refuse",
      );
    });
});
