import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SELECTION_HINT, errorInfo, type ElementActArgs, type ErrorInfo, type Receipt } from '../../../protocol/index.js';
import { FakeClock, flush } from '../../testing/fakeClock.js';
import { FakeHelper, fakeElement } from '../../testing/fakeHelper.js';
import { ApprovalQueue } from '../supervision/approvals.js';
import { Brakes } from '../supervision/brakes.js';
import { HoldList } from '../supervision/holds.js';
import { Policy } from '../supervision/policy.js';
import { QueueAdmission } from '../supervision/admission.js';
import { MAX_WAITING_PER_AGENT, actionWait, elementAct, type ActDeps } from './actTool.js';
import { AgentSession } from '../session/agentSession.js';
import { cardIs, expectCard } from '../../testing/cards.js';

/** The supervision core around element_act with a fake helper and a fake clock. */
function rig(settings = { approval_expiry_s: 120, approval_wait_ms: 45_000 }) {
  const clock = new FakeClock();
  const helper = new FakeHelper().add(
    fakeElement('counter'),
    fakeElement('name', { role: 'edit', value: 'Alice', patterns: ['value', 'focus'] }),
    fakeElement('secret', { role: 'edit', state: { enabled: true, password: true }, redacted: true, patterns: ['value'] }),
    fakeElement('other'),
  );
  const brakes = new Brakes();
  const approvals = new ApprovalQueue(clock);
  const holds = new HoldList(brakes, clock);
  const policy = new Policy();
  const journal: { kind: string; [k: string]: unknown }[] = [];
  const finals: Receipt[] = [];
  const progress: number[] = [];
  const deps: ActDeps = {
    helper,
    approvals,
    holds,
    brakes,
    policy,
    admission: new QueueAdmission(),
    clock,
    settings: () => settings,
    progressIntervalMs: 1000,
    journalEvent: (record) => {
      journal.push(record);
      return Promise.resolve();
    },
    journalFinal: (_session, receipt) => {
      finals.push(receipt);
      return Promise.resolve();
    },
  };
  const session = new AgentSession({ transport: 'http', progressiveTools: false, now: () => clock.now() });
  session.client = 'test-agent';
  let brake: (info: ErrorInfo) => void = () => {};
  const braked = new Promise<ErrorInfo>((resolve) => (brake = resolve));
  const act = (args: Partial<ElementActArgs> & { action: ElementActArgs['action'] }): Promise<Receipt> =>
    elementAct(deps, session, { selector: { automation_id: 'counter' }, ...args }, new AbortController().signal, (p) => progress.push(p), braked);
  /** Waits until a card for this element is pending and returns its id. */
  const card = async (id = 'counter'): Promise<string> => {
    for (let i = 0; i < 50; i++) {
      const found = approvals.list().find(cardIs('element', (p) => p.target.automation_id === id));
      if (found !== undefined) return found.approval_id;
      await flush();
    }
    throw new Error(`no card for ${id}`);
  };
  return { clock, helper, brakes, approvals, holds, policy, journal, finals, progress, deps, session, act, card, brake: (info: ErrorInfo) => brake(info) };
}

const EMERGENCY = errorInfo('braked', 'the emergency stop answered this call', { brake: 'emergency' });

describe('element_act in the supervision core (docs/supervision.md#order-of-checks: deny → brake → ask → pause → re-check → dispatch)', () => {
  it('asks a person for a mutating action and dispatches the approved element with the state the card showed', async () => {
    const t = rig();
    const answer = t.act({ action: 'invoke' });
    const id = await t.card();
    assert.equal(t.helper.dispatched.length, 0, 'nothing runs before the decision');
    assert.ok(t.approvals.approve(id));
    const r = await answer;
    assert.equal(r.outcome, 'completed');
    assert.deepEqual({ verdict: r.decision?.verdict, by: r.decision?.by }, { verdict: 'approved', by: 'human' });
    assert.equal(t.helper.dispatched.length, 1);
    assert.deepEqual(t.helper.dispatched[0]?.element?.shown, t.helper.elements.get('counter')?.shown, 'the dispatch binds the shown state');
    assert.deepEqual(
      t.journal.map((j) => j.kind),
      ['approval_pending', 'approval_resolved'],
      'the request and its resolution are journaled',
    );
  });

  it('checks in the agent’s lane, and dispatches what the person decided in none, so it never waits behind the agent’s own calls', async () => {
    const t = rig();
    const answer = t.act({ action: 'invoke' });
    assert.ok(t.approvals.approve(await t.card()));
    assert.equal((await answer).outcome, 'completed');
    const acts = t.helper.calls.filter((c) => c.method === 'element_act');
    assert.deepEqual(
      acts.map((c) => [(c.params as { check_only?: boolean }).check_only === true, c.lane]),
      [
        [true, t.session.identity],
        [false, undefined],
      ],
    );
  });

  it('refuses by a deny rule before asking or dispatching', async () => {
    const t = rig();
    t.policy.denyApp('/fix/');
    const r = await t.act({ action: 'invoke' });
    assert.equal(r.refusal?.code, 'denied');
    assert.equal(r.decision?.by, 'policy');
    assert.equal(t.approvals.list().length, 0);
    assert.equal(t.helper.dispatched.length, 0);
  });

  it('refuses every act while stopped, view-only ones included, and runs them again after resume', async () => {
    const t = rig();
    t.brakes.apply('stop');
    for (const action of ['invoke', 'focus', 'scroll_into_view'] as const) {
      const r = await t.act({ action });
      assert.equal(r.refusal?.code, 'braked', action);
    }
    assert.equal(t.helper.dispatched.length, 0);
    t.brakes.apply('resume');
    assert.equal((await t.act({ action: 'focus' })).outcome, 'completed');
  });

  it('runs view-only actions without a card, binding identity only', async () => {
    const t = rig();
    const r = await t.act({ action: 'focus' });
    assert.equal(r.decision?.verdict, 'auto');
    assert.equal(t.approvals.list().length, 0);
    assert.equal(t.helper.dispatched[0]?.element?.shown, undefined);
  });

  it('asks a person before focusing or scrolling to an element whose selection may follow the focus', async () => {
    const t = rig();
    t.helper.add(fakeElement('row42', { role: 'list_item', name: 'Row 42', state: { enabled: true, selectable: true, selected: false } }));
    for (const action of ['focus', 'scroll_into_view'] as const) {
      const answer = t.act({ action, selector: { automation_id: 'row42' } });
      const id = await t.card('row42');
      const card = t.approvals.get(id);
      assert.ok(card?.risk_hints.includes(SELECTION_HINT), `${action}: the card says why it asks`);
      assert.equal(t.helper.dispatched.length, 0, `${action}: nothing runs before the decision`);
      t.approvals.deny(id);
      assert.equal((await answer).refusal?.code, 'denied');
    }
    // By role alone, too: a tab whose toolkit does not expose "selectable".
    t.helper.add(fakeElement('tab', { role: 'tab_item', name: 'Settings' }));
    const tab = t.act({ action: 'focus', selector: { automation_id: 'tab' } });
    t.approvals.deny(await t.card('tab'));
    assert.equal((await tab).decision?.verdict, 'denied');
  });

  it('leaves no card behind when a Stop comes while the card is being made', async () => {
    const t = rig();
    const journalEvent = t.deps.journalEvent;
    // The person stops while the card's request is being journaled (or its picture taken).
    t.deps.journalEvent = async (record) => {
      if (record.kind === 'approval_pending') t.brakes.apply('stop');
      return journalEvent(record);
    };
    const r = await t.act({ action: 'invoke' });
    assert.equal(r.refusal?.code, 'braked');
    assert.equal(t.approvals.list().length, 0, 'no card outlives the Stop');
    assert.equal(t.helper.dispatched.length, 0);
    assert.deepEqual(
      t.journal.map((j) => [j.kind, j['verdict']]),
      [
        ['approval_pending', undefined],
        ['approval_resolved', 'braked'],
      ],
    );
  });

  it('says when an automatic focus changed more than the focus', async () => {
    const t = rig();
    t.helper.add({ ...fakeElement('field', { role: 'edit', state: { enabled: true, expanded: false } }), afterState: { focused: true, expanded: true } });
    const r = await t.act({ action: 'focus', selector: { automation_id: 'field' } });
    assert.equal(r.decision?.verdict, 'auto');
    assert.deepEqual(r.changed_state, ['expanded'], 'the receipt names the state that changed');
    const quiet = await t.act({ action: 'focus', selector: { automation_id: 'name' } });
    assert.equal(quiet.changed_state, undefined, 'the focus alone is no change to report');
  });

  it('a session rule of element scope allows that element only; app scope allows the app', async () => {
    const t = rig();
    t.policy.allowForSession({
      session: t.session.id,
      agent: 'test-agent',
      connection: 'local',
      action: 'invoke',
      app: 'fixture',
      scope: 'element',
      element: 'k:counter',
      elementLabel: 'button "counter"',
    });
    const allowed = await t.act({ action: 'invoke' });
    assert.equal(allowed.decision?.verdict, 'auto');
    assert.match(allowed.decision?.note ?? '', /^rule R/);
    const other = t.act({ action: 'invoke', selector: { automation_id: 'other' } });
    t.approvals.deny(await t.card('other'));
    assert.equal((await other).refusal?.code, 'denied', 'another element still asks');
    t.policy.allowForSession({
      session: t.session.id,
      agent: 'test-agent',
      connection: 'local',
      action: 'invoke',
      app: 'fixture',
      scope: 'app',
      element: 'k:counter',
      elementLabel: '',
    });
    assert.equal((await t.act({ action: 'invoke', selector: { automation_id: 'other' } })).decision?.verdict, 'auto');
    const another = new AgentSession({ transport: 'http', progressiveTools: false });
    assert.equal(
      t.policy.decide({ session: another.id, connection: 'local', action: 'invoke', app: 'fixture', element: 'k:counter' }).kind,
      'ask',
      'rules belong to their agent session',
    );
  });

  it('holds an action approved while paused, lists it, and runs it on resume', async () => {
    const t = rig();
    t.brakes.apply('pause');
    const answer = t.act({ action: 'invoke' });
    t.approvals.approve(await t.card());
    await flush();
    assert.equal(t.holds.list().length, 1, 'listed as held');
    assert.equal(t.holds.list()[0]?.decision.verdict, 'approved');
    assert.equal(t.helper.dispatched.length, 0, 'nothing is dispatched while paused');
    t.brakes.apply('resume');
    assert.equal((await answer).outcome, 'completed');
    assert.equal(t.holds.list().length, 0);
  });

  it('answers a held action braked when a stop ends the pause, denied when the person cancels it', async () => {
    const t = rig();
    t.brakes.apply('pause');
    const first = t.act({ action: 'invoke' });
    t.approvals.approve(await t.card());
    await flush();
    const id = t.holds.list()[0]?.approval_id ?? '';
    assert.ok(t.holds.cancel(id, 'changed my mind'));
    const cancelled = await first;
    assert.equal(cancelled.refusal?.code, 'denied');
    assert.equal(cancelled.decision?.note, 'changed my mind');
    const second = t.act({ action: 'focus' });
    await flush();
    assert.equal(t.holds.list().length, 1, 'view-only acts wait for the pause too');
    t.brakes.apply('stop');
    assert.equal((await second).refusal?.code, 'braked');
    assert.equal(t.helper.dispatched.length, 0);
  });

  it('expires an unanswered card on the clock', async () => {
    const t = rig({ approval_expiry_s: 30, approval_wait_ms: 45_000 });
    const answer = t.act({ action: 'invoke' });
    await t.card();
    await t.clock.tick(29_999);
    assert.equal(t.approvals.list().length, 1);
    await t.clock.tick(1);
    const r = await answer;
    assert.equal(r.refusal?.code, 'expired');
    assert.equal(r.decision?.verdict, 'expired');
    assert.equal(t.helper.dispatched.length, 0);
  });

  it('answers pending after approval_wait_ms with progress on the way; action_wait then gets the final receipt, journaled once', async () => {
    const t = rig({ approval_expiry_s: 120, approval_wait_ms: 5000 });
    const answer = t.act({ action: 'invoke' });
    const id = await t.card();
    await t.clock.tick(5000);
    const first = await answer;
    assert.equal(first.outcome, 'pending');
    assert.ok(t.progress.length >= 4, `${t.progress.length} progress notifications in 5 s at 1 s`);
    const waiting = actionWait(t.deps, t.session, { receipt_id: first.receipt_id }, undefined, new Promise(() => {}));
    t.approvals.approve(id);
    const final = await waiting;
    assert.equal(final.outcome, 'completed');
    assert.equal(t.finals.length, 1, 'the final receipt is journaled on its own');
    await assert.rejects(actionWait(t.deps, t.session, { receipt_id: first.receipt_id }, undefined, new Promise(() => {})), /snapshot_unknown/, 'given once');
  });

  it('action_wait keeps answering pending until the decision, within its own timeout', async () => {
    const t = rig({ approval_expiry_s: 300, approval_wait_ms: 1000 });
    const answer = t.act({ action: 'invoke' });
    await t.card();
    await t.clock.tick(1000);
    const first = await answer;
    const waiting = actionWait(t.deps, t.session, { receipt_id: first.receipt_id, timeout_ms: 2000 }, undefined, new Promise(() => {}));
    await t.clock.tick(2000);
    assert.equal((await waiting).outcome, 'pending');
  });

  it('an emergency stop answers a call that waits for a person braked at once, and the card is gone', async () => {
    const t = rig();
    const answer = t.act({ action: 'invoke' });
    await t.card();
    t.brake(EMERGENCY);
    t.approvals.brakeAll('emergency stop');
    const r = await answer;
    assert.equal(r.refusal?.code, 'braked');
    assert.equal(r.action_call_made, false);
    assert.equal(t.approvals.list().length, 0);
    assert.equal(t.helper.dispatched.length, 0);
  });

  it('an emergency stop answers a call in dispatch unknown with braked, and journals the real end later', async () => {
    const t = rig();
    let release: () => void = () => {};
    t.helper.hold = new Promise((r) => (release = r));
    const answer = t.act({ action: 'focus' });
    for (let i = 0; i < 20 && t.helper.dispatched.length === 0; i++) await flush();
    t.brake(EMERGENCY);
    const r = await answer;
    assert.equal(r.outcome, 'unknown');
    assert.equal(r.action_call_made, 'unknown');
    assert.equal(r.error?.code, 'braked');
    release();
    for (let i = 0; i < 20 && t.finals.length === 0; i++) await flush();
    assert.equal(t.finals[0]?.outcome, 'completed', 'what really happened is journaled when it ends');
  });

  it('action_wait answered by a brake during dispatch reports the decision the person really made', async () => {
    const t = rig({ approval_expiry_s: 300, approval_wait_ms: 1000 });
    const answer = t.act({ action: 'toggle' });
    const id = await t.card();
    await t.clock.tick(1000);
    const first = await answer;
    assert.equal(first.outcome, 'pending');
    let release: () => void = () => {};
    t.helper.hold = new Promise((r) => (release = r));
    t.approvals.approve(id);
    for (let i = 0; i < 20 && t.helper.dispatched.length === 0; i++) await flush();
    assert.equal(t.helper.dispatched.length, 1, 'the approved act is in dispatch');
    let brake: (info: ErrorInfo) => void = () => {};
    const waiting = actionWait(t.deps, t.session, { receipt_id: first.receipt_id }, undefined, new Promise((r) => (brake = r)));
    brake(EMERGENCY);
    const r = await waiting;
    assert.deepEqual([r.action, r.outcome, r.action_call_made, r.error?.code], ['toggle', 'unknown', 'unknown', 'braked']);
    assert.deepEqual({ verdict: r.decision?.verdict, by: r.decision?.by }, { verdict: 'approved', by: 'human' }, 'approved by the person, not claimed braked');
    release();
  });

  it('action_wait that times out while an approved act is held by a pause says it was approved', async () => {
    const t = rig({ approval_expiry_s: 300, approval_wait_ms: 1000 });
    const answer = t.act({ action: 'toggle' });
    const id = await t.card();
    await t.clock.tick(1000);
    const first = await answer;
    t.brakes.apply('pause');
    t.approvals.approve(id);
    for (let i = 0; i < 20 && t.holds.list().length === 0; i++) await flush();
    const waiting = actionWait(t.deps, t.session, { receipt_id: first.receipt_id, timeout_ms: 500 }, undefined, new Promise(() => {}));
    await t.clock.tick(500);
    const r = await waiting;
    assert.deepEqual([r.action, r.outcome, r.decision?.verdict], ['toggle', 'pending', 'approved']);
    t.brakes.apply('resume');
  });

  it('a departed agent: its card is withdrawn, never runs, and a held one is withdrawn too', async () => {
    const t = rig();
    const answer = t.act({ action: 'invoke' });
    await t.card();
    t.session.ended = 'the agent ended its session';
    t.approvals.withdrawSession(t.session.id, 'the agent went away');
    const r = await answer;
    assert.equal(r.refusal?.code, 'withdrawn');
    assert.equal(r.decision?.verdict, 'withdrawn');
    assert.equal(t.approvals.list().length, 0);
    const t2 = rig();
    t2.brakes.apply('pause');
    const held = t2.act({ action: 'invoke' });
    t2.approvals.approve(await t2.card());
    await flush();
    t2.session.ended = 'idle';
    t2.holds.withdrawSession(t2.session.id, 'idle');
    t2.brakes.apply('resume');
    assert.equal((await held).refusal?.code, 'withdrawn');
    assert.equal(t2.helper.dispatched.length, 0);
  });

  it('refuses before any card when the agent already went away', async () => {
    const t = rig();
    t.session.ended = 'bridge closed';
    assert.equal((await t.act({ action: 'invoke' })).refusal?.code, 'withdrawn');
    assert.equal(t.approvals.list().length, 0);
  });

  it('passes the helper’s stale refusal through when the element changed after the card was shown', async () => {
    const t = rig();
    const answer = t.act({ action: 'set_value', selector: { automation_id: 'name' }, text: 'Bob' });
    const id = await t.card('name');
    const card = expectCard(t.approvals.get(id), 'element');
    assert.equal(card.current_value, 'Alice');
    assert.equal(card.text, 'Bob');
    const name = t.helper.elements.get('name');
    if (name !== undefined) name.shown = { ...name.shown, value_hash: 'h:typed by the person' };
    t.approvals.approve(id);
    const r = await answer;
    assert.equal(r.refusal?.code, 'stale_element');
    assert.equal(r.outcome, 'refused');
  });

  it('masks set_value text for a password field on the card and in the receipt', async () => {
    const t = rig();
    const answer = t.act({ action: 'set_value', selector: { automation_id: 'secret' }, text: 'hunter2' });
    const id = await t.card('secret');
    const card = expectCard(t.approvals.get(id), 'element');
    assert.equal(card.password, true);
    assert.notEqual(card.text, 'hunter2');
    assert.equal(card.current_value, undefined);
    t.approvals.approve(id);
    assert.ok(!JSON.stringify(await answer).includes('hunter2'));
  });

  it('bounds the cards one agent may have waiting: a burst past the bound is refused at once, and room comes back with decisions', async () => {
    const t = rig();
    const burst = Array.from({ length: MAX_WAITING_PER_AGENT + 4 }, () => t.act({ action: 'invoke' }));
    const refused = await Promise.all(burst.slice(MAX_WAITING_PER_AGENT));
    for (const r of refused) assert.deepEqual([r.refusal?.code, r.refusal?.data?.['limit'], r.decision?.by], ['denied', MAX_WAITING_PER_AGENT, 'policy']);
    for (let i = 0; i < 50 && t.approvals.list().length < MAX_WAITING_PER_AGENT; i++) await flush();
    assert.equal(t.approvals.list().length, MAX_WAITING_PER_AGENT, 'only the bound reaches the person');
    t.approvals.brakeAll('test');
    await Promise.all(burst.slice(0, MAX_WAITING_PER_AGENT));
    const again = t.act({ action: 'invoke' });
    t.approvals.approve(await t.card());
    assert.equal((await again).outcome, 'completed', 'decided cards make room');
    assert.equal(t.helper.dispatched.length, 1);
  });

  it('a refusal before the target is known carries no text (it may have been meant for a password field)', async () => {
    const t = rig();
    const r = await t.act({ action: 'set_value', selector: { automation_id: 'no-such-field' }, text: 'maybe-a-password' });
    assert.equal(r.refusal?.code, 'not_found');
    assert.ok(!JSON.stringify(r).includes('maybe-a-password'));
  });

  it('answers unknown, never retried, when the helper dies during dispatch', async () => {
    const t = rig();
    t.helper.dieOnDispatch = true;
    const r = await t.act({ action: 'focus' });
    assert.equal(r.outcome, 'unknown');
    assert.equal(r.action_call_made, 'unknown');
    assert.equal(r.error?.code, 'helper_unavailable');
    assert.equal(t.helper.dispatched.length, 1, 'dispatched once, not retried');
  });
});
