import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { lingeringClose } from './lingeringClose.js';

describe('lingeringClose', () => {
  it('the peer reads the last words and may finish sending without a reset; then the socket closes', async () => {
    const server = createServer((socket) => socket.once('data', () => lingeringClose(socket, 'HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const got = await new Promise<{ text: string; sent: number; error?: string }>((resolve) => {
        // Half-open allowed, as an HTTP client uploading a body keeps writing after the answer came.
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        let text = '';
        let sent = 0;
        socket.on('data', (b: Buffer) => (text += b.toString('latin1')));
        socket.on('error', (e: NodeJS.ErrnoException) => resolve({ text, sent, error: e.code ?? e.message }));
        socket.on('close', () => resolve({ text, sent }));
        socket.once('connect', () => {
          socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n');
          const more = (): void => {
            if (sent === 8) return void socket.end();
            socket.write(Buffer.alloc(1024 * 1024), (error) => {
              if (error !== undefined && error !== null) return;
              sent++;
              setTimeout(more, 10);
            });
          };
          more();
        });
      });
      assert.match(got.text, /^HTTP\/1\.1 413 /, `got ${JSON.stringify(got)}`);
      assert.deepEqual({ sent: got.sent, error: got.error }, { sent: 8, error: undefined }, 'the whole body went out, and no reset');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
