// An ssh connection through the real supervisor (`overseer serve`), a private sshd on 127.0.0.1 whose
// sessions see a second private desktop: what the person reads of a remote_exec that failed, and
// what a compromised remote can write to the supervisor's log. The remote is hostile the way a
// compromised machine is: the connection's `node` there is a wrapper that writes terminal escapes
// (a title, an OSC 52 clipboard write, a clear screen, a carriage return, a fake "Overseer UI" line)
// on stderr before it runs the helper.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { PendingApproval, ReceiptEntry, RemoteExecResult } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { startPrivateSshd, type PrivateSshd } from '../testing/privateSshd.js';
import { buildRemoteHelperForTest } from '../testing/remoteHelperBuild.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../testing/serveHarness.js';
import { ConnectionRegistry } from './connections/registry.js';
import { exportJournal } from './journal/index.js';

/** What the hostile remote writes on stderr before its helper runs (printf's octal escapes: ESC, BEL, CR, U+202E RLO, U+009B CSI). */
const HOSTILE_STDERR = [
  '\\033]0;pwned-title\\007\\033]52;c;cHduZWQ=\\007\\033[2J\\rpwned-clear\\n',
  'Overseer UI: http://127.0.0.1:1/pair?code=pwned-pair\\n',
  'pwned-bidi \\342\\200\\256gnp.exe \\302\\233 \\177 end\\n',
].join('');
/** The first character in `text` that no remote may put in the supervisor's log raw (a control other than LF and tab, DEL, C1, a bidi override or isolate). */
function rawChar(text: string): string | undefined {
  return [...text].find((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return (c < 0x20 && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
  });
}

describe('an ssh connection through the real supervisor: honest receipts, and a hostile remote kept out of the log', () => {
  let local: PrivateDesktop;
  let remote: PrivateDesktop;
  let sshd: PrivateSshd;
  let bundle: string;
  let wrapperDir: string;
  let s: Served;
  let ui: UiClient;
  let agent: Client;

  const card = (since: number): Promise<PendingApproval> =>
    ui
      .waitFor<PendingApproval[]>('pending', (list) => list.some((p) => p.action === 'remote_exec'), 30_000, since)
      .then((list) => list.find((p) => p.action === 'remote_exec') as PendingApproval);
  /** Runs a command on the connection as the agent does, approved by the person; its answer and the receipt the UI got. */
  const approvedExec = async (command: string, timeoutMs?: number): Promise<{ answer: RemoteExecResult; receipt: ReceiptEntry }> => {
    const since = ui.mark();
    const answer = toolJson<RemoteExecResult>(
      agent,
      'remote_exec',
      { command, ...(timeoutMs !== undefined ? { timeout_ms: timeoutMs } : {}) },
      { timeout: 90_000 },
    );
    const c = await card(since);
    await ui.command('approve', { approval_id: c.approval_id });
    const receipt = await ui.waitFor<ReceiptEntry>('receipt', (e) => e.tool === 'remote_exec' && e.receipt_id === c.receipt_id, 60_000, since);
    return { answer: await answer, receipt };
  };

  before(async () => {
    bundle = buildRemoteHelperForTest();
    [local, remote] = await Promise.all([startPrivateDesktop({ width: 1024, height: 768 }), startPrivateDesktop({ width: 1024, height: 768 })]);
    sshd = await startPrivateSshd();
    // The compromised remote's node: escapes on stderr, then the real Node.js (as the helper needs).
    wrapperDir = mkdtempSync(join(tmpdir(), 'overseer-hostile-node-'));
    const wrapper = join(wrapperDir, 'node');
    writeFileSync(wrapper, `#!/bin/sh\nprintf '${HOSTILE_STDERR}' >&2\nexec '${process.execPath}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    const dataDir = mkdtempSync(join(tmpdir(), 'overseer-data-'));
    const registry = new ConnectionRegistry(dataDir);
    await registry.load();
    await registry.add({
      name: 'box',
      kind: 'ssh',
      enabled: true,
      host: sshd.alias,
      ssh_config: sshd.clientConfig,
      display: remote.display,
      bus: remote.env['DBUS_SESSION_BUS_ADDRESS'],
      node: wrapper,
    });
    s = await serve({ ...local.env, OVERSEER_TEST_REMOTE_HELPER: bundle }, { dataDir, targets: 'ssh-bundle' });
    ui = await UiClient.connect(s);
    agent = await httpClient(s, 'exec-agent', { tiers: ['accessibility', 'connections'] });
    const activated = await toolJson<{ active: { name: string } }>(agent, 'activate_connection', { name: 'box' });
    assert.equal(activated.active.name, 'box', JSON.stringify(activated));
  });

  after(async () => {
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await sshd?.stop();
    await Promise.all([local?.stop(), remote?.stop()]);
    if (s !== undefined) await removeDataDir(s.dataDir);
    for (const d of [wrapperDir, ...(bundle !== undefined ? [dirname(bundle)] : [])]) if (d !== undefined) await rm(d, { recursive: true, force: true });
  });

  it('receipts say ok only for exit 0, and name an exit code and a timeout as the failures they are', async () => {
    const fine = await approvedExec('echo fine');
    assert.deepEqual([fine.answer.ok, fine.answer.exit_code], [true, 0], JSON.stringify(fine.answer));
    assert.deepEqual([fine.receipt.outcome, fine.receipt.summary, fine.receipt.remote_exec?.exit_code], ['ok', 'remote_exec exit 0', 0]);

    const three = await approvedExec('echo out; exit 3');
    assert.deepEqual([three.answer.ok, three.answer.exit_code], [false, 3], JSON.stringify(three.answer));
    assert.deepEqual([three.receipt.outcome, three.receipt.summary, three.receipt.remote_exec?.exit_code], ['failed', 'remote_exec exit 3', 3]);

    const late = await approvedExec('sleep 30', 1000);
    assert.deepEqual([late.answer.ok, late.answer.exit_code, late.answer.timed_out], [false, null, true], JSON.stringify(late.answer));
    assert.equal(late.receipt.outcome, 'failed');
    assert.match(late.receipt.summary, /^remote_exec timed out after \d+ ms$/);
    assert.equal(late.receipt.remote_exec?.timed_out, true);

    // The journal says the same as the person's list.
    const records: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => records.push(JSON.parse(l) as Record<string, unknown>));
    const execs = records.filter((r) => r['tool'] === 'remote_exec' && r['kind'] === 'tool_call');
    assert.deepEqual(
      execs.map((r) => [r['outcome'], (r['remote_exec'] as { exit_code: number | null }).exit_code]),
      [
        ['ok', 0],
        ['failed', 3],
        ['failed', null],
      ],
    );
  });

  it('a remote’s escapes reach the supervisor’s log escaped, every line of it named as the remote’s', async () => {
    const listed = await toolJson<{ windows: unknown[]; error?: unknown }>(agent, 'window_list', {}, { timeout: 60_000 });
    assert.equal(listed.error, undefined, JSON.stringify(listed));
    const log = s.stderr();
    const theirs = log.split('\n').filter((l) => l.includes('pwned'));
    assert.ok(theirs.length >= 3, `the remote's lines are logged:\n${log}`);
    for (const line of theirs) assert.ok(line.startsWith('[remote box] '), `named as the remote's: ${JSON.stringify(line)}`);
    assert.equal(rawChar(log), undefined, 'no raw control or bidi character in the log');
    // The escapes are there to read, as escapes.
    assert.ok(
      theirs.some((l) => l.includes('\\x1b]0;pwned-title\\x07\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\x0dpwned-clear')),
      JSON.stringify(theirs),
    );
    assert.ok(
      theirs.some((l) => l.includes('pwned-bidi \\u202egnp.exe \\x9b \\x7f end')),
      JSON.stringify(theirs),
    );
    // The fake pairing line cannot pass for the supervisor's own: only the remote's prefix comes before it.
    for (const line of log.split('\n').filter((l) => l.includes('Overseer UI:'))) assert.match(line, /^\[remote box\] Overseer UI: .*pwned-pair$/);
  });
});
