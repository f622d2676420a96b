import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { OverseerError, SshConnectionConfig } from '../../../protocol/index.js';
import { probeRefusal } from './remotePlatform.js';
import { remoteScript, shQuote, sshArgs } from './sshArgs.js';
import { hostKeyFactsFrom, sshFailure, sshFailureReason } from './sshFailure.js';

const entry = (extra: Partial<SshConnectionConfig> = {}): SshConnectionConfig => ({ name: 'lab', kind: 'ssh', enabled: true, host: 'lab-box', ...extra });

// What OpenSSH 9 prints in each case (BatchMode, StrictHostKeyChecking=yes).
const UNKNOWN = 'No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\r\nHost key verification failed.\r\n';
const CHANGED = [
  '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
  '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
  '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
  'IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!',
  'The fingerprint for the ED25519 key sent by the remote host is',
  'SHA256:3mV4kq1yqZ0xG7m0Y0w8bR1d2Q3rP9sT6uV5wX4yZ2A.',
  'Offending ED25519 key in /home/u/.ssh/known_hosts:3',
  '  remove with:',
  '  ssh-keygen -f "/home/u/.ssh/known_hosts" -R "[127.0.0.1]:2222"',
  'Host key for [127.0.0.1]:2222 has changed and you have requested strict checking.',
  'Host key verification failed.',
].join('\n');

describe('ssh arguments', () => {
  it('never prompts, checks host keys strictly, forwards nothing, shares one master, and puts the host after --', () => {
    const args = sshArgs(entry({ port: 2222, user: 'ann', ssh_config: '/home/ann/.ssh/overseer_config' }), '/data/ssh/%C');
    const options = args.filter((_, i) => args[i - 1] === '-o');
    for (const o of [
      'BatchMode=yes',
      'StrictHostKeyChecking=yes',
      'ForwardAgent=no',
      'ForwardX11=no',
      'ClearAllForwardings=yes',
      'ControlMaster=auto',
      'ControlPath=/data/ssh/%C',
    ])
      assert.ok(options.includes(o), o);
    assert.ok(
      options.some((o) => /^ConnectTimeout=\d+$/.test(o)) &&
        options.some((o) => /^ServerAliveInterval=\d+$/.test(o)) &&
        options.some((o) => /^ServerAliveCountMax=\d+$/.test(o)),
    );
    assert.ok(args.includes('-a') && args.includes('-x') && args.includes('-T'));
    assert.deepEqual(args.slice(0, 2), ['-F', '/home/ann/.ssh/overseer_config']);
    assert.equal(args[args.indexOf('-p') + 1], '2222');
    assert.equal(args[args.indexOf('-l') + 1], 'ann');
    assert.deepEqual(args.slice(-2), ['--', 'lab-box']);
  });

  it('a registry entry cannot make a host that ssh would read as an option', () => {
    assert.equal(SshConnectionConfig.safeParse(entry({ host: '-oProxyCommand=touch /tmp/x' })).success, false);
  });

  it('quotes words for the remote shell so that they arrive unchanged', () => {
    for (const word of ["it's", '$(touch /tmp/pwned)', '`id`', 'a "b" \\c', 'semi; colon && amp | pipe', 'new\nline', '']) {
      const line = remoteScript('printf %s "$1"', [word]);
      const run = spawnSync('sh', ['-c', line], { encoding: 'utf8' });
      assert.equal(run.stdout, word, line);
    }
    assert.equal(shQuote("a'b"), `'a'\\''b'`);
  });
});

describe("what ssh's exit 255 means", () => {
  it('tells an unknown key, a changed key, a refused login and an unreachable host apart', () => {
    assert.equal(sshFailureReason(UNKNOWN), 'host_key_unknown');
    assert.equal(sshFailureReason(CHANGED), 'host_key_changed');
    assert.equal(sshFailureReason('ann@lab-box: Permission denied (publickey).'), 'unauthenticated');
    assert.equal(sshFailureReason('ssh: connect to host 127.0.0.1 port 2222: Connection refused'), 'down');
  });

  it("names a changed key's fingerprint and ssh's own line that removes the old one", () => {
    const facts = hostKeyFactsFrom(CHANGED, 'ssh -o StrictHostKeyChecking=accept-new -- lab-box true');
    assert.equal(facts.fingerprint, 'SHA256:3mV4kq1yqZ0xG7m0Y0w8bR1d2Q3rP9sT6uV5wX4yZ2A');
    assert.equal(facts.keyType, 'ED25519');
    assert.equal(facts.removeCommand, 'ssh-keygen -f "/home/u/.ssh/known_hosts" -R "[127.0.0.1]:2222"');
    const error = sshFailure('lab', 'lab-box', CHANGED, facts);
    assert.equal(error.code, 'connection_unavailable');
    assert.equal(error.info.data?.['remove_command'], facts.removeCommand);
    assert.match(String(error.info.data?.['hint']), /CHANGED.*machine-in-the-middle/);
  });

  it("says ssh's own line once, in the detail, and advises in words what to try for each way a host cannot be reached", () => {
    const cases: [string, RegExp][] = [
      ['ssh: connect to host lab-box port 22: No route to host', /does not answer: check that it is switched on.*port 22/],
      ['ssh: connect to host 127.0.0.1 port 2299: Connection refused', /nothing answers on port 2299 of lab-box: check that sshd runs/],
      ['ssh: Could not resolve hostname lab-bx: Name or service not known', /does not resolve: check its spelling/],
      ['kex_exchange_identification: Connection closed by remote host', /closed the connection before login.*journalctl/],
      ['something new ssh says', /check that lab-box is up, that sshd runs there/],
    ];
    for (const [line, advice] of cases) {
      const error = sshFailure('lab', 'lab-box', `${line}\n`);
      assert.equal(error.info.detail, `ssh could not reach lab-box: ${line}`);
      assert.equal(error.info.data?.['reason'], 'down');
      const hint = String(error.info.data?.['hint']);
      assert.match(hint, advice);
      assert.ok(!hint.includes(line), `the hint does not repeat ssh's line: ${hint}`);
    }
  });
});

describe('the remote platform', () => {
  it('refuses Windows plainly: its SSH session runs outside the interactive desktop', () => {
    for (const probe of [
      {
        code: 0,
        stdout: '\r\nMicrosoft Windows [Version 10.0.19045.3570]\r\n',
        stderr: "'uname' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n",
      },
      { code: 1, stdout: '', stderr: "uname : The term 'uname' is not recognized... Windows PowerShell" },
    ]) {
      const refusal = probeRefusal('lab', 'lab-box', probe);
      assert.ok(refusal instanceof OverseerError);
      assert.equal(refusal.info.data?.['reason'], 'unsupported_session');
      assert.match(refusal.info.detail, /outside the interactive desktop/);
    }
  });

  it('refuses macOS and silence, and takes Linux', () => {
    assert.equal(probeRefusal('lab', 'lab-box', { code: 0, stdout: 'Darwin\n', stderr: '' })?.info.data?.['reason'], 'unsupported_session');
    assert.equal(probeRefusal('lab', 'lab-box', { code: 127, stdout: '', stderr: 'sh: uname: not found' })?.info.data?.['reason'], 'unsupported_session');
    assert.equal(probeRefusal('lab', 'lab-box', { code: 0, stdout: 'Linux\n', stderr: '' }), undefined);
  });
});
