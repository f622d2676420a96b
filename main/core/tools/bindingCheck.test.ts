import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { AgentSession } from '../session/agentSession.js';
import { checkBindings } from './bindingCheck.js';

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

describe('ids checked against the connection a call acts on', () => {
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
