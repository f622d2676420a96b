import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { peerCredentials } from '../native/peerCredentials.js';
import { verifiedHost } from './bridgeSocket.js';

describe('the agent host a bridge names', () => {
  it('counts host_pid only when the kernel says it is the parent of the process at the other end', () => {
    const peer = { pid: 200, uid: 0, ppid: 100 };
    assert.deepEqual(verifiedHost(100, peer), { pids: [100] });
    const other = verifiedHost(4242, peer);
    assert.deepEqual(other.pids, [], 'another process named as the host excludes nothing');
    assert.match(other.note ?? '', /host_pid 4242 ignored: the bridge \(pid 200\) has parent 100/);
    assert.deepEqual(verifiedHost(undefined, peer), { pids: [] });
    assert.deepEqual(verifiedHost(7, undefined).pids, [7], 'where the peer cannot be known the claim stands (for that agent alone)');
  });

  it(
    'reads the real peer of a Unix socket (this process connecting to itself)',
    { skip: process.platform !== 'linux' && 'SO_PEERCRED is Linux only' },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'overseer-peer-'));
      const path = join(dir, 'p.sock');
      const accepted = new Promise<Socket>((resolve) => {
        const server = createServer((s) => {
          resolve(s);
          server.close();
        });
        server.listen(path, () => connect(path).on('error', () => {}));
      });
      const socket = await accepted;
      try {
        assert.deepEqual(peerCredentials(socket), { pid: process.pid, uid: process.getuid?.(), ppid: process.ppid });
      } finally {
        socket.destroy();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
