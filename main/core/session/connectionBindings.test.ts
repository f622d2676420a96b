import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { ownerOf, qualify, qualifyAnswer, unqualifyParams } from '../connections/qualifiedIds.js';
import { checkBindings } from '../tools/bindingCheck.js';
import { AgentSession } from './agentSession.js';
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

  it('checkBindings refuses each id kind of another connection before anything is called', () => {
    const session = new AgentSession({ transport: 'http', progressiveTools: false });
    const connections = { known: (n: string) => n === 'lab', refusal: () => undefined, tagOf: (n: string) => n } as never;
    session.connection = 'lab';
    session.bindings.note('observation', 'O1', 'local');
    session.bindings.note('screenshot', 'S1', 'local');
    assert.deepEqual(
      errorOf(() => checkBindings(session, { window: ':1.2~1' }, connections)),
      WRONG('local', 'lab'),
    );
    assert.deepEqual(
      errorOf(() => checkBindings(session, { snapshot: 'O1' }, connections)),
      WRONG('local', 'lab'),
    );
    assert.deepEqual(
      errorOf(() => checkBindings(session, { since: 'O1' }, connections)),
      WRONG('local', 'lab'),
    );
    assert.deepEqual(
      errorOf(() => checkBindings(session, { screenshot: 'S1', x: 1, y: 1 }, connections)),
      WRONG('local', 'lab'),
    );
    const target = session.targets.issue('O1', 'w|1|0', { key: 'k', digest: 'd', window: 'w', process: { pid: 1, process_start: 0 } } as never);
    assert.deepEqual(
      errorOf(() => checkBindings(session, { target }, connections)),
      WRONG('local', 'lab'),
      'a target is bound through its observation',
    );
    session.connection = 'local';
    assert.deepEqual(
      errorOf(() => checkBindings(session, { window: 'lab/:1.2~1' }, connections)),
      WRONG('lab', 'local'),
    );
    assert.equal(
      errorOf(() => checkBindings(session, { window: ':1.2~1', snapshot: 'O1', screenshot: 'S1', target }, connections)),
      undefined,
    );
  });

  it("an id of an earlier connection of the same name (removed and added again, or changed where it goes) is never the new one's", () => {
    const session = new AgentSession({ transport: 'http', progressiveTools: false });
    let tag = 'lab';
    const connections = { known: (n: string) => n === 'lab', refusal: () => undefined, tagOf: () => tag } as never;
    session.connection = 'lab';
    session.bindings.note('observation', 'O1', 'lab');
    session.bindings.note('screenshot', 'S1', 'lab');
    assert.equal(
      errorOf(() => checkBindings(session, { window: 'lab/:1.2~1', snapshot: 'O1', screenshot: 'S1', x: 1, y: 1 }, connections)),
      undefined,
    );
    // "lab" is removed and added again, pointing elsewhere: the manager tags it anew and retires what the old one issued.
    tag = 'lab~2';
    session.bindings.retire('lab');
    const changed = { code: 'connection_unavailable', reason: 'changed' };
    for (const args of [{ window: 'lab/:1.2~1' }, { snapshot: 'O1' }, { screenshot: 'S1', x: 1, y: 1 }]) {
      const e = errorOf(() => checkBindings(session, args, connections));
      assert.deepEqual({ code: e?.code, reason: (e?.data as { reason?: string } | undefined)?.reason }, changed, JSON.stringify(args));
    }
    assert.equal(
      errorOf(() => checkBindings(session, { window: 'lab~2/:1.2~1' }, connections)),
      undefined,
      "the new connection's own ids go through",
    );
  });
});
