// For desktop tests, a second private desktop stands in for a remote one. Every connection's helper
// is the real helper, started against the desktop whose environment OVERSEER_TEST_REMOTE_ENV holds
// (JSON), and its "remote" shell is a local `sh` in that environment. serveWithTargets.ts hands the
// factory to `overseer serve` (its `stand-in` targets).
import { spawn } from 'node:child_process';
import { fail, type ConnectionConfig, type ConnectionTest } from '../../protocol/index.js';
import { spawnHelper } from '../core/helperLink/helperProcess.js';
import type { TargetFactory } from '../core/connections/makeTarget.js';
import type { ConnectionTarget, ExecOptions, ExecOutcome } from '../core/connections/target.js';

const remoteEnv = JSON.parse(process.env['OVERSEER_TEST_REMOTE_ENV'] ?? '{}') as Record<string, string>;

/** Runs a command with bounded output and a timeout, as a remote shell would. */
function run(command: string, options: ExecOptions): Promise<ExecOutcome> {
  const started = Date.now();
  const child = spawn('/bin/sh', ['-c', command], { env: remoteEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const kept = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), stdout_truncated: false, stderr_truncated: false };
  for (const stream of ['stdout', 'stderr'] as const)
    child[stream].on('data', (b: Buffer) => {
      const room = options.maxBytes - kept[stream].length;
      if (b.length > room) kept[`${stream}_truncated`] = true;
      if (room > 0) kept[stream] = Buffer.concat([kept[stream], b.subarray(0, room)]);
    });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({
        exit_code: timedOut ? null : code,
        stdout: kept.stdout.toString('utf8'),
        stderr: kept.stderr.toString('utf8'),
        stdout_truncated: kept.stdout_truncated,
        stderr_truncated: kept.stderr_truncated,
        duration_ms: Date.now() - started,
        ...(timedOut ? { timed_out: true } : {}),
      });
    }),
  );
}

/** Every connection, whatever its kind, as the stand-in desktop. */
export const standInTargets: TargetFactory = (config: ConnectionConfig): ConnectionTarget => {
  let closed = 0;
  return {
    name: config.name,
    kind: config.kind,
    where: config.kind === 'ssh' ? config.host : config.url,
    spawnHelper: () => {
      if (remoteEnv['DISPLAY'] === undefined)
        throw fail('connection_unavailable', 'no stand-in desktop', { connection: config.name, reason: 'unreachable', hint: 'set OVERSEER_TEST_REMOTE_ENV' });
      return spawnHelper({ ...remoteEnv });
    },
    exec: (command, options) => run(command, options),
    test: (): Promise<ConnectionTest> =>
      Promise.resolve({ name: config.name, reachable: true, authenticated: true, platform: 'linux', session_type: 'x11', capabilities: ['stand-in'] }),
    close: () => {
      closed++;
      process.stderr.write(`[stand-in] ${config.name} closed (${closed})\n`);
      return Promise.resolve();
    },
  };
};
