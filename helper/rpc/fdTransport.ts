import { writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { LineSplitter, type Transport } from '../../rpc/transport.js';

// Reads fd 0 with blocking reads on a worker thread and posts each chunk. Inline (eval) so the
// helper stays one file when bundled.
const READER = `
const { readSync } = require('node:fs');
const { parentPort } = require('node:worker_threads');
const buffer = Buffer.alloc(1 << 16);
for (;;) {
  let n;
  try { n = readSync(0, buffer, 0, buffer.length, null); }
  catch (error) { if (error.code === 'EAGAIN') continue; if (error.code !== 'EOF') parentPort.postMessage({ error: String(error.code || error) }); break; }
  if (n === 0) break;
  parentPort.postMessage(Buffer.from(buffer.subarray(0, n)));
}
`;

/**
 * Frames over the raw stdin/stdout descriptors, for Windows builds of Node under Wine, where libuv
 * cannot open a Unix pipe as a stream (EBADF) but plain reads and writes on the descriptors work.
 * Selected with OVERSEER_HELPER_STDIO=fd. Same line protocol as StreamTransport.
 */
export class FdTransport implements Transport {
  onmessage?: (line: string) => void;
  onoversize?: (bytes: number) => void;
  onclose?: () => void;
  private closed = false;
  private worker: Worker | undefined;
  private readonly splitter: LineSplitter;

  constructor(
    maxFrameBytes: number,
    private readonly log: (line: string) => void,
  ) {
    this.splitter = new LineSplitter(
      maxFrameBytes,
      (line) => this.onmessage?.(line),
      (bytes) => this.onoversize?.(bytes),
    );
  }

  start(): void {
    // stdout/stderr: true keeps the worker away from process.stdout, which cannot open here.
    const worker = new Worker(READER, { eval: true, stdout: true, stderr: true, stdin: false });
    this.worker = worker;
    worker.on('message', (m: Uint8Array | { error: string }) => {
      if (m instanceof Uint8Array) this.splitter.push(Buffer.from(m));
      else this.log(`[helper] reading stdin failed: ${m.error}`);
    });
    worker.on('exit', () => this.close());
    worker.on('error', (error) => {
      this.log(`[helper] stdin reader failed: ${error.message}`);
      this.close();
    });
  }

  send(line: string): void {
    if (this.closed) return;
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(1, bytes, at);
    } catch {
      this.close();
    }
  }

  /** Bytes written but not yet taken: none, writes here block until they are. */
  readonly backlog = 0;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.worker?.terminate();
    this.onclose?.();
  }
}
