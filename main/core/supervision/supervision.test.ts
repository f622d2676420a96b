import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BrakeState, CardBase, ElementApproval, HeldApproval, OmitEach, QuestionApproval } from '../../../protocol/index.js';
import { FakeClock } from '../../testing/fakeClock.js';
import { FAKE_WINDOW, fakeElement } from '../../testing/fakeHelper.js';
import { ApprovalQueue } from './approvals.js';
import { Brakes, type BrakeAction } from './brakes.js';
import { HoldList } from './holds.js';
import { Policy } from './policy.js';
import { expectCard } from '../../testing/cards.js';

const base = (id: string, session = 's1'): CardBase => ({
  approval_id: id,
  receipt_id: `R${id}`,
  session,
  agent: 'agent',
  password: false,
  ancestor_path: [],
  created_at: new Date(0).toISOString(),
  expires_at: new Date(120_000).toISOString(),
  risk_hints: [],
});
const card = (id: string, session = 's1'): ElementApproval => ({
  ...base(id, session),
  kind: 'element',
  action: 'invoke',
  target: fakeElement(id).element,
  window: FAKE_WINDOW,
});
const question = (id: string, asked: QuestionApproval['question']): QuestionApproval => ({ ...base(id), kind: 'question', action: 'ask', question: asked });
const held = (id: string, session = 's1'): OmitEach<HeldApproval, 'held_since'> => ({
  ...card(id, session),
  decision: { verdict: 'approved', by: 'human', at: new Date(0).toISOString() },
});

describe('Brakes: every transition', () => {
  const after = (from: BrakeAction[], action: BrakeAction): BrakeState | 'throws' => {
    const b = new Brakes();
    for (const a of from) b.apply(a);
    try {
      return b.apply(action);
    } catch {
      return 'throws';
    }
  };

  it('goes from each state by each action as docs/supervision.md#brakes says', () => {
    const states: Record<BrakeState, BrakeAction[]> = { running: [], paused: ['pause'], stopped: ['stop'], emergency: ['emergency_stop'] };
    const table: Record<BrakeState, Record<BrakeAction, BrakeState | 'throws'>> = {
      running: { pause: 'paused', resume: 'running', stop: 'stopped', emergency_stop: 'emergency', rearm: 'running' },
      paused: { pause: 'paused', resume: 'running', stop: 'stopped', emergency_stop: 'emergency', rearm: 'paused' },
      stopped: { pause: 'stopped', resume: 'running', stop: 'stopped', emergency_stop: 'emergency', rearm: 'stopped' },
      emergency: { pause: 'emergency', resume: 'throws', stop: 'emergency', emergency_stop: 'emergency', rearm: 'running' },
    };
    for (const [state, path] of Object.entries(states) as [BrakeState, BrakeAction[]][]) {
      for (const [action, expected] of Object.entries(table[state]) as [BrakeAction, BrakeState | 'throws'][])
        assert.equal(after(path, action), expected, `${state} + ${action}`);
    }
  });

  it('refuses acts when stopped or in emergency only, and tells listeners each change once', () => {
    const b = new Brakes();
    const seen: string[] = [];
    b.onChange((s, p) => seen.push(`${p}>${s}`));
    assert.equal(b.refusing, false);
    b.apply('pause');
    assert.equal(b.refusing, false);
    b.apply('pause');
    b.apply('stop');
    assert.equal(b.refusing, true);
    b.apply('emergency_stop');
    assert.equal(b.refusing, true);
    b.apply('rearm');
    assert.deepEqual(seen, ['running>paused', 'paused>stopped', 'stopped>emergency', 'emergency>running']);
  });
});

describe('ApprovalQueue', () => {
  it('settles each card once: approve, deny with reason, expire, brake, withdraw', async () => {
    const clock = new FakeClock();
    const q = new ApprovalQueue(clock);
    const a = q.request(card('a'), 10_000);
    const d = q.request(card('d'), 10_000);
    const e = q.request(card('e'), 10_000);
    const w = q.request(card('w', 's2'), 10_000);
    assert.ok(q.approve('a', 'element'));
    assert.equal(q.approve('a'), false, 'a decided card cannot be decided again');
    assert.ok(q.deny('d', 'not now'));
    assert.equal(q.withdrawSession('s2', 'the agent went away'), 1);
    await clock.tick(10_000);
    assert.deepEqual((await a).decision.verdict, 'approved');
    assert.equal((await a).allow, 'element');
    assert.equal((await d).decision.note, 'not now');
    assert.equal((await e).decision.verdict, 'expired');
    assert.equal((await w).decision.verdict, 'withdrawn');
    const b = q.request(card('b'), 10_000);
    assert.equal(q.brakeAll('stopped'), 1);
    assert.equal((await b).decision.verdict, 'braked');
    assert.equal(q.list().length, 0);
    assert.equal(clock.pending, 0, 'no timer is left behind');
  });

  it('settles a question with its answer or a decline, once, and shows a changed card again in place', async () => {
    const q = new ApprovalQueue(new FakeClock());
    const changes: string[] = [];
    q.onChange((c) => changes.push(`+${c.added.map((x) => x.approval_id).join()} -${c.removed.join()}`));
    const answered = q.request(question('q1', { text: 'which?', choices: ['a', 'b'] }), 10_000);
    const declined = q.request(question('q2', { text: 'may I?' }), 10_000);
    assert.ok(q.replace(question('q2', { text: 'may I? (again)' })));
    assert.equal(expectCard(q.get('q2'), 'question').question.text, 'may I? (again)');
    assert.ok(q.settle('q1', { verdict: 'approved', answer: { text: 'b', choice: 1 } }));
    assert.equal(q.settle('q1', { verdict: 'denied' }), false, 'an answered question cannot be answered again');
    assert.ok(q.settle('q2', { verdict: 'denied', note: 'not today' }));
    assert.equal(q.replace(card('q2')), false, 'a card no longer pending is not shown again');
    assert.deepEqual((await answered).answer, { text: 'b', choice: 1 });
    assert.deepEqual([(await declined).decision.verdict, (await declined).decision.by, (await declined).decision.note], ['denied', 'human', 'not today']);
    assert.deepEqual(changes, ['+q1 -', '+q2 -', '+q2 -', '+ -q1', '+ -q2']);
  });

  it('counts and lists per session, oldest first', () => {
    const q = new ApprovalQueue(new FakeClock());
    void q.request(card('x', 's1'), 1000);
    void q.request(card('y', 's2'), 1000);
    void q.request(card('z', 's1'), 1000);
    assert.deepEqual(
      q.list().map((c) => c.approval_id),
      ['x', 'y', 'z'],
    );
    assert.equal(q.countFor('s1'), 2);
  });
});

describe('HoldList', () => {
  it('passes at once unless paused; resume lets every held item go', async () => {
    const brakes = new Brakes();
    const holds = new HoldList(brakes, new FakeClock());
    assert.deepEqual(await holds.hold(held('now')), { kind: 'go' });
    brakes.apply('pause');
    const one = holds.hold(held('one'));
    const two = holds.hold(held('two'));
    assert.deepEqual(
      holds.list().map((h) => h.approval_id),
      ['one', 'two'],
    );
    brakes.apply('resume');
    assert.deepEqual([await one, await two], [{ kind: 'go' }, { kind: 'go' }]);
    assert.equal(holds.list().length, 0);
  });

  it('a stop or an emergency stop ends a hold braked; cancel denies; a departed agent is withdrawn', async () => {
    const brakes = new Brakes();
    const holds = new HoldList(brakes, new FakeClock());
    brakes.apply('pause');
    const c = holds.hold(held('c'));
    const w = holds.hold(held('w', 's2'));
    const s = holds.hold(held('s'));
    assert.ok(holds.cancel('c'));
    assert.equal(holds.withdrawSession('s2', 'idle'), 1);
    brakes.apply('emergency_stop');
    const [cancelled, withdrawn, stopped] = [await c, await w, await s];
    assert.equal(cancelled.kind === 'refused' && cancelled.refusal.code, 'denied');
    assert.equal(withdrawn.kind === 'refused' && withdrawn.refusal.code, 'withdrawn');
    assert.equal(stopped.kind === 'refused' && stopped.refusal.code, 'braked');
  });
});

describe('Policy', () => {
  it('denies apps by exact name (case-folded) or /regex/; a broken regex denies nothing', () => {
    const p = new Policy();
    p.denyApp('Mousepad');
    p.denyApp('/^gnome-/');
    p.denyApp('/([/');
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'invoke', app: 'mousepad', element: 'k' }).kind, 'deny');
    assert.equal(
      p.decide({ session: 's', connection: 'local', action: 'focus', app: 'gnome-calculator', element: 'k' }).kind,
      'deny',
      'a deny rule covers view-only actions too',
    );
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'invoke', app: 'fixture', element: 'k' }).kind, 'ask');
  });

  it('reads and view-only actions are automatic; mutating ones ask unless a rule of this session allows them', () => {
    const p = new Policy();
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'scroll_into_view', app: 'app', element: 'k' }).kind, 'auto');
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'set_value', app: 'app', element: 'k' }).kind, 'ask');
    const rule = p.allowForSession({
      session: 's',
      agent: 'claude',
      connection: 'local',
      action: 'set_value',
      app: 'app',
      scope: 'element',
      element: 'k',
      elementLabel: 'edit "Name"',
    });
    assert.equal(rule.kind === 'allow' && rule.agent, 'claude', 'the rule names the agent');
    assert.equal(rule.kind === 'allow' && rule.element_label, 'edit "Name"');
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'set_value', app: 'app', element: 'k' }).kind, 'auto');
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'invoke', app: 'app', element: 'k' }).kind, 'ask', 'another action asks');
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'set_value', app: 'app', element: 'k2' }).kind, 'ask', 'another element asks');
    p.endSession('s');
    assert.equal(p.decide({ session: 's', connection: 'local', action: 'set_value', app: 'app', element: 'k' }).kind, 'ask', 'a rule ends with its session');
  });

  it('loads only deny rules from settings (allow rules never outlive their session)', () => {
    const p = new Policy();
    p.load([
      { kind: 'allow', id: 'R1', session: 's', agent: 'a', connection: 'local', action: 'invoke', app: 'x', scope: 'app', created_at: '' },
      { kind: 'deny_app', id: 'R2', pattern: 'x', created_at: '' },
    ]);
    assert.deepEqual(
      p.list().map((r) => r.id),
      ['R2'],
    );
  });
});
