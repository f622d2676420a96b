// A private OpenSSH server for tests (docs/connections.md#ssh): Debian's /usr/sbin/sshd on
// 127.0.0.1 and a free port, with its own host key, one authorized key made here, its own
// sshd_config (-f) and a client ssh_config (-F) that names all of them. Nothing of the machine's
// own sshd, ~/.ssh or ssh-agent is read or changed; its processes are stopped by pid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { listPids, readStat } from '../../desktop/procs.js';

/** The Host alias the client config names. */
export const SSHD_ALIAS = 'overseer-remote';
/** A second alias of the same user@127.0.0.1:port whose key the server restricts to a forced command. */
export const SSHD_FORCED_ALIAS = 'overseer-remote-forced';
/** What the forced command of SSHD_FORCED_ALIAS's key prints, whatever command the client asked for. */
export const SSHD_FORCED_OUTPUT = 'forced-command-only';

/** A running private sshd. */
export interface PrivateSshd {
  port: number;
  dir: string;
  /** The client ssh_config (pass it with -F, or as a connection's ssh_config). */
  clientConfig: string;
  /** The Host alias of clientConfig. */
  alias: string;
  /** The alias of the same login whose key runs only a forced command (SSHD_FORCED_OUTPUT). */
  forcedAlias: string;
  user: string;
  /** The known_hosts file clientConfig uses (the host key is in it). */
  knownHosts: string;
  /** The server's host key fingerprint (SHA256:…). */
  fingerprint: string;
  /** Where remote sessions cache the helper (XDG_CACHE_HOME of every session). */
  remoteCache: string;
  /** known_hosts without this server: ssh meets an unknown key. */
  forgetHostKey(): void;
  /** known_hosts names another key for this server: ssh meets a changed key. */
  changeHostKey(): void;
  /** known_hosts names the server's real key again. */
  trustHostKey(): void;
  /** Ends the server and every session it serves at once (SIGKILL), as a machine that went away. */
  kill(): void;
  /** sshd's own log. */
  log(): string;
  stop(): Promise<void>;
}

/** Starts a private sshd; `sessionEnv` is set in every session it serves (SetEnv). */
export async function startPrivateSshd(options: { sessionEnv?: Record<string, string> } = {}): Promise<PrivateSshd> {
  const dir = mkdtempSync('/tmp/overseer-sshd-');
  const keygen = (file: string): void => {
    const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'overseer-test', '-f', file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
  };
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'other_host_key'));
  keygen(join(dir, 'client_key'));
  keygen(join(dir, 'forced_key'));
  writeFileSync(
    join(dir, 'authorized_keys'),
    `${readFileSync(join(dir, 'client_key.pub'), 'utf8')}command="echo ${SSHD_FORCED_OUTPUT}",restrict ${readFileSync(join(dir, 'forced_key.pub'), 'utf8')}`,
    { mode: 0o600 },
  );
  const remoteCache = join(dir, 'remote-cache');
  mkdirSync(remoteCache, { mode: 0o700 });
  // As root, sshd needs its privilege-separation folder (the package's service makes it at boot; no sshd runs here).
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
  const user = userInfo().username;
  const env = { XDG_CACHE_HOME: remoteCache, ...options.sessionEnv };
  const setEnv = Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

  let child: ChildProcess | undefined;
  let port = 0;
  let log = '';
  for (let attempt = 0; attempt < 5 && child === undefined; attempt++) {
    port = await freePort();
    const sshdConfig = join(dir, 'sshd_config');
    writeFileSync(
      sshdConfig,
      [
        'ListenAddress 127.0.0.1',
        `Port ${port}`,
        `HostKey ${join(dir, 'host_key')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        `AllowUsers ${user}`,
        'StrictModes no',
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        'AllowAgentForwarding no',
        'X11Forwarding no',
        'PrintMotd no',
        'MaxSessions 64',
        `SetEnv ${setEnv}`,
        '',
      ].join('\n'),
    );
    const started = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', sshdConfig], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.stderr?.setEncoding('utf8');
    started.stderr?.on('data', (text: string) => {
      log += text;
      if (log.length > 256 * 1024) log = log.slice(-128 * 1024);
    });
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const check = (): void => {
        if (log.includes(`Server listening on 127.0.0.1 port ${port}`)) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      started.stderr?.on('data', check);
      started.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) child = started;
    else started.kill('SIGKILL');
  }
  if (child === undefined) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`the private sshd did not start: ${log.slice(-2000)}`);
  }
  const sshd = child;

  const knownHosts = join(dir, 'known_hosts');
  const entry = (keyFile: string): string => `[127.0.0.1]:${port} ${readFileSync(keyFile, 'utf8').split(' ').slice(0, 2).join(' ')}\n`;
  const trustHostKey = (): void => writeFileSync(knownHosts, entry(join(dir, 'host_key.pub')));
  trustHostKey();
  const clientConfig = join(dir, 'ssh_config');
  /** One Host block of the client config: this server, logging in with `key`. */
  const hostBlock = (alias: string, key: string): string[] => [
    `Host ${alias}`,
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${user}`,
    `  IdentityFile ${join(dir, key)}`,
    '  IdentitiesOnly yes',
    '  IdentityAgent none',
    `  UserKnownHostsFile ${knownHosts}`,
    '  GlobalKnownHostsFile /dev/null',
    '  CheckHostIP no',
    '',
  ];
  writeFileSync(clientConfig, [...hostBlock(SSHD_ALIAS, 'client_key'), ...hostBlock(SSHD_FORCED_ALIAS, 'forced_key')].join('\n'));
  const fp = spawnSync('ssh-keygen', ['-l', '-f', join(dir, 'host_key.pub')], { encoding: 'utf8' });
  const fingerprint = /(SHA256:\S+)/.exec(fp.stdout)?.[1] ?? '';

  const sshdStart = readStat(sshd.pid as number)?.startTime;
  /** sshd and everything it started (the per-connection servers, the sessions, their helpers). */
  const tree = (): number[] => {
    const root = sshd.pid as number;
    if (sshdStart === undefined || readStat(root)?.startTime !== sshdStart) return [];
    const stats = listPids()
      .map((pid) => readStat(pid))
      .filter((s) => s !== null);
    const found = new Set([root]);
    for (let grew = true; grew;) {
      grew = false;
      for (const s of stats)
        if (!found.has(s.pid) && found.has(s.ppid)) {
          found.add(s.pid);
          grew = true;
        }
    }
    return [...found];
  };
  const killTree = (): void => {
    // The servers first (the listener, then each connection's sshd), so the channel breaks before any session process
    // could say a last word through it; then the sessions, which no one would end otherwise.
    for (const pid of tree()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };

  return {
    port,
    dir,
    clientConfig,
    alias: SSHD_ALIAS,
    forcedAlias: SSHD_FORCED_ALIAS,
    user,
    knownHosts,
    fingerprint,
    remoteCache,
    forgetHostKey: () => writeFileSync(knownHosts, ''),
    changeHostKey: () => writeFileSync(knownHosts, entry(join(dir, 'other_host_key.pub'))),
    trustHostKey,
    kill: killTree,
    log: () => log,
    async stop() {
      const exited = new Promise((resolve) => (sshd.exitCode !== null || sshd.signalCode !== null ? resolve(undefined) : sshd.once('exit', resolve)));
      killTree();
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A port free on 127.0.0.1 a moment ago (sshd binds it next; a lost race is retried). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
