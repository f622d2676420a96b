// What ssh's exit 255 means (docs/connections.md#what-an-ssh-connection-refuses): ssh itself failed (not the
// command it ran), and its own last lines say why. Each cause becomes connection_unavailable with a
// reason the person can act on and the hint that fixes it; the helper never answers for ssh.
import { fail, type OverseerError } from '../../../protocol/index.js';

/** Why ssh failed, as data.reason names it. */
export type SshFailureReason = 'host_key_unknown' | 'host_key_changed' | 'unauthenticated' | 'down';

/** What a host-key refusal tells the person: the fingerprint ssh was shown, and the commands that accept it. */
export interface HostKeyFacts {
  fingerprint?: string;
  keyType?: string;
  /** The known_hosts entry ssh checked against ("[127.0.0.1]:2222"). */
  knownHostsName?: string;
  /** The person's known_hosts file ssh used. */
  knownHostsFile?: string;
  /** The command (ssh's own `ssh-keygen -R` line when it printed one) that removes a changed key. */
  removeCommand?: string;
  /** The command that connects once and records the key. */
  acceptCommand: string;
}

/** The cause of a failed ssh, from its stderr. */
export function sshFailureReason(stderr: string): SshFailureReason {
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) return 'host_key_changed';
  if (/No \S+ host key is known for|Host key verification failed/i.test(stderr)) return 'host_key_unknown';
  if (/Permission denied|Too many authentication failures|no mutual signature/i.test(stderr)) return 'unauthenticated';
  return 'down';
}

/** ssh's last meaningful line (what the person would have seen on a terminal). */
export function lastSshLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^@+$/.test(l) && !l.startsWith('debug'));
  return (lines.at(-1) ?? 'ssh exited 255 without saying why').slice(0, 500);
}

/** The last non-empty line of a remote's output, bounded (said back to the person). */
export function lastLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .at(-1) ?? ''
  ).slice(0, 500);
}

/** The facts ssh printed about a refused host key (a changed key's banner names its fingerprint and ssh-keygen line). */
export function hostKeyFactsFrom(stderr: string, acceptCommand: string): HostKeyFacts {
  const facts: HostKeyFacts = { acceptCommand };
  const fp = /(SHA256:[A-Za-z0-9+/=]{20,})/.exec(stderr);
  if (fp?.[1] !== undefined) facts.fingerprint = fp[1];
  const type = /The fingerprint for the (\S+) key|No (\S+) host key is known for/.exec(stderr);
  const keyType = type?.[1] ?? type?.[2];
  if (keyType !== undefined) facts.keyType = keyType;
  const name = /host key is known for (\S+) and/.exec(stderr);
  if (name?.[1] !== undefined) facts.knownHostsName = name[1];
  const remove = /^\s*(ssh-keygen -f .* -R .*)$/m.exec(stderr);
  if (remove?.[1] !== undefined) facts.removeCommand = remove[1].trim();
  const offending = /Offending \S+ key in (\S+):\d+/.exec(stderr);
  if (offending?.[1] !== undefined) facts.knownHostsFile = offending[1];
  return facts;
}

/** The typed refusal for a failed ssh: reason, ssh's own line, and what to do. */
export function sshFailure(connection: string, where: string, stderr: string, facts?: HostKeyFacts): OverseerError {
  const reason = sshFailureReason(stderr);
  const line = lastSshLine(stderr);
  switch (reason) {
    case 'host_key_unknown': {
      const fp = facts?.fingerprint !== undefined ? ` (${facts.keyType ?? 'host'} key ${facts.fingerprint})` : '';
      const hint = `ssh does not know ${where}'s host key${fp}. Check that fingerprint with the remote's administrator (on the remote: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), then record it: ${facts?.acceptCommand ?? 'ssh to it once and answer yes'}`;
      return fail('connection_unavailable', `the host key of ${where} is not in known_hosts${fp}: refused (${line})`, {
        connection,
        reason,
        hint,
        ...(facts?.fingerprint !== undefined ? { fingerprint: facts.fingerprint } : {}),
        ...(facts !== undefined ? { accept_command: facts.acceptCommand } : {}),
      });
    }
    case 'host_key_changed': {
      const fp = facts?.fingerprint !== undefined ? ` to ${facts.keyType ?? 'host'} key ${facts.fingerprint}` : '';
      const remove = facts?.removeCommand ?? `ssh-keygen -R ${facts?.knownHostsName ?? where}`;
      const hint = `the host key of ${where} CHANGED${fp}: this is what a machine-in-the-middle looks like. Only if the remote was reinstalled or its keys were replaced on purpose (ask its administrator for the new fingerprint), remove the old key with: ${remove}  and record the new one with: ${facts?.acceptCommand ?? 'ssh to it once and answer yes'}`;
      return fail('connection_unavailable', `the host key of ${where} changed${fp}: refused (${line})`, {
        connection,
        reason,
        hint,
        ...(facts?.fingerprint !== undefined ? { fingerprint: facts.fingerprint } : {}),
        remove_command: remove,
        ...(facts !== undefined ? { accept_command: facts.acceptCommand } : {}),
      });
    }
    case 'unauthenticated':
      return fail('connection_unavailable', `ssh could not log in to ${where}: ${line}`, {
        connection,
        reason,
        hint: 'Overseer never asks for a password: load the key into ssh-agent (ssh-add) or name it with IdentityFile in your ssh_config, and make sure its public key is in the remote ~/.ssh/authorized_keys',
      });
    case 'down':
      return fail('connection_unavailable', `ssh could not reach ${where}: ${line}`, { connection, reason, hint: unreachableAdvice(where, line) });
  }
}

/**
 * What to try when ssh could not reach the remote, from ssh's own line (said once, in the detail):
 * advice in words for each way a connection fails before login, never that line again.
 */
export function unreachableAdvice(where: string, line: string): string {
  const port = /port (\d+)/.exec(line)?.[1];
  const at = port !== undefined ? `port ${port} of ${where}` : where;
  if (/Connection refused/i.test(line))
    return `nothing answers on ${at}: check that sshd runs there (systemctl status ssh) and listens on that port, and that the connection or your ssh_config names the right port`;
  if (/Could not resolve hostname|Name or service not known|nodename nor servname/i.test(line))
    return `the name ${where} does not resolve: check its spelling, or give its address or a Host entry in your ssh_config`;
  if (/timed out|No route to host|Network is unreachable|Host is down/i.test(line))
    return `${where} does not answer: check that it is switched on and on the network, its address, and that no firewall blocks ${port !== undefined ? `port ${port}` : 'the ssh port'}`;
  if (/Connection (closed|reset) by|kex_exchange_identification|Connection closed/i.test(line))
    return `${at} closed the connection before login: sshd may refuse this address (AllowUsers, tcp wrappers, fail2ban) or be limiting new connections (MaxStartups); its log (journalctl -u ssh) says which`;
  return `check that ${where} is up, that sshd runs there and listens on the port you named, and that \`ssh ${where} true\` works in a terminal`;
}
