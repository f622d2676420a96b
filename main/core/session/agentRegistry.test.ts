import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../testing/fakeClock.js';
import { AgentSession, MAX_AGENT_NAME, agentName } from './agentSession.js';
import { AgentRegistry } from './agentRegistry.js';

function rig(max = 3, idleMs = 60_000) {
  const clock = new FakeClock();
  const ended: [string, string][] = [];
  const closed: string[] = [];
  const pending = new Map<string, number>();
  const registry = new AgentRegistry({ ended: (s, why) => ended.push([s.id, why]), pendingOf: (id) => pending.get(id) ?? 0 }, () => idleMs, clock, max);
  const add = (transport: 'http' | 'stdio' = 'http'): AgentSession => {
    const s = new AgentSession({ transport, progressiveTools: false, now: () => clock.now() });
    registry.add(s, { close: () => closed.push(s.id), drain: () => Promise.resolve() });
    return s;
  };
  return { clock, registry, ended, closed, pending, add };
}

describe('AgentRegistry: bounded sessions that end by themselves', () => {
  it('ends an HTTP session idle past the limit, withdrawing through `ended`, and closes its connection', async () => {
    const t = rig();
    const s = t.add();
    await t.clock.tick(59_000);
    assert.equal(t.registry.size, 1);
    await t.clock.tick(1000);
    assert.equal(t.registry.size, 0);
    assert.match(t.ended[0]?.[1] ?? '', /idle for 60 s/);
    assert.deepEqual(t.closed, [s.id]);
    assert.equal(s.ended, t.ended[0]?.[1], 'the session knows it ended (nothing of it may run)');
  });

  it('never ends a session while a request of it is open (a call in flight, an event stream), nor a bridge session', async () => {
    const t = rig();
    const busy = t.add();
    t.add('stdio');
    const leave = busy.enter();
    await t.clock.tick(10 * 60_000);
    assert.equal(t.registry.size, 2);
    leave();
    await t.clock.tick(60_000);
    assert.deepEqual(
      t.registry.list().map((s) => s.transport),
      ['stdio'],
    );
  });

  it('makes room by ending the longest-idle session with nothing pending, and refuses when every one is busy', async () => {
    const t = rig(3);
    const a = t.add();
    await t.clock.tick(1000);
    const b = t.add();
    await t.clock.tick(1000);
    const c = t.add();
    t.pending.set(a.id, 1);
    await t.clock.tick(1000);
    assert.deepEqual(t.registry.admit(), { ok: true });
    assert.equal(t.registry.get(b.id), undefined, 'b (idle, nothing pending) made room');
    assert.ok(t.registry.get(a.id), 'a has a pending approval: kept');
    t.add().enter();
    c.enter();
    const refused = t.registry.admit();
    assert.equal(refused.ok, false);
  });

  it('ends everything at once for an emergency stop', () => {
    const t = rig();
    t.add();
    t.add('stdio');
    t.registry.endAll('emergency stop');
    assert.equal(t.registry.size, 0);
    assert.deepEqual(
      t.ended.map((e) => e[1]),
      ['emergency stop', 'emergency stop'],
    );
  });
});

describe('agentName: what an agent calls itself, as the person sees it', () => {
  it('drops control and format characters, folds whitespace, bounds the length, and falls back when nothing is left', () => {
    assert.equal(agentName('claude\u0000\u202e\ncode', 'x'), 'claude code');
    assert.equal(agentName('a'.repeat(500), 'x').length, MAX_AGENT_NAME);
    assert.equal(agentName(' \u0007 ', 'unknown agent'), 'unknown agent');
    assert.equal(agentName(undefined, 'unknown agent'), 'unknown agent');
  });
});
