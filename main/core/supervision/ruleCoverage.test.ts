import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ElementApproval } from '../../../protocol/index.js';
import { FakeClock } from '../../testing/fakeClock.js';
import { FAKE_WINDOW, fakeElement } from '../../testing/fakeHelper.js';
import { ApprovalQueue, type RuleSubject } from './approvals.js';
import { Policy } from './policy.js';
import { coveredCards, whyNotCovered } from './ruleCoverage.js';
import { keysOutOfScope } from './ruleScope.js';

const card = (id: string, session = 's1'): ElementApproval => ({
  kind: 'element',
  approval_id: id,
  receipt_id: `R${id}`,
  session,
  agent: 'agent',
  action: 'set_value',
  password: false,
  target: fakeElement(id).element,
  ancestor_path: [],
  window: FAKE_WINDOW,
  created_at: new Date(0).toISOString(),
  expires_at: new Date(120_000).toISOString(),
  risk_hints: [],
});
const subject = (element: string, extra: Partial<RuleSubject> = {}): RuleSubject => ({
  connection: 'local',
  action: 'set_value',
  app: 'gedit',
  element,
  ...extra,
});

describe('the queued cards a new session rule covers', () => {
  const queue = (): ApprovalQueue => {
    const q = new ApprovalQueue(new FakeClock());
    void q.request(card('a'), 60_000, subject('e1'));
    void q.request(card('b'), 60_000, subject('e1'));
    void q.request(card('c'), 60_000, subject('e2'));
    void q.request(card('d', 's2'), 60_000, subject('e1'));
    void q.request(card('e'), 60_000, { ...subject('e1'), action: 'invoke' });
    void q.request(card('f'), 60_000, subject('e1', { outOfRule: (scope) => keysOutOfScope(scope, [{ modifiers: [], key: 'Tab' }], false) }));
    void q.request(card('g'), 60_000);
    void q.request(card('h'), 60_000, subject('e1', { connection: 'box' }));
    void q.request(card('i'), 60_000, subject('e1', { connection: 'box~2' }));
    return q;
  };
  const rule = { session: 's1', connection: 'local', action: 'set_value', app: 'gedit', element: 'e1' } as const;

  it('an element rule covers the same agent session, action, app and element, and nothing a rule cannot cover of keys', () => {
    const q = queue();
    assert.deepEqual(coveredCards(q, { ...rule, scope: 'element' }, 'a'), ['b']);
    assert.match(whyNotCovered(q, { ...rule, scope: 'element' }, 'c') ?? '', /does not cover/);
    assert.match(whyNotCovered(q, { ...rule, scope: 'element' }, 'd') ?? '', /does not cover/, 'another agent session');
    assert.match(whyNotCovered(q, { ...rule, scope: 'element' }, 'e') ?? '', /does not cover/, 'another action');
    assert.match(whyNotCovered(q, { ...rule, scope: 'element' }, 'f') ?? '', /Tab/);
    assert.match(whyNotCovered(q, { ...rule, scope: 'element' }, 'g') ?? '', /not an action/);
    assert.match(whyNotCovered(q, { ...rule, scope: 'element' }, 'h') ?? '', /does not cover/, 'the same key and app on another desktop');
  });

  it('a rule given on one desktop covers that desktop alone, never a later one of the same name', () => {
    const q = queue();
    assert.deepEqual(coveredCards(q, { ...rule, connection: 'box', scope: 'app' }, 'x'), ['h']);
    assert.deepEqual(coveredCards(q, { ...rule, connection: 'box~2', scope: 'app' }, 'x'), ['i']);
    const policy = new Policy();
    policy.allowForSession({ ...rule, connection: 'box', agent: 'agent', scope: 'app', elementLabel: '' });
    assert.equal(policy.decide({ session: 's1', connection: 'box', action: 'set_value', app: 'gedit', element: 'e9' }).kind, 'auto');
    assert.equal(policy.decide({ session: 's1', connection: 'local', action: 'set_value', app: 'gedit', element: 'e1' }).kind, 'ask', 'not on local');
    assert.equal(
      policy.decide({ session: 's1', connection: 'box~2', action: 'set_value', app: 'gedit', element: 'e1' }).kind,
      'ask',
      'not on a re-added "box"',
    );
  });

  it('an app rule covers every element of the app, still within one session and action', () => {
    assert.deepEqual(coveredCards(queue(), { ...rule, scope: 'app' }, 'a'), ['b', 'c', 'f']);
  });

  it('a card that left the queue is no longer covered, and policy decides with the same matcher', () => {
    const q = queue();
    q.withdraw('b', 'agent disconnected', 'agent_disconnected');
    assert.match(whyNotCovered(q, { ...rule, scope: 'element' }, 'b') ?? '', /no longer pending/);
    const policy = new Policy();
    policy.allowForSession({ ...rule, agent: 'agent', scope: 'element', elementLabel: 'edit' });
    assert.equal(policy.decide({ session: 's1', connection: 'local', action: 'set_value', app: 'gedit', element: 'e1' }).kind, 'auto');
    assert.equal(policy.decide({ session: 's1', connection: 'local', action: 'set_value', app: 'gedit', element: 'e2' }).kind, 'ask');
    assert.equal(policy.decide({ session: 's2', connection: 'local', action: 'set_value', app: 'gedit', element: 'e1' }).kind, 'ask');
  });

  it('a withdrawn card says why in its outcome', async () => {
    const q = new ApprovalQueue(new FakeClock());
    const outcome = q.request(card('x'), 60_000, subject('e1'));
    assert.equal(q.withdraw('x', 'the agent cancelled this call', 'call_cancelled'), true);
    const o = await outcome;
    assert.equal(o.decision.verdict, 'withdrawn');
    assert.equal(o.withdrawn, 'call_cancelled');
    assert.equal(q.withdraw('x', 'again', 'call_cancelled'), false);
  });
});
