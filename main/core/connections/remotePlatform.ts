// What the remote is (docs/connections.md#windows-over-ssh): the helper over ssh acts in a Linux
// desktop session. A Windows remote is refused plainly: an SSH session there runs in a service
// session, outside the desktop the person signed in to, where no window of theirs can be reached.
import { fail, type OverseerError } from '../../../protocol/index.js';
import { lastLine } from './sshFailure.js';

/** Plain words every remote shell runs: sh prints the kernel's name; cmd.exe (Windows' OpenSSH default) has no uname and runs `ver`. */
export const PROBE_COMMAND = 'uname -s || ver';

/** The refusal for what the probe answered, or undefined for a Linux remote. */
export function probeRefusal(connection: string, where: string, probe: { code: number | null; stdout: string; stderr: string }): OverseerError | undefined {
  const system = probe.stdout.trim();
  if (/windows/i.test(`${system}\n${probe.stderr}`)) return windowsRefusal(connection, where);
  if (probe.code !== 0 || system === '')
    return fail('connection_unavailable', `${where} did not say what system it is (uname -s: ${lastLine(probe.stderr) || `exit ${probe.code}`})`, {
      connection,
      reason: 'unsupported_session',
      hint: 'the remote must be Linux with a POSIX shell',
    });
  if (system !== 'Linux')
    return fail('connection_unavailable', `${where} runs ${system.slice(0, 40)}; the remote helper runs on Linux desktops`, {
      connection,
      reason: 'unsupported_session',
      hint: 'connect to a Linux desktop (X11, or Wayland with AT-SPI)',
    });
  return undefined;
}

/** A Windows remote: an SSH session on Windows runs outside the interactive desktop. */
export function windowsRefusal(connection: string, where: string): OverseerError {
  return fail(
    'connection_unavailable',
    `${where} is Windows: an SSH session on Windows runs outside the interactive desktop (a service session), where no window the person sees can be read or operated`,
    {
      connection,
      reason: 'unsupported_session',
      hint: 'run Overseer on that Windows machine itself (its UIA helper acts in the signed-in desktop), or reach it through an OSWorld-style in-VM server; see docs/connections.md#windows-over-ssh',
    },
  );
}
