// An ssh connection (docs/connections.md#ssh): the same helper on the remote machine, its stdio
// carried by the system's OpenSSH client over one shared, authenticated master. Every failure to
// get there is connection_unavailable with ssh's own words; nothing falls back to another desktop.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OverseerError, connectionWhere, fail, logSafe, type ConnectionTest, type SshConnectionConfig } from '../../../protocol/index.js';
import { spawnHelper as spawnProcess, type HelperProcess } from '../helperLink/helperProcess.js';
import { CHECK_SCRIPT, DEFAULT_REMOTE_HELPER, INSTALL_SCRIPT, MIN_REMOTE_NODE, RUN_SCRIPT, loadRemoteHelper, type RemoteHelper } from './remoteHelper.js';
import { SSH, controlArgs, remoteScript, shQuote, sshArgs } from './sshArgs.js';
import { hostKeyFactsFrom, lastLine, sshFailure, sshFailureReason } from './sshFailure.js';
import { PROBE_COMMAND, probeRefusal, windowsRefusal } from './remotePlatform.js';
import { runSsh } from './sshRun.js';
import type { ConnectionTarget, ExecOptions, ExecOutcome } from './target.js';

/** Options of sshTarget. */
export interface SshTargetOptions {
  /** The supervisor's data dir: the master's socket lives in a 0700 folder under it. */
  dataDir: string;
  log: (line: string) => void;
  /** The remote helper bundle (default: dist/helper/remote.mjs). */
  bundle?: string;
}

/** Longest a check, an install or a probe may take. */
const STEP_TIMEOUT_MS = 60_000;
/** Output kept of a check or a probe. */
const STEP_OUTPUT = 16 * 1024;
/** Longest the test's helper may take to say hello. */
const HELLO_TIMEOUT_MS = 20_000;
/** Helper variables passed on to the remote helper (the rest of the supervisor's environment stays here). */
const FORWARDED_VARS = ['OVERSEER_ATSPI_NO_BULK', 'OVERSEER_FAST_CALLS', 'OVERSEER_HELPER_SELF_CHECK', 'OVERSEER_PREFETCH'];
/** Methods that change the remote desktop: broken mid-call, their outcome is unknown. */
const MUTATING = new Set(['element_act', 'screen_input']);
/** Longest the ssh run that ends a remote_exec's process group may take (TERM, a second, KILL). */
const KILL_TIMEOUT_MS = 8000;
/** Grace after remote_exec's deadline for the remote `timeout` to end the command before ssh itself is ended. */
const EXEC_GRACE_MS = 5000;
/** Longest a unix socket path may be (sun_path, less room for ssh's temporary suffix). */
const MAX_SOCKET_PATH = 100;
/** Random bytes of a master socket's name (hex: twice as many characters). */
const CONTROL_NAME_BYTES = 12;

/** The ssh transport of one connection. */
export function sshTarget(config: SshConnectionConfig, options: SshTargetOptions): ConnectionTarget {
  const name = config.name;
  const where = connectionWhere(config);
  const node = config.node ?? 'node';
  // One master per connection entry as it is now, never shared: ssh's %C hashes only host, port and
  // user, so two entries for one login (one key with a forced command, one without) would ride each
  // other's login. A new target (a re-pointed or re-added entry, or after an emergency stop) gets its own.
  const controlPath = `${controlDir(options.dataDir)}/${randomBytes(CONTROL_NAME_BYTES).toString('hex')}`;
  const bundleFile = options.bundle ?? DEFAULT_REMOTE_HELPER;
  let bundle: RemoteHelper | undefined;
  const helperBundle = (): RemoteHelper => (bundle ??= loadRemoteHelper(bundleFile, name));
  const args = (): string[] => sshArgs(config, controlPath);
  const acceptCommand = ['ssh', '-o', 'StrictHostKeyChecking=accept-new', ...sshArgs(config, controlPath).filter(keepForPerson), 'true']
    .map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : shQuote(w)))
    .join(' ');

  /** ssh failed (exit 255): the typed refusal, with the fingerprint ssh was shown when it refused a host key. */
  const failed = async (stderr: string): Promise<OverseerError> => {
    const reason = sshFailureReason(stderr);
    if (reason !== 'host_key_unknown' && reason !== 'host_key_changed') return sshFailure(name, where, stderr);
    // ssh names a changed key's fingerprint, never an unknown one's: ask it again, verbosely, to learn which key it was shown.
    const diag = await runSsh([...sshArgs(config, controlPath, { verbose: true }), 'true'], { timeoutMs: STEP_TIMEOUT_MS, maxBytes: STEP_OUTPUT }).catch(
      () => undefined,
    );
    const seen = diag === undefined ? '' : diag.stderr.toString('utf8');
    const key = /Server host key: (\S+) (SHA256:\S+)/.exec(seen);
    const facts = hostKeyFactsFrom(stderr, acceptCommand);
    if (key?.[1] !== undefined && key[2] !== undefined) {
      facts.fingerprint ??= key[2];
      facts.keyType ??= key[1];
    }
    options.log(`[ssh ${name}] host key refused (${reason}): ${logSafe(facts.fingerprint ?? 'fingerprint unknown')}`);
    return sshFailure(name, where, stderr, facts);
  };

  /** Runs one step on the remote (a check, an install): its stdout, or the typed failure. */
  const step = async (command: string, input?: Buffer, signal?: AbortSignal): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const run = await runSsh([...args(), command], {
      timeoutMs: STEP_TIMEOUT_MS,
      maxBytes: STEP_OUTPUT,
      ...(signal !== undefined ? { signal } : {}),
      ...(input !== undefined ? { input } : {}),
    });
    const stderr = run.stderr.toString('utf8');
    if (run.killed === 'aborted') throw fail('withdrawn', `the call was cancelled while ssh ran on ${where}`, { reason: 'call_cancelled' });
    if (run.killed === 'timeout')
      throw fail('connection_unavailable', `${where} did not answer within ${STEP_TIMEOUT_MS / 1000} s`, {
        connection: name,
        reason: 'down',
        hint: 'check that the host is up and reachable',
      });
    if (run.code === 255) throw await failed(stderr);
    return { code: run.code, stdout: run.stdout.toString('utf8'), stderr };
  };

  const prepare = async (signal?: AbortSignal): Promise<void> => {
    const helper = helperBundle();
    const check = await step(remoteScript(CHECK_SCRIPT, [node, helper.hash]), undefined, signal);
    const answer = check.stdout.trim();
    if (answer === 'no-node' || check.code !== 0) {
      throw fail('connection_unavailable', `no Node.js on ${where} (${node}): ${lastLine(check.stderr) || answer}`, {
        connection: name,
        reason: 'helper_missing',
        hint: `install Node.js ${MIN_REMOTE_NODE} or later on the remote, or set node on the connection to its absolute path`,
      });
    }
    const [version = '', platform = '', installed = ''] = answer.split(' ');
    if (platform === 'win32') throw windowsRefusal(name, where);
    const major = Number(version.split('.')[0]);
    if (!(major >= MIN_REMOTE_NODE))
      throw fail('connection_unavailable', `Node.js ${version} on ${where} is older than ${MIN_REMOTE_NODE}`, {
        connection: name,
        reason: 'helper_missing',
        hint: `install Node.js ${MIN_REMOTE_NODE} or later on the remote, or set node on the connection to its absolute path`,
      });
    if (installed === helper.sha256) return;
    options.log(
      `[ssh ${name}] installing the helper ${helper.hash} (${helper.bytes.length} bytes${installed === 'missing' ? '' : ', replacing a copy that did not match'})`,
    );
    const install = await step(remoteScript(INSTALL_SCRIPT, [helper.hash]), helper.bytes, signal);
    const again = await step(remoteScript(CHECK_SCRIPT, [node, helper.hash]), undefined, signal);
    if (install.code !== 0 || again.stdout.trim().split(' ')[2] !== helper.sha256)
      throw fail('connection_unavailable', `installing the helper on ${where} failed: ${lastLine(install.stderr) || `exit ${install.code}`}`, {
        connection: name,
        reason: 'helper_missing',
        hint: 'the remote user needs a writable ~/.cache (or XDG_CACHE_HOME) with room for the helper',
      });
  };

  const spawnHelper = (env: Record<string, string | undefined>): HelperProcess => {
    const helper = helperBundle();
    const remoteEnv = ['OVERSEER_FIND_SESSION=1'];
    if (config.display !== undefined) remoteEnv.push(`DISPLAY=${config.display}`);
    if (config.bus !== undefined) remoteEnv.push(`DBUS_SESSION_BUS_ADDRESS=${config.bus}`);
    for (const v of FORWARDED_VARS) if (env[v] !== undefined) remoteEnv.push(`${v}=${env[v]}`);
    const command = remoteScript(RUN_SCRIPT, [helper.hash, node, ...remoteEnv]);
    const remote = spawnProcess(process.env, { file: SSH, args: [...args(), command], cwd: tmpdir() });
    const call = remote.call.bind(remote);
    remote.call = async (method, params, callOptions) => {
      try {
        return await call(method, params, callOptions);
      } catch (error) {
        throw await helperFailure(error, method);
      }
    };
    /** What a failed call means over ssh: ssh's failure (exit 255), a missing helper or node, or the helper's own answer. */
    const helperFailure = async (error: unknown, method: string): Promise<unknown> => {
      if (!(error instanceof OverseerError)) return error;
      if (error.code === 'connection_unavailable' && error.info.data?.['connection'] === undefined)
        return fail('connection_unavailable', error.info.detail, { ...error.info.data, connection: name });
      if (error.code !== 'helper_unavailable') return error;
      const code = await Promise.race([remote.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 3000).unref())]);
      const stderr = remote.stderr();
      const unknown = MUTATING.has(method) ? { outcome: 'unknown' } : {};
      if (code === 255) {
        const typed = await failed(stderr);
        return fail('connection_unavailable', typed.info.detail, { ...typed.info.data, ...unknown });
      }
      if (code === 127 || /Cannot find module|ERR_MODULE_NOT_FOUND/.test(stderr))
        return fail('connection_unavailable', `the helper could not start on ${where}: ${lastLine(stderr)}`, {
          connection: name,
          reason: 'helper_missing',
          hint: `the remote needs Node.js ${MIN_REMOTE_NODE} or later (or node set on the connection); the helper is installed again on the next start`,
          ...unknown,
        });
      return error;
    };
    return remote;
  };

  /** The commands running now, each ended (on the remote too) by its abort. */
  const running = new Set<{ end: (why: string) => Promise<void> }>();

  /**
   * Ends a remote_exec's process group on the remote (TERM, then KILL a second later), through the
   * same master: true when it was ended or had ended already. Without setsid there, the command has
   * no group of its own: its process and children are ended, and false says grandchildren may live.
   */
  const killGroup = async (pgid: number): Promise<boolean> => {
    const script = [
      'if kill -TERM "-$1" 2>/dev/null; then sleep 1; kill -KILL "-$1" 2>/dev/null; exit 0; fi',
      'kill -0 "$1" 2>/dev/null || exit 0',
      'pkill -TERM -P "$1" 2>/dev/null; kill -TERM "$1" 2>/dev/null; exit 3',
    ].join('\n');
    const run = await runSsh([...args(), remoteScript(script, [String(pgid)])], { timeoutMs: KILL_TIMEOUT_MS, maxBytes: 4096 }).catch(() => undefined);
    return run?.code === 0;
  };

  const exec = async (command: string, execOptions: ExecOptions): Promise<ExecOutcome> => {
    // The exit status travels after a marker only this call knows: ssh's own 255 and a command's 255 are told apart.
    const marker = `overseer-exit-${randomBytes(12).toString('hex')}`;
    const seconds = String(Math.max(1, Math.ceil(execOptions.timeoutMs / 1000)));
    // The command runs in a process group of its own (setsid; GNU timeout keeps it), whose id is
    // sent first, so a brake or a departed agent can end all of it there: closing ssh alone would
    // leave it running (no terminal, no hangup).
    const script = [
      'S=; if command -v setsid >/dev/null 2>&1; then S=setsid; fi',
      'if command -v timeout >/dev/null 2>&1; then $S timeout -k 2 "$2" sh -c "$1" </dev/null & else $S sh -c "$1" </dev/null & fi',
      'p=$!',
      `printf '%s-pg %s\\n' "$3" "$p" >&2`,
      'wait "$p"; s=$?',
      `printf '\\n%s %s\\n' "$3" "$s" >&2`,
      'exit $s',
    ].join('\n');
    const pgLine = new RegExp(`${marker}-pg (\\d+)\\n`);
    let head = '';
    let pgid: number | undefined;
    const local = new AbortController();
    /** Set the moment it is asked to end: whether its processes there were ended. */
    let stopping: Promise<NonNullable<ExecOutcome['stopped']>> | undefined;
    const end = (why: string): Promise<void> => {
      stopping ??= (async () => {
        options.log(`[ssh ${name}] remote_exec ended (${why})`);
        const ended = pgid !== undefined && (await killGroup(pgid));
        local.abort();
        return ended ? 'ended' : 'unknown';
      })();
      return stopping.then(() => undefined);
    };
    const handle = { end };
    running.add(handle);
    const onAbort = (): void => void end(execOptions.signal?.reason instanceof Error ? execOptions.signal.reason.message : 'its call was ended');
    if (execOptions.signal?.aborted === true) onAbort();
    else execOptions.signal?.addEventListener('abort', onAbort, { once: true });
    let run;
    try {
      run = await runSsh([...args(), remoteScript(script, [command, seconds, marker])], {
        timeoutMs: execOptions.timeoutMs + EXEC_GRACE_MS,
        maxBytes: execOptions.maxBytes,
        signal: local.signal,
        onStderr: (chunk) => {
          if (pgid !== undefined || head.length > 4096) return;
          head += chunk.toString('latin1');
          const m = pgLine.exec(head);
          if (m !== null) pgid = Number(m[1]);
        },
      });
    } finally {
      running.delete(handle);
      execOptions.signal?.removeEventListener('abort', onAbort);
    }
    // Its shell may answer before the kill's own ssh does: how it ended is the kill's answer.
    const stopped = stopping === undefined ? undefined : await stopping;
    // The process group line is Overseer's, not the command's: it is taken out of what the agent reads.
    const pgText = pgid === undefined ? '' : `${marker}-pg ${pgid}\n`;
    const stderrHead = pgText === '' ? run.stderr : removeOnce(run.stderr, Buffer.from(pgText));
    const tail = run.stderrTail.toString('utf8');
    const ended = new RegExp(`\\n${marker} (\\d+)\\n$`).exec(tail);
    const durationMs = Math.round(run.durationMs);
    if (ended === null && run.killed === undefined && stopped === undefined) {
      // No marker: the command's shell never finished. ssh failed (255), or the channel went away under a
      // multiplexed client (which exits with whatever it saw last): unless the master still stands, the connection broke.
      const stderr = run.stderr.toString('utf8');
      if (run.code === 255 || !(await masterAlive())) {
        options.log(`[ssh ${name}] remote_exec ended without its exit status (ssh exit ${run.code}): ${logSafe(lastLine(stderr))}`);
        const typed = run.code === 255 ? await failed(stderr) : sshFailure(name, where, stderr || 'the ssh channel closed');
        const data = typed.info.data ?? {};
        throw fail('connection_unavailable', typed.info.detail, { ...data, ...(data['reason'] === 'down' ? { outcome: 'unknown' } : {}) });
      }
    }
    const markerBytes = (ended === null ? 0 : Buffer.byteLength(ended[0])) + Buffer.byteLength(pgText);
    const stderrBytes = run.stderrBytes - markerBytes;
    const status = ended === null ? run.code : Number(ended[1]);
    // GNU timeout answers 124 (TERM) or 137 (KILL after -k) when it ended the command.
    const timedOut = stopped === undefined && (run.killed === 'timeout' || (durationMs >= execOptions.timeoutMs && (status === 124 || status === 137)));
    return {
      // Ended here (its deadline, or the caller gave up on it): it has no exit status to tell.
      exit_code: timedOut || run.killed !== undefined || stopped !== undefined ? null : status,
      stdout: run.stdout.toString('utf8'),
      stderr: stderrHead.subarray(0, Math.min(stderrBytes, execOptions.maxBytes)).toString('utf8'),
      stdout_truncated: run.stdoutBytes > execOptions.maxBytes,
      stderr_truncated: stderrBytes > execOptions.maxBytes,
      duration_ms: durationMs,
      ...(timedOut ? { timed_out: true } : {}),
      ...(stopped !== undefined ? { stopped } : {}),
    };
  };

  const endCommands = async (why: string): Promise<void> => {
    await Promise.all([...running].map((r) => r.end(why)));
  };

  const test = async (signal?: AbortSignal): Promise<ConnectionTest> => {
    const probe = await step(PROBE_COMMAND, undefined, signal);
    const refusal = probeRefusal(name, where, probe);
    if (refusal !== undefined) throw refusal;
    await prepare(signal);
    const helper = spawnHelper(process.env);
    try {
      const hello = await helper.call(
        'hello',
        { client: 'overseer connection test' },
        { timeoutMs: HELLO_TIMEOUT_MS, ...(signal !== undefined ? { signal } : {}) },
      );
      if (hello.platform === 'win32') throw windowsRefusal(name, where);
      // The round trip of a call once the helper runs: ssh's channel plus the helper's turn.
      const t0 = performance.now();
      await helper.call('hello', { client: 'overseer connection test' }, { timeoutMs: HELLO_TIMEOUT_MS });
      const roundTrip = performance.now() - t0;
      return {
        name,
        reachable: true,
        authenticated: true,
        platform: hello.platform ?? 'linux',
        session_type: hello.session_type ?? 'unknown',
        helper_version: hello.version,
        backend: hello.backend,
        capabilities: hello.capabilities,
        round_trip_ms: Math.round(roundTrip * 10) / 10,
      };
    } finally {
      await closeHelper(helper);
    }
  };

  /** Whether the shared master still holds its connection. */
  const masterAlive = async (): Promise<boolean> => {
    const run = await runSsh(controlArgs(config, controlPath, 'check'), { timeoutMs: 10_000, maxBytes: 4096 }).catch(() => undefined);
    return run?.code === 0;
  };

  const close = async (): Promise<void> => {
    // No master (never connected, or already gone) is not a failure: there is nothing to end.
    await runSsh(controlArgs(config, controlPath, 'exit'), { timeoutMs: 10_000, maxBytes: 4096 }).catch(() => undefined);
  };

  return { name, kind: 'ssh', where, prepare, spawnHelper, exec, endCommands, test, close };
}

/** The options a person keeps when they run ssh by hand to accept a host key: their config, port, user (not Overseer's own). */
function keepForPerson(word: string, index: number, all: readonly string[]): boolean {
  const before = all[index - 1];
  if (word === '-F' || word === '-p' || word === '-l' || word === '--') return true;
  if (before === '-F' || before === '-p' || before === '-l' || before === '--') return true;
  return false;
}

/** `bytes` without the first occurrence of `part` (the same bytes when it is not there). */
function removeOnce(bytes: Buffer, part: Buffer): Buffer {
  const at = bytes.indexOf(part);
  return at < 0 ? bytes : Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + part.length)]);
}

/** The folder of the master's socket: 0700, owned by this user, short enough for a socket path. */
function controlDir(dataDir: string): string {
  let dir = join(dataDir, 'ssh');
  // A socket's name is CONTROL_NAME_BYTES in hex; a master adds a temporary suffix while it starts.
  if (dir.length + 1 + CONTROL_NAME_BYTES * 2 + 20 > MAX_SOCKET_PATH) {
    const uid = process.getuid?.() ?? 0;
    dir = join('/tmp', `overseer-ssh-${uid}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid))
    throw fail('internal', `the ssh control folder ${dir} is not a folder of this user's`, { reason: 'control_dir' });
  chmodSync(dir, 0o700);
  return dir;
}

/** Ends a test's helper: its stdin closes, and it exits (bounded: a remote that stopped answering is left to ssh's keepalive). */
async function closeHelper(helper: HelperProcess): Promise<void> {
  await Promise.race([helper.close(), new Promise((r) => setTimeout(r, 5000).unref())]);
  if (helper.child.exitCode === null) helper.child.kill('SIGKILL');
}
