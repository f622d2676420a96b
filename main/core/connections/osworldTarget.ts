// The transport of an osworld_http connection (docs/connections.md#osworld): its helper runs here,
// as a local child whose backends talk HTTP to the VM's OSWorld server (OVERSEER_BACKEND=osworld);
// remote_exec is the server's POST /execute with `shell: true`; a test asks /platform and
// /screen_size. Nothing here falls back to this desktop, and nothing is retried: a command whose
// answer never came is reported as such, never sent again.

import { boundedRequest, HttpFailure, type HttpAnswer } from '../../../base/boundedHttp.js';
import { OSWORLD_TIMEOUT_MS, osworldDown, readExecute } from '../../../base/osworldApi.js';
import { connectionWhere, fail, type ConnectionTest, type OsworldConnectionConfig } from '../../../protocol/index.js';
import { spawnHelper, type HelperProcess } from '../helperLink/helperProcess.js';
import type { ConnectionTarget, ExecOptions, ExecOutcome } from './target.js';

/** Budget of one test call, and of every helper call when the connection names none. */
const DEFAULT_TIMEOUT_MS = OSWORLD_TIMEOUT_MS;
/** Most bytes of an /execute answer read: its JSON escapes the output, so more than twice the kept bytes. */
const MAX_EXEC_ANSWER = 64 * 1024 * 1024;

/** One HTTP request, never retried; transport failures are connection_unavailable naming the connection. */
async function request(
  config: OsworldConnectionConfig,
  method: 'GET' | 'POST',
  path: string,
  options: { json?: unknown; timeoutMs: number; maxBytes?: number; signal?: AbortSignal; onTimeout?: () => Error },
): Promise<HttpAnswer> {
  try {
    return await boundedRequest(new URL(config.url.replace(/\/+$/, '') + path), {
      method,
      json: options.json,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes ?? MAX_EXEC_ANSWER,
      signal: options.signal,
    });
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error;
    if (error.kind === 'cancelled') throw fail('timeout', error.message, { connection: config.name });
    if (error.kind === 'timeout' && options.onTimeout !== undefined) throw options.onTimeout();
    const { reason, detail, hint } = osworldDown(error, config.url, options.timeoutMs, config.timeout_ms ?? DEFAULT_TIMEOUT_MS);
    throw fail('connection_unavailable', `${config.name}: ${detail}`, { connection: config.name, reason, hint });
  }
}

/** At most `max` bytes of a text's UTF-8, cut on a character boundary. */
function bounded(text: string, max: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return { text, truncated: false };
  let end = max;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

/** The transport of one osworld_http connection. */
export function osworldTarget(
  config: OsworldConnectionConfig,
  options: { log: (line: string) => void; spawn?: (env: Record<string, string | undefined>) => HelperProcess },
): ConnectionTarget {
  const spawn = options.spawn ?? spawnHelper;
  const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  return {
    name: config.name,
    kind: 'osworld_http',
    where: connectionWhere(config),

    spawnHelper(env): HelperProcess {
      // A local helper whose backends are the VM's: its DISPLAY and buses are never used for the VM's calls.
      return spawn({
        ...env,
        OVERSEER_BACKEND: 'osworld',
        OVERSEER_OSWORLD_URL: config.url,
        OVERSEER_OSWORLD_TIMEOUT_MS: String(timeoutMs),
        OVERSEER_CONNECTION: config.name,
      });
    },

    async exec(command: string, exec: ExecOptions): Promise<ExecOutcome> {
      const started = performance.now();
      const timedOut = new Error('timed out');
      let answer: HttpAnswer;
      try {
        answer = await request(config, 'POST', '/execute', {
          // The server's own timeout is a little longer, so the VM ends the command if this side gave up.
          json: { command, shell: true, timeout: Math.ceil(exec.timeoutMs / 1000) + 5 },
          timeoutMs: exec.timeoutMs,
          onTimeout: () => timedOut,
          ...(exec.signal !== undefined ? { signal: exec.signal } : {}),
        });
      } catch (error) {
        if (error !== timedOut) throw error;
        options.log(`[connections] ${config.name}: remote_exec ran past ${exec.timeoutMs} ms; the HTTP call was ended`);
        return {
          exit_code: null,
          stdout: '',
          stderr: '',
          stdout_truncated: false,
          stderr_truncated: false,
          duration_ms: Math.round(performance.now() - started),
          timed_out: true,
        };
      }
      const duration_ms = Math.round(performance.now() - started);
      const read = readExecute(answer);
      if (!read.ran || read.returncode === undefined) {
        const message = read.message || answer.body.toString('utf8').slice(0, 300);
        // The server's subprocess timeout (an exception, answered 500) is a timeout of the command, as here.
        if (answer.status === 500 && /timed out/i.test(message))
          return { exit_code: null, stdout: '', stderr: '', stdout_truncated: false, stderr_truncated: false, duration_ms, timed_out: true };
        throw fail('connection_unavailable', `${config.name}: the OSWorld server did not run the command (HTTP ${answer.status}): ${message}`, {
          connection: config.name,
          reason: 'server_error',
          hint: 'the server answered but could not run the command; check its log in the VM',
        });
      }
      const stdout = bounded(read.output, exec.maxBytes);
      const stderr = bounded(read.error, exec.maxBytes);
      return {
        exit_code: read.returncode,
        stdout: stdout.text,
        stderr: stderr.text,
        stdout_truncated: stdout.truncated,
        stderr_truncated: stderr.truncated,
        duration_ms,
      };
    },

    async test(signal?: AbortSignal): Promise<ConnectionTest> {
      const opts = { timeoutMs: Math.min(timeoutMs, DEFAULT_TIMEOUT_MS), maxBytes: 64 * 1024, ...(signal !== undefined ? { signal } : {}) };
      const started = performance.now();
      const platform = await request(config, 'GET', '/platform', opts);
      const round_trip_ms = Math.round(performance.now() - started);
      const size = await request(config, 'POST', '/screen_size', opts);
      let screen: unknown;
      try {
        screen = JSON.parse(size.body.toString('utf8'));
      } catch {
        screen = undefined;
      }
      const { width, height } = (typeof screen === 'object' && screen !== null ? screen : {}) as { width?: unknown; height?: unknown };
      if (platform.status !== 200 || size.status !== 200 || typeof width !== 'number' || typeof height !== 'number')
        throw fail(
          'connection_unavailable',
          `${config.name}: ${config.url} does not answer as an OSWorld server (/platform ${platform.status}, /screen_size ${size.status})`,
          {
            connection: config.name,
            reason: 'bad_answer',
            hint: 'point the connection at the VM server’s base URL (OSWorld listens on port 5000)',
          },
        );
      const name = platform.body.toString('utf8').trim().slice(0, 40);
      return {
        name: config.name,
        reachable: true,
        // OSWorld's server has no authentication: reaching it is all there is.
        authenticated: true,
        platform: name === 'Linux' ? 'linux' : name === 'Windows' ? 'win32' : name === 'Darwin' ? 'darwin' : name.toLowerCase(),
        // Its /screen_size reads the X display on Linux: an answer there means an X11 session.
        session_type: name === 'Linux' ? 'x11' : name === 'Windows' ? 'windows' : 'unknown',
        backend: 'osworld',
        capabilities: ['screen', 'accessibility_read_only', 'remote_exec'],
        round_trip_ms,
      };
    },

    close: () => Promise.resolve(),
  };
}
