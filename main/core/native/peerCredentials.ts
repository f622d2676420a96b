// Who is at the other end of a local socket, from the kernel rather than from what the peer says
// (docs/security.md#agent-hosts). Linux: getsockopt(SO_PEERCRED) through koffi, loaded on first
// use so nothing else ever touches it; the parent from /proc. Elsewhere: unknown, said so.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type * as Koffi from 'koffi';

/** The process at the other end of a Unix socket, as the kernel recorded it at connect(). */
export interface PeerCredentials {
  pid: number;
  uid: number;
  /** Its parent now (from /proc/<pid>/stat), or undefined when it already exited. */
  ppid: number | undefined;
}

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;

type GetSockOpt = (fd: number, level: number, name: number, value: Buffer, length: number[]) => number;
let getsockopt: GetSockOpt | null | undefined;

function bind(): GetSockOpt | null {
  if (getsockopt !== undefined) return getsockopt;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof Koffi;
    const libc = koffi.load('libc.so.6');
    getsockopt = libc.func('int getsockopt(int fd, int level, int optname, _Out_ void *optval, _Inout_ uint32_t *optlen)') as GetSockOpt;
  } catch {
    getsockopt = null;
  }
  return getsockopt;
}

/** The parent pid of a process, from field 4 of /proc/<pid>/stat (after the parenthesised name, which may hold spaces). */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** The kernel's record of the process that connected this Unix socket; undefined where it cannot be known (not Linux, no descriptor). */
export function peerCredentials(socket: Socket): PeerCredentials | undefined {
  if (process.platform !== 'linux') return undefined;
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return undefined;
  const call = bind();
  if (call === null) return undefined;
  const cred = Buffer.alloc(12);
  const length = [12];
  if (call(fd, SOL_SOCKET, SO_PEERCRED, cred, length) !== 0 || length[0] !== 12) return undefined;
  const pid = cred.readInt32LE(0);
  if (pid <= 0) return undefined;
  return { pid, uid: cred.readUInt32LE(4), ppid: parentOf(pid) };
}
