import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError, errorInfo, type ConnectionConfig, type ErrorInfo } from '../../../protocol/index.js';
import { FakeClock, flush } from '../../testing/fakeClock.js';
import { FakeHelper } from '../../testing/fakeHelper.js';
import type { ConnectionManager } from '../connections/manager.js';
import { ApprovalQueue } from '../supervision/approvals.js';
import { Brakes } from '../supervision/brakes.js';
import { HoldList } from '../supervision/holds.js';
import { Policy } from '../supervision/policy.js';
import { QueueAdmission } from '../supervision/admission.js';
import { AgentSession } from '../session/agentSession.js';
import { addConnection, remoteExec, type ConnectionToolDeps } from './connectionTools.js';
import { expectCard } from '../../testing/cards.js';

/** The connection tools in the supervision core, with a fake clock and a stand-in for the manager that records what ran. */
function rig() {
  const clock = new FakeClock();
  const brakes = new Brakes();
  const approvals = new ApprovalQueue(clock);
  const journal: { kind: string; [k: string]: unknown }[] = [];
  const ran: string[] = [];
  const added: unknown[] = [];
  const connections = {
    refusal: () => undefined,
    has: (n: string) => n === 'local' || n === 'lab',
    ref: (n: string) => ({ name: n, kind: 'ssh', where: 'ann@lab-box' }),
    maybeRefresh: () => Promise.resolve(),
    tagOf: (n: string) => n,
    exec: (_n: string, _tag: string, command: string) => {
      ran.push(command);
      return Promise.resolve({ exit_code: 0, stdout: 'ok\n', stderr: '', stdout_truncated: false, stderr_truncated: false, duration_ms: 3 });
    },
    add: (c: ConnectionConfig) => {
      added.push(c);
      return Promise.resolve(c);
    },
    list: () => added.map((c) => ({ ...(c as object), where: 'x', status: 'unknown' })),
  } as unknown as ConnectionManager;
  const deps: ConnectionToolDeps = {
    helper: new FakeHelper(),
    approvals,
    holds: new HoldList(brakes, clock),
    brakes,
    policy: new Policy(),
    admission: new QueueAdmission(),
    clock,
    settings: () => ({ approval_expiry_s: 120, approval_wait_ms: 45_000 }),
    journalEvent: (record) => {
      journal.push(record);
      return Promise.resolve();
    },
    journalFinal: () => Promise.resolve(),
    connections,
  };
  const session = new AgentSession({ transport: 'http', progressiveTools: false, now: () => clock.now() });
  session.connection = 'lab';
  const braked = new Promise<ErrorInfo>(() => {});
  const card = async (): Promise<string> => {
    for (let i = 0; i < 50; i++) {
      const found = approvals.list()[0];
      if (found !== undefined) return found.approval_id;
      await flush();
    }
    throw new Error('no card');
  };
  const exec = (command: string) => remoteExec(deps, session, { command }, new AbortController().signal, undefined, braked);
  return { clock, brakes, approvals, journal, ran, added, deps, session, exec, card, braked };
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    assert.ok(e instanceof OverseerError, String(e));
    return e.code;
  }
}

describe('remote_exec and add_connection: cards no rule decides', () => {
  it('remote_exec is refused on local before any card', async () => {
    const t = rig();
    t.session.connection = 'local';
    assert.equal(await codeOf(t.exec('true')), 'invalid_argument');
    assert.equal(t.approvals.list().length, 0);
    assert.deepEqual(t.ran, []);
  });

  it('shows connection and command on its card; runs once approved, never when denied; both ends journaled', async () => {
    const t = rig();
    const denied = t.exec('rm -rf /tmp/x');
    const id = await t.card();
    const item = expectCard(t.approvals.get(id), 'remote_exec');
    assert.deepEqual(item.remote_exec, { command: 'rm -rf /tmp/x', timeout_ms: 30_000 });
    assert.equal(item.connection?.name, 'lab');
    assert.equal(t.approvals.subject(id), undefined, 'no rule subject: no session rule can cover it');
    t.approvals.deny(id, 'no');
    assert.equal(await codeOf(denied), 'denied');
    assert.deepEqual(t.ran, []);
    const approved = t.exec('uname -a');
    t.approvals.approve(await t.card());
    const r = await approved;
    assert.equal(r.ok, true);
    assert.deepEqual(t.ran, ['uname -a']);
    assert.deepEqual(
      t.journal.map((j) => [j.kind, j['verdict'] ?? j['command']]),
      [
        ['approval_pending', 'rm -rf /tmp/x'],
        ['approval_resolved', 'denied'],
        ['approval_pending', 'uname -a'],
        ['approval_resolved', 'approved'],
      ],
    );
  });

  it('approved while paused, it waits for Resume; a Stop then refuses it braked and it never runs', async () => {
    const t = rig();
    t.brakes.apply('pause');
    const first = t.exec('echo one');
    t.approvals.approve(await t.card());
    await flush();
    assert.deepEqual(t.ran, [], 'held by the pause');
    t.brakes.apply('resume');
    assert.equal((await first).ok, true);
    t.brakes.apply('pause');
    const second = t.exec('echo two');
    t.approvals.approve(await t.card());
    await flush();
    t.brakes.apply('stop');
    assert.equal(await codeOf(second), 'braked');
    assert.deepEqual(t.ran, ['echo one']);
  });

  it('a transport that broke while the command ran answers outcome unknown, and nothing retries it', async () => {
    const t = rig();
    let calls = 0;
    (t.deps.connections as unknown as { exec: () => Promise<never> }).exec = () => {
      calls++;
      return Promise.reject(new OverseerError(errorInfo('connection_unavailable', 'ssh exited 255', { connection: 'lab', reason: 'down' })));
    };
    const answer = t.exec('make install');
    t.approvals.approve(await t.card());
    try {
      await answer;
      assert.fail('it answered');
    } catch (e) {
      assert.ok(e instanceof OverseerError);
      assert.equal(e.code, 'connection_unavailable');
      assert.equal(e.info.data?.['outcome'], 'unknown');
    }
    assert.equal(calls, 1);
  });

  it('add_connection shows exactly the entry and adds it only when approved; secrets are refused before any card', async () => {
    const t = rig();
    const signal = new AbortController().signal;
    assert.equal(
      await codeOf(addConnection(t.deps, t.session, { name: 'x', kind: 'ssh', host: 'h', password: 'p' }, signal, undefined, t.braked)),
      'invalid_argument',
    );
    assert.equal(t.approvals.list().length, 0);
    const answer = addConnection(t.deps, t.session, { name: 'vm1', kind: 'osworld_http', url: 'http://10.0.0.5:5000' }, signal, undefined, t.braked);
    const id = await t.card();
    assert.deepEqual(expectCard(t.approvals.get(id), 'add_connection').add_connection, {
      name: 'vm1',
      kind: 'osworld_http',
      url: 'http://10.0.0.5:5000',
      enabled: true,
    });
    t.approvals.approve(id);
    await answer;
    assert.deepEqual(t.added, [{ name: 'vm1', kind: 'osworld_http', url: 'http://10.0.0.5:5000', enabled: true }]);
  });
});
