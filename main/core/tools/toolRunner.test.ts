import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_SETTINGS, errorInfo, type ReceiptEntry } from '../../../protocol/index.js';
import { FakeClock, flush } from '../../testing/fakeClock.js';
import { FakeHelper, fakeElement } from '../../testing/fakeHelper.js';
import { Journal, exportJournal } from '../journal/index.js';
import { ApprovalQueue } from '../supervision/approvals.js';
import { Brakes } from '../supervision/brakes.js';
import { HoldList } from '../supervision/holds.js';
import { Policy } from '../supervision/policy.js';
import { QueueAdmission } from '../supervision/admission.js';
import { AgentSession } from '../session/agentSession.js';
import { MAX_ARGUMENT_DEPTH, ToolRunner, journalArgs, nestedDeeperThan } from './toolRunner.js';

describe('ToolRunner with a real journal and a fake helper', () => {
  let dir: string;
  let journal: Journal;
  const helper = new FakeHelper().add(
    fakeElement('counter'),
    fakeElement('secret', { role: 'edit', state: { enabled: true, password: true }, redacted: true, patterns: ['value'] }),
  );
  const clock = new FakeClock();
  const brakes = new Brakes();
  const approvals = new ApprovalQueue(clock);
  const entries: ReceiptEntry[] = [];
  let runner: ToolRunner;
  const lines = async (): Promise<Record<string, unknown>[]> => {
    const out: Record<string, unknown>[] = [];
    await exportJournal(dir, (l) => out.push(JSON.parse(l) as Record<string, unknown>));
    return out;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'overseer-runner-'));
    journal = await Journal.open(dir);
    runner = new ToolRunner({
      read: { helper, settings: () => DEFAULT_SETTINGS },
      act: {
        helper,
        approvals,
        holds: new HoldList(brakes, clock),
        brakes,
        policy: new Policy(),
        admission: new QueueAdmission(),
        clock,
        settings: () => DEFAULT_SETTINGS,
        journalEvent: async (r) => void (await journal.append(r)),
      },
      journal,
      onReceipt: (e) => entries.push(e),
      log: () => {},
    });
  });
  after(async () => {
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses arguments nested deeper than the limit as invalid_argument, without recursion, and journals the call', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    assert.equal(nestedDeeperThan(deep, MAX_ARGUMENT_DEPTH), true);
    assert.equal(nestedDeeperThan({ selector: { name: 'x' } }, MAX_ARGUMENT_DEPTH), false);
    const session = new AgentSession({ transport: 'http', progressiveTools: false });
    const r = await runner.run(session, 'element_find', { selector: deep }, new AbortController().signal);
    assert.equal(r.isError, true);
    assert.match(r.text, /^error invalid_argument: .*nested deeper than 32/);
    const last = (await lines()).at(-1);
    assert.equal(last?.['tool'], 'element_find');
    assert.equal((last?.['error'] as { code?: string }).code, 'invalid_argument');
  });

  it('answers a read in flight braked the moment an emergency stop answers the calls, and journals that answer', async () => {
    let release: () => void = () => {};
    helper.hold = new Promise((r) => (release = r));
    const session = new AgentSession({ transport: 'http', progressiveTools: false });
    const call = runner.run(session, 'window_list', {}, new AbortController().signal);
    await flush();
    assert.equal(session.inflightCount, 1, 'the call is tracked while it runs');
    const running = session.brakeCalls(errorInfo('braked', 'the emergency stop answered this call'));
    assert.equal(running.length, 1, 'and given to the emergency stop to wait on');
    const r = await call;
    assert.equal(r.isError, true);
    assert.match(r.text, /^error braked:/);
    await Promise.all(running);
    assert.equal(session.inflightCount, 0);
    assert.equal(((await lines()).at(-1)?.['error'] as { code?: string }).code, 'braked');
    release();
    helper.hold = undefined;
  });

  it('answers a malformed tools/call typed and journals it (refuse)', async () => {
    const session = new AgentSession({ transport: 'stdio', progressiveTools: false });
    const r = await runner.refuse(session, 'window_list', 'not an object', errorInfo('invalid_argument', 'tools/call arguments must be a JSON object'));
    assert.equal(r.isError, true);
    const last = (await lines()).at(-1);
    assert.equal(last?.['args'], 'not an object');
    assert.equal(session.calls, 1);
  });

  it('journals a call with 200,000 unknown keys as a few hundred bytes that say how many there were', async () => {
    const keys = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]));
    const args = journalArgs({ ...keys, list: Array.from({ length: 70 }, (_, i) => i) }, true) as Record<string, unknown>;
    assert.equal(Object.keys(args).length, 51);
    assert.equal(args['…'], '(199951 more keys)');
    const session = new AgentSession({ transport: 'http', progressiveTools: false });
    const r = await runner.run(session, 'element_find', { window: 'w', selector: { name: 'a' }, ...keys }, new AbortController().signal);
    assert.equal(r.isError, true);
    const line = JSON.stringify((await lines()).at(-1));
    assert.ok(line.length < 4000, `${line.length} chars`);
    assert.match(line, /unknown fields \\"k0\\", .* and 199,990 more/);
    assert.match(line, /"…":"\(199952 more keys\)"/);
  });

  it('withholds set_value text from the journal unless the target is known not to be a password field', async () => {
    assert.deepEqual(journalArgs({ action: 'set_value', text: 'hunter2' }, false), {
      action: 'set_value',
      text: '[withheld: not known to be a non-password field]',
    });
    assert.deepEqual(journalArgs({ action: 'set_value', text: 'hello' }, true), { action: 'set_value', text: 'hello' });
    assert.match(String((journalArgs({ name: 'x'.repeat(800) }, true) as { name: string }).name), /…\(800 chars\)$/);
    const session = new AgentSession({ transport: 'http', progressiveTools: false });
    const call = runner.run(
      session,
      'element_act',
      { selector: { automation_id: 'secret' }, action: 'set_value', text: 'hunter2-secret' },
      new AbortController().signal,
    );
    // The card appears once the request is journaled (a real fsync): wait for it on real time.
    for (let i = 0; i < 400 && approvals.list().length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(approvals.list().length, 1, 'the card appeared');
    approvals.approve(approvals.list()[0]?.approval_id ?? '');
    const r = await call;
    assert.equal(r.isError, false);
    assert.ok(!r.text.includes('hunter2-secret'), 'not in the answer');
    const journaled = JSON.stringify(await lines());
    assert.ok(journaled.includes('"secret"') && !journaled.includes('hunter2-secret'), 'the call is journaled, its password text is not');
    assert.equal(entries.at(-1)?.receipt_id, entries.at(-1)?.receipt?.receipt_id, 'the timeline entry names its receipt');
  });
});
