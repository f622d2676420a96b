/**
 * A line transport (the MCP SDK's five-member shape): one JSON-RPC frame per line.
 * stdio, child-process and in-memory transports plug into RpcPeer through it.
 */
export interface Transport {
  start(): void;
  send(line: string): void;
  close(): void;
  onmessage?: (line: string) => void;
  /** A line longer than the frame limit; its bytes were dropped. */
  onoversize?: (bytes: number) => void;
  onclose?: () => void;
}

/** Splits a byte stream into lines, dropping (and reporting) lines longer than maxBytes. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number) => void,
  ) {}

  /** Feeds a chunk; calls onLine for each complete line. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      this.append(chunk.subarray(start, end));
      if (nl === -1) return;
      this.flush();
      start = nl + 1;
    }
  }

  private append(piece: Buffer): void {
    this.size += piece.length;
    if (this.dropping) return;
    if (this.size > this.maxBytes) {
      this.dropping = true;
      this.parts = [];
      return;
    }
    if (piece.length > 0) this.parts.push(piece);
  }

  private flush(): void {
    if (this.dropping) this.onOversize(this.size);
    else {
      const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
      if (line.trim().length > 0) this.onLine(line);
    }
    this.parts = [];
    this.size = 0;
    this.dropping = false;
  }
}

/** Two linked in-memory transports, for unit tests of RPC logic. */
export function createLinkedPair(): [Transport, Transport] {
  const make = (): Transport & { peer?: Transport; closed: boolean } => ({
    closed: false,
    start() {},
    send(line: string) {
      const peer = this.peer;
      if (this.closed || peer === undefined) return;
      queueMicrotask(() => peer.onmessage?.(line));
    },
    close() {
      if (this.closed) return;
      this.closed = true;
      this.onclose?.();
      const peer = this.peer as (Transport & { closed: boolean }) | undefined;
      if (peer !== undefined && !peer.closed) peer.close();
    },
  });
  const a = make();
  const b = make();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
