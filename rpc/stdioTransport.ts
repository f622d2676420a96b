import type { Readable, Writable } from 'node:stream';
import { LineSplitter, type Transport } from './transport.js';

/** Frames over a readable/writable pair (the helper's stdin/stdout, or a child's pipes). */
export class StreamTransport implements Transport {
  onmessage?: (line: string) => void;
  onoversize?: (bytes: number) => void;
  onclose?: () => void;
  private closed = false;
  private readonly splitter: LineSplitter;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    maxFrameBytes: number,
  ) {
    this.splitter = new LineSplitter(
      maxFrameBytes,
      (line) => this.onmessage?.(line),
      (bytes) => this.onoversize?.(bytes),
    );
  }

  start(): void {
    this.input.on('data', (chunk: Buffer) => this.splitter.push(chunk));
    this.input.on('end', () => this.close());
    this.input.on('close', () => this.close());
    this.output.on('error', () => this.close());
  }

  send(line: string): void {
    if (this.closed) return;
    this.output.write(`${line}\n`);
  }

  /** Bytes written but not yet taken by the other side (a reader that falls behind grows it). */
  get backlog(): number {
    return this.output.writableLength;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
