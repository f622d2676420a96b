import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ConnectionInfo,
  type ConnectionRef,
  type CardBase,
  type Element,
  type PendingApproval,
  type ReceiptEntry,
  type RemoteExecApproval,
} from '../../protocol/index.js';
import { emptyDraft, parseDraft, publicUrlWarning } from './connectionForm.js';
import { agentConnection, isRemote, mayAllowForSession, ruleDesktopWords, statusWords, whereLine } from './connectionWords.js';
import { outcomeLine, type DecisionRecord } from './outcome.js';
import { groupReceipts, type ReceiptRow } from './receiptRows.js';
import { detailFields, reasonOf, resultWords, searchText } from './receiptWords.js';

const local: ConnectionInfo = { name: 'local', kind: 'local', where: 'this desktop', enabled: true, status: 'up' };
const lab: ConnectionInfo = {
  name: 'lab',
  kind: 'ssh',
  where: 'ann@lab.example:2222',
  enabled: true,
  status: 'down',
  last_error: { code: 'connection_unavailable', detail: 'ssh exited 255' },
};
const vm: ConnectionInfo = { name: 'vm1', kind: 'osworld_http', where: 'http://10.0.0.5:5000', enabled: false, status: 'unknown' };

describe('naming where', () => {
  it('names the desktop a session rule covers, and which entry of a name given again', () => {
    assert.equal(ruleDesktopWords('local'), 'this desktop');
    assert.equal(ruleDesktopWords('box'), 'the connection box');
    assert.equal(ruleDesktopWords('box~2'), 'the connection box (its 2nd entry of that name)');
    assert.equal(ruleDesktopWords('box~11'), 'the connection box (its 11th entry of that name)');
  });
  it('names a remote connection and never the local one', () => {
    assert.equal(isRemote(undefined), false);
    assert.equal(isRemote({ name: 'local', kind: 'local' }), false);
    assert.equal(isRemote({ name: 'lab', kind: 'ssh' }), true);
    // A connection that says it is local but has another name is still named: it is not this desktop's.
    assert.equal(isRemote({ name: 'lab', kind: 'local' }), true);
    assert.equal(whereLine({ name: 'lab', kind: 'ssh', where: 'ann@lab.example:2222' }), 'lab (SSH, ann@lab.example:2222)');
    assert.equal(whereLine({ name: 'vm1', kind: 'osworld_http', where: 'http://10.0.0.5:5000' }), 'vm1 (OSWorld VM, http://10.0.0.5:5000)');
  });

  it('offers no session rule for a shell command or a new connection', () => {
    const common: CardBase = {
      approval_id: 'a1',
      receipt_id: 'r-a1',
      session: 's1',
      agent: 'claude',
      password: false,
      ancestor_path: [],
      created_at: new Date(0).toISOString(),
      expires_at: new Date(120_000).toISOString(),
      risk_hints: [],
    };
    const target: Element = { key: 'k1', role: 'button', name: 'Send', state: {}, patterns: [] };
    const window = { window: 'w1', title: 'Mail', app: 'mail', pid: 42, process_start: '1', foreground: false };
    assert.equal(mayAllowForSession({ ...common, kind: 'element', action: 'invoke', target, window }), true);
    assert.equal(mayAllowForSession({ ...common, kind: 'remote_exec', action: 'remote_exec', remote_exec: { command: 'uptime', timeout_ms: 1000 } }), false);
    const entry = { name: 'lab', kind: 'ssh', host: 'lab.example', enabled: true } as const;
    assert.equal(mayAllowForSession({ ...common, kind: 'add_connection', action: 'add_connection', add_connection: entry }), false);
  });

  it('finds an agent’s connection, local when it names none', () => {
    assert.equal(agentConnection([local, lab], undefined)?.name, 'local');
    assert.equal(agentConnection([local, lab], 'lab')?.where, 'ann@lab.example:2222');
    assert.equal(agentConnection([local], 'gone'), undefined);
  });

  it('says a connection’s status with when it was checked', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    assert.equal(statusWords({ ...lab, checked_at: '2026-01-01T00:07:00Z' }, now), 'down, checked 3 min ago');
    assert.equal(statusWords(vm, now), 'disabled');
    assert.equal(statusWords({ ...vm, enabled: true }, now), 'not checked yet');
  });

  it('says an hour-old check as the past it is, never as the state now', () => {
    const now = Date.parse('2026-01-01T01:10:00Z');
    assert.equal(statusWords({ ...lab, checked_at: '2026-01-01T00:03:00Z' }, now), 'was down 67 min ago; not checked since — Test checks now');
  });
});

describe('the add form', () => {
  it('makes an ssh entry of the fields typed, leaving empty ones out', () => {
    const r = parseDraft({ ...emptyDraft('ssh'), name: 'lab', host: 'lab.example', user: 'ann', port: '2222', display: ':1' });
    assert.deepEqual(r, { ok: true, config: { kind: 'ssh', enabled: true, name: 'lab', host: 'lab.example', user: 'ann', port: 2222, display: ':1' } });
  });

  it('makes an OSWorld entry and ignores the ssh fields', () => {
    const r = parseDraft({ ...emptyDraft('osworld_http'), name: 'vm1', url: 'http://127.0.0.1:5000', timeout_ms: '15000', host: 'ignored' });
    assert.deepEqual(r, { ok: true, config: { kind: 'osworld_http', enabled: true, name: 'vm1', url: 'http://127.0.0.1:5000', timeout_ms: 15000 } });
  });

  it('names each field the schema refuses', () => {
    const r = parseDraft({ ...emptyDraft('ssh'), name: 'Bad Name', host: '-oProxyCommand=x', port: '22.5', ssh_config: 'relative/file', bus: 'a b' });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.deepEqual(Object.keys(r.errors).sort(), ['bus', 'host', 'name', 'port', 'ssh_config']);
    assert.equal(r.errors.port, 'a whole number', 'a number is never rounded into something the person did not write');
  });

  it('asks for the host or URL the kind needs', () => {
    const ssh = parseDraft({ ...emptyDraft('ssh'), name: 'lab' });
    assert.equal(ssh.ok, false);
    assert.equal(!ssh.ok && ssh.errors.host, 'a host is needed');
    const os = parseDraft({ ...emptyDraft('osworld_http'), name: 'vm1' });
    assert.equal(!os.ok && os.errors.url, 'a URL is needed');
    const creds = parseDraft({ ...emptyDraft('osworld_http'), name: 'vm1', url: 'http://root:pw@10.0.0.5:5000' });
    assert.ok(!creds.ok && creds.errors.url !== undefined, 'a URL with a password is refused');
    const range = parseDraft({ ...emptyDraft('osworld_http'), name: 'vm1', url: 'http://10.0.0.5:5000', timeout_ms: '10' });
    assert.ok(!range.ok && range.errors.timeout_ms !== undefined);
  });

  it('warns in words when an OSWorld URL is neither loopback nor private', () => {
    assert.equal(publicUrlWarning('http://127.0.0.1:5000'), undefined);
    assert.equal(publicUrlWarning('http://192.168.1.20:5000'), undefined);
    assert.equal(publicUrlWarning('http://[::1]:5000'), undefined);
    assert.equal(publicUrlWarning('http://'), undefined, 'nothing to judge yet');
    assert.match(publicUrlWarning('http://203.0.113.9:5000') ?? '', /anyone who can reach this address can drive that desktop/);
    assert.match(publicUrlWarning('https://vm.example.com') ?? '', /neither this machine nor a private network/);
  });
});

describe('receipts name where they ran', () => {
  const entry = (seq: number, connection?: ConnectionRef): ReceiptEntry => ({
    seq,
    at: new Date(seq).toISOString(),
    session: 's1',
    agent: 'claude',
    tool: 'remote_exec',
    outcome: 'completed',
    duration_ms: 3,
    summary: 'remote_exec completed',
    ...(connection !== undefined ? { connection } : {}),
  });
  const lab: ConnectionRef = { name: 'lab', kind: 'ssh', where: 'ann@lab.example:2222' };

  it('a row on another desktop names it in its details and its search; a local one does not', () => {
    const [remote, here, alsoHere] = groupReceipts([entry(1, lab), entry(2), entry(3, { name: 'local', kind: 'local', where: 'this desktop' })]);
    assert.deepEqual(remote?.connection, lab);
    assert.deepEqual(
      detailFields(remote).find(([label]) => label === 'Connection'),
      ['Connection', 'lab (SSH, ann@lab.example:2222)'],
    );
    assert.match(searchText(remote), /lab\.example/);
    for (const row of [here, alsoHere]) {
      assert.equal(row?.connection, undefined);
      assert.equal(
        detailFields(row as ReceiptRow).some(([label]) => label === 'Connection'),
        false,
      );
    }
  });
});

describe('the outcome line of a remote_exec or add_connection card', () => {
  const exec: RemoteExecApproval = {
    kind: 'remote_exec',
    approval_id: 'x1',
    receipt_id: 'r-x1',
    session: 's1',
    agent: 'claude',
    action: 'remote_exec',
    connection: { name: 'lab', kind: 'ssh', where: 'lab.example' },
    remote_exec: { command: 'uptime', timeout_ms: 30_000 },
    password: false,
    ancestor_path: [],
    created_at: new Date(0).toISOString(),
    expires_at: new Date(120_000).toISOString(),
    risk_hints: [],
  };
  const final = (extra: Partial<ReceiptEntry>): ReceiptEntry => ({
    seq: 2,
    at: new Date(2).toISOString(),
    session: 's1',
    agent: 'claude',
    tool: 'remote_exec',
    receipt_id: 'r-x1',
    outcome: 'ok',
    duration_ms: 5,
    summary: 'remote_exec ok',
    ...extra,
  });
  const rec = (r: Partial<DecisionRecord>): DecisionRecord => ({ approval_id: 'x1', receipt_id: 'r-x1', card: exec, at: 0, ...r });

  it('says what became of the command once its final entry arrives', () => {
    assert.equal(outcomeLine(rec({ verdict: 'approved', sent: 'accepted' }), false).text, 'Approved — running…');
    assert.equal(outcomeLine(rec({ verdict: 'approved', final: final({}) }), false).text, 'Approved — ran; its output went to the agent');
    assert.equal(
      outcomeLine(rec({ verdict: 'denied', final: final({ outcome: 'error', error: { code: 'denied', detail: 'not on lab' } }) }), false).text,
      'Denied — the agent was told',
    );
    assert.equal(
      outcomeLine(rec({ verdict: 'approved', final: final({ outcome: 'error', error: { code: 'connection_unavailable', detail: 'ssh exited 255' } }) }), false)
        .text,
      'Approved — failed: connection_unavailable — ssh exited 255',
    );
    assert.equal(
      outcomeLine(rec({ final: final({ outcome: 'error', error: { code: 'expired', detail: 'nobody answered' } }) }), false).text,
      'Expired — nobody answered',
    );
    const { remote_exec: _command, ...common } = exec;
    const added: PendingApproval = {
      ...common,
      kind: 'add_connection',
      action: 'add_connection',
      add_connection: { name: 'lab', kind: 'ssh', host: 'lab.example', enabled: true },
    };
    assert.equal(outcomeLine(rec({ card: added, verdict: 'approved', final: final({}) }), false).text, 'Approved — added');
  });

  it('says ok only for exit 0, and names an exit code, a signal or a timeout as the failure it is', () => {
    const ended = (remote_exec: ReceiptEntry['remote_exec'], outcome: string, summary: string): ReceiptEntry =>
      final({ outcome, summary, ...(remote_exec !== undefined ? { remote_exec } : {}) });
    const zero = ended({ exit_code: 0, duration_ms: 12 }, 'ok', 'remote_exec exit 0');
    const three = ended({ exit_code: 3, duration_ms: 12 }, 'failed', 'remote_exec exit 3');
    const signal = ended({ exit_code: -9, duration_ms: 12 }, 'failed', 'remote_exec killed by signal 9');
    const late = ended({ exit_code: null, timed_out: true, duration_ms: 5004 }, 'failed', 'remote_exec timed out after 5004 ms');
    const line = (f: ReceiptEntry) => outcomeLine(rec({ verdict: 'approved', final: f }), false);
    assert.deepEqual(line(zero), { tone: 'ok', text: 'Approved — ran: exit 0; its output went to the agent' });
    assert.deepEqual(line(three), { tone: 'bad', text: 'Approved — failed: exit 3; its output went to the agent' });
    assert.deepEqual(line(signal), { tone: 'bad', text: 'Approved — failed: killed by signal 9; its output went to the agent' });
    assert.deepEqual(line(late), { tone: 'bad', text: 'Approved — failed: timed out after 5004 ms; its output went to the agent' });
    // The timeline: the row's outcome, its words and its reason.
    const rows = groupReceipts([zero, { ...three, seq: 3, receipt_id: 'r-x2' }, { ...late, seq: 4, receipt_id: 'r-x3' }]);
    const [okRow, exitRow, lateRow] = rows.sort((a, b) => a.seq - b.seq);
    assert.deepEqual([okRow?.outcome, resultWords(okRow as ReceiptRow), reasonOf(okRow as ReceiptRow)], ['ok', 'ran: exit 0', undefined]);
    assert.deepEqual([exitRow?.outcome, resultWords(exitRow as ReceiptRow), reasonOf(exitRow as ReceiptRow)], ['failed', 'failed: exit 3', 'Failed: exit 3']);
    assert.deepEqual(
      [lateRow?.outcome, resultWords(lateRow as ReceiptRow), reasonOf(lateRow as ReceiptRow)],
      ['failed', 'failed: timed out after 5004 ms', 'Failed: timed out after 5004 ms'],
    );
    assert.ok(
      detailFields(exitRow as ReceiptRow).some(([label, value]) => label === 'Outcome' && value === 'failed: exit 3'),
      'the details say it too',
    );
  });
});
