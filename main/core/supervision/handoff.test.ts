import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HandoffGate, type HandoffEnd } from './handoff.js';

const handoff = (approvalId: string, session = 'S1', connection = 'local') => ({
  approvalId,
  receiptId: `R-${approvalId}`,
  session,
  connection,
  reason: 'sign in',
});
const input = (receiptId: string, session = 'S2', connection = 'local') => ({ receiptId, session, connection, action: 'invoke' });

/** Whether a promise is still unsettled after the microtasks queued now have run. */
async function unsettled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return !done;
}

describe('HandoffGate: inputs wait while the desktop is handed to the person', () => {
  it('lets inputs through at once when nothing is handed off, and holds every agent’s input on a handed-off connection until the last handoff ends', async () => {
    const gate = new HandoffGate();
    assert.equal(gate.wait(input('R0')), undefined);
    gate.begin(handoff('A1'));
    gate.begin(handoff('A2', 'S3'));
    const first = gate.wait(input('R1')) as Promise<HandoffEnd>;
    const own = gate.wait(input('R2', 'S1')) as Promise<HandoffEnd>;
    assert.equal(gate.wait(input('R3', 'S2', 'elsewhere')), undefined, 'another connection is not handed off');
    assert.deepEqual(
      gate.held('local').map((h) => h.receiptId),
      ['R1', 'R2'],
    );
    gate.end('A1');
    assert.equal(await unsettled(first), true, 'a second handoff still holds the connection');
    gate.end('A2');
    assert.deepEqual(await first, { kind: 'go' });
    assert.deepEqual(await own, { kind: 'go' });
    assert.deepEqual(gate.held(), []);
    assert.equal(gate.handedOff('local'), false);
  });

  it('withdraws the inputs of an agent that left and keeps the others waiting', async () => {
    const gate = new HandoffGate();
    gate.begin(handoff('A1'));
    const leaving = gate.wait(input('R1', 'gone')) as Promise<HandoffEnd>;
    const staying = gate.wait(input('R2', 'here')) as Promise<HandoffEnd>;
    assert.equal(gate.withdrawSession('gone', 'the agent went away'), 1);
    assert.deepEqual(await leaving, { kind: 'withdrawn', note: 'the agent went away' });
    assert.equal(await unsettled(staying), true);
    assert.equal(gate.of('S1')?.receiptId, 'R-A1');
    gate.end('A1');
    assert.deepEqual(await staying, { kind: 'go' });
  });

  it('tells its listeners about every change of what a connection holds', () => {
    const gate = new HandoffGate();
    const seen: string[] = [];
    gate.onChange((c) => seen.push(c));
    gate.begin(handoff('A1'));
    void gate.wait(input('R1'));
    gate.end('A1');
    assert.deepEqual(seen, ['local', 'local', 'local']);
  });
});
