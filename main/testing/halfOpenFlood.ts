import { fork, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/** What the flood reports: how its connections fared. */
export interface FloodStatus {
  /** Connections opened so far (each sent a partial request and stalled). */
  opened: number;
  /** Open right now. */
  open: number;
  /** Closed by the server (end or reset). */
  closedByServer: number;
  /** How long each connection closed by the server after `hold` had been open, in ms. */
  closedAfterMs: number[];
  /** Connections that were told `408 Request Timeout` before they closed. */
  timedOut: number;
  /** Connections that failed to open, by error code. */
  failed: Record<string, number>;
}

type Command = { type: 'status' } | { type: 'hold' } | { type: 'stop' };

/**
 * A slowloris in a child process (its sockets use the child's file handles, not the test's): it
 * opens `count` connections to host:port, each sending a request line and one header and then
 * nothing, and while `sustain` is on opens a new one for each the server closes, so the server
 * faces `count` stalled connections throughout.
 */
export class HalfOpenFlood {
  private constructor(private readonly child: ChildProcess) {}

  /** Starts the flood and resolves once `count` connections were attempted. */
  static async start(host: string, port: number, count: number): Promise<HalfOpenFlood> {
    const child = fork(fileURLToPath(import.meta.url), [host, String(port), String(count)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    const flood = new HalfOpenFlood(child);
    await flood.next('ready');
    return flood;
  }

  /** The flood's counts now. */
  status(): Promise<FloodStatus> {
    return this.ask({ type: 'status' });
  }

  /** Stops replacing closed connections; the open ones stay as they are. */
  hold(): Promise<FloodStatus> {
    return this.ask({ type: 'hold' });
  }

  /** Closes every connection and ends the child. */
  async stop(): Promise<FloodStatus> {
    const last = await this.ask({ type: 'stop' });
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve));
    return last;
  }

  private ask(command: Command): Promise<FloodStatus> {
    const answer = this.next('status');
    this.child.send(command);
    return answer;
  }

  private next(type: string): Promise<FloodStatus> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: { type: string; status: FloodStatus }): void => {
        if (m.type !== type) return;
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        resolve(m.status);
      };
      const onExit = (code: number | null): void => reject(new Error(`the flood exited with ${code}`));
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
    });
  }
}

/** The child: opens and keeps the connections, answers the parent's commands. */
function runFlood(host: string, port: number, count: number): void {
  const status: FloodStatus = { opened: 0, open: 0, closedByServer: 0, closedAfterMs: [], timedOut: 0, failed: {} };
  const sockets = new Set<Socket>();
  let sustain = true;
  let stopping = false;
  // At most this many connects in flight, so the flood does not just overrun the listen backlog.
  const CONNECTING = 256;
  let connecting = 0;
  let toOpen = count;
  let readySent = false;

  const open = (): void => {
    while (toOpen > 0 && connecting < CONNECTING && !stopping) {
      toOpen--;
      connecting++;
      const socket = connect({ host, port });
      let connectedAt = 0;
      socket.on('connect', () => {
        connecting--;
        connectedAt = Date.now();
        status.opened++;
        status.open++;
        sockets.add(socket);
        socket.write(`GET /health HTTP/1.1\r\nHost: ${host}:${port}\r\nX-Stalled: `);
        open();
        progress();
      });
      socket.on('data', (chunk: Buffer) => {
        if (chunk.toString('latin1').startsWith('HTTP/1.1 408 ')) status.timedOut++;
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (connectedAt === 0) {
          connecting--;
          status.failed[error.code ?? 'error'] = (status.failed[error.code ?? 'error'] ?? 0) + 1;
          if (sustain) toOpen++;
          open();
          progress();
        }
      });
      socket.on('close', () => {
        if (connectedAt === 0) return;
        sockets.delete(socket);
        status.open--;
        if (stopping) return;
        status.closedByServer++;
        if (!sustain) status.closedAfterMs.push(Date.now() - connectedAt);
        if (sustain) {
          toOpen++;
          open();
        }
      });
    }
  };
  const progress = (): void => {
    if (readySent || status.opened + Object.values(status.failed).reduce((a, b) => a + b, 0) < count) return;
    readySent = true;
    process.send?.({ type: 'ready', status });
  };
  process.on('message', (m: Command) => {
    if (m.type === 'hold') {
      sustain = false;
      toOpen = 0;
    }
    if (m.type === 'stop') {
      stopping = true;
      sustain = false;
      for (const s of sockets) s.destroy();
      process.send?.({ type: 'status', status }, () => process.exit(0));
      return;
    }
    process.send?.({ type: 'status', status });
  });
  open();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [, , host = '127.0.0.1', port = '0', count = '0'] = process.argv;
  runFlood(host, Number(port), Number(count));
}
