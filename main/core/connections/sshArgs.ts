// How Overseer runs the system's ssh (docs/connections.md#ssh): the person's own configuration and
// known_hosts, never a prompt (BatchMode), never an unknown host (StrictHostKeyChecking=yes), no
// forwarding of agents, X or ports, and one shared authenticated master per connection (a private
// ControlPath) so tests, remote_exec and the helper do not log in again each time.
import type { SshConnectionConfig } from '../../../protocol/index.js';

/** How long ssh waits for the TCP connection and the server's greeting. */
export const CONNECT_TIMEOUT_S = 10;
/** Keepalives: a remote that stops answering is found dead after ServerAliveInterval × CountMax. */
export const SERVER_ALIVE_INTERVAL_S = 5;
export const SERVER_ALIVE_COUNT_MAX = 3;
/** How long the shared master stays after its last client. */
export const CONTROL_PERSIST_S = 120;

/** The ssh executable (the system's OpenSSH client on PATH). */
export const SSH = 'ssh';

/**
 * ssh's options for `config`, up to and including the host (after `--`, so a host can never be
 * read as an option); the remote command follows. `controlPath` is the master's socket (with ssh's
 * %-tokens), in a folder only this user can enter. `verbose` runs alone (no master) and logs at DEBUG1.
 */
export function sshArgs(config: SshConnectionConfig, controlPath: string, options: { verbose?: boolean } = {}): string[] {
  const args: string[] = [];
  if (config.ssh_config !== undefined) args.push('-F', config.ssh_config);
  args.push(
    '-T',
    // The helper's frames are bytes, never escapes; and whatever the person's config says, ssh runs our command and nothing locally.
    '-e',
    'none',
    '-o',
    'RemoteCommand=none',
    '-o',
    'PermitLocalCommand=no',
    // No agent forwarding, no X11, no port forwardings, whatever the person's ssh_config says.
    '-a',
    '-x',
    '-o',
    'ForwardAgent=no',
    '-o',
    'ForwardX11=no',
    '-o',
    'ClearAllForwardings=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'PasswordAuthentication=no',
    '-o',
    'KbdInteractiveAuthentication=no',
    '-o',
    `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
    '-o',
    `ServerAliveInterval=${SERVER_ALIVE_INTERVAL_S}`,
    '-o',
    `ServerAliveCountMax=${SERVER_ALIVE_COUNT_MAX}`,
    '-o',
    `ControlMaster=${options.verbose === true ? 'no' : 'auto'}`,
    '-o',
    `ControlPath=${options.verbose === true ? 'none' : controlPath}`,
    '-o',
    `ControlPersist=${CONTROL_PERSIST_S}`,
    // ssh's own lines go to stderr, read when it fails; verbose (a refused host key's diagnosis) names the key it was shown.
    '-o',
    `LogLevel=${options.verbose === true ? 'DEBUG1' : 'ERROR'}`,
  );
  if (config.port !== undefined) args.push('-p', String(config.port));
  if (config.user !== undefined) args.push('-l', config.user);
  args.push('--', config.host);
  return args;
}

/** ssh's options to act on the master (`-O check`, `-O exit`): the same config and socket. */
export function controlArgs(config: SshConnectionConfig, controlPath: string, op: 'check' | 'exit'): string[] {
  const args: string[] = [];
  if (config.ssh_config !== undefined) args.push('-F', config.ssh_config);
  args.push('-o', `ControlPath=${controlPath}`, '-O', op);
  if (config.port !== undefined) args.push('-p', String(config.port));
  if (config.user !== undefined) args.push('-l', config.user);
  args.push('--', config.host);
  return args;
}

/** A word for a POSIX shell: single-quoted, its own single quotes closed and escaped. */
export function shQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The remote command line for a POSIX script: ssh hands its command to the remote user's login
 * shell as one string, so the script runs under `sh -c` whatever that shell is, with `args` as $1…
 */
export function remoteScript(script: string, args: readonly string[] = []): string {
  return ['sh', '-c', shQuote(script), 'overseer', ...args.map(shQuote)].join(' ');
}
