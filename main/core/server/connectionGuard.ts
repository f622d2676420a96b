import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * What one connection is doing, from the cheapest to lose to the one never taken away
 * (docs/security.md#connections):
 * - `waiting`: connected, its first request's headers not complete (a slowloris stays here), or an
 *   upgraded socket being refused;
 * - `idle`: kept alive between requests;
 * - `serving`: a request in flight for someone unauthenticated (a static file, `/health`);
 * - `protected`: a request in flight with the agent's or the person's credential, or the person's UI socket.
 */
type Lane = 'waiting' | 'idle' | 'serving' | 'protected';

interface Tracked {
  socket: Duplex;
  lane: Lane;
  /** Requests in flight on it: with a credential, and without. */
  trusted: number;
  open: number;
  /** An upgraded socket is no longer HTTP: it leaves the lanes only when it closes. */
  upgraded: 'ui' | 'refused' | undefined;
}

/** What the guard counts, for logs and tests. */
export interface ConnectionCounts {
  total: number;
  waiting: number;
  idle: number;
  serving: number;
  protected: number;
  /** Connections closed to make room since the start. */
  evicted: number;
  /** Connections refused because every one was protected. */
  refused: number;
}

/**
 * A cap on the HTTP server's connections with a lane no one unauthenticated can fill. A TCP
 * connection says what it is for only once its request headers arrive, so a new connection is
 * always let in; past the cap the connection that is doing the least, and has done so for the
 * longest, is closed: the oldest still waiting for its headers, else the longest idle, else the
 * oldest unauthenticated request in flight. A request carrying the agent's or the person's
 * credential, and the person's UI socket, are never closed to make room; only when every
 * connection is such is the new one refused. A real client's connection is then the newest
 * waiting one, and is reached only after `max` newer connections while its headers are read.
 */
export class ConnectionGuard {
  private readonly lanes: Record<Lane, Map<Duplex, Tracked>> = { waiting: new Map(), idle: new Map(), serving: new Map(), protected: new Map() };
  private readonly bySocket = new Map<Duplex, Tracked>();
  private evicted = 0;
  private refused = 0;

  constructor(
    server: Server,
    private readonly max: number,
    private readonly log: (line: string) => void,
  ) {
    server.on('connection', (socket: Socket) => this.connected(socket));
  }

  /** A request began on its connection (`trusted`: it carries the agent's or the person's credential). */
  request(req: IncomingMessage, res: ServerResponse, trusted: boolean): void {
    const t = this.bySocket.get(req.socket);
    if (t === undefined) return;
    if (trusted) t.trusted++;
    else t.open++;
    this.place(t);
    res.once('close', () => {
      if (trusted) t.trusted--;
      else t.open--;
      if (this.bySocket.has(t.socket)) this.place(t);
    });
  }

  /** The connection left HTTP (a WebSocket): `ui` for the person's signed-in UI socket, `refused` for one being closed. */
  upgraded(socket: Duplex, kind: 'ui' | 'refused'): void {
    const t = this.bySocket.get(socket);
    if (t === undefined) return;
    t.upgraded = kind;
    // An upgrade request is never answered through a response, so it counted as no request in flight.
    this.place(t);
  }

  /** Whether a response is being written on this connection (an error then cannot be answered on it). */
  answering(socket: Duplex): boolean {
    const t = this.bySocket.get(socket);
    return t !== undefined && t.trusted + t.open > 0;
  }

  counts(): ConnectionCounts {
    return {
      total: this.bySocket.size,
      waiting: this.lanes.waiting.size,
      idle: this.lanes.idle.size,
      serving: this.lanes.serving.size,
      protected: this.lanes.protected.size,
      evicted: this.evicted,
      refused: this.refused,
    };
  }

  private connected(socket: Socket): void {
    if (this.bySocket.size >= this.max) {
      const victim = this.lanes.waiting.values().next().value ?? this.lanes.idle.values().next().value ?? this.lanes.serving.values().next().value;
      if (victim === undefined) {
        // Every connection is an agent's call in flight or the person's: this one must come back later.
        this.refused++;
        if (this.refused === 1 || this.refused % 1000 === 0)
          this.log(`[http] all ${this.max} connections are agents' calls in flight or the person's; a new one was refused (${this.refused} so far)`);
        // Destroyed, not answered: the HTTP parser already owns the socket, and this is no request yet.
        socket.destroy();
        return;
      }
      this.evicted++;
      if (this.evicted === 1 || this.evicted % 10_000 === 0)
        this.log(`[http] over ${this.max} connections: the one doing least for longest (${victim.lane}) was closed to make room (${this.evicted} so far)`);
      this.drop(victim);
      victim.socket.destroy();
    }
    const t: Tracked = { socket, lane: 'waiting', trusted: 0, open: 0, upgraded: undefined };
    this.bySocket.set(socket, t);
    this.lanes.waiting.set(socket, t);
    socket.once('close', () => this.drop(t));
  }

  /** Moves a connection to the lane its state says, at the lane's end (its newest). */
  private place(t: Tracked): void {
    const lane: Lane =
      t.upgraded === 'ui' || t.trusted > 0
        ? 'protected'
        : t.upgraded === 'refused'
          ? 'waiting'
          : t.open > 0
            ? 'serving'
            : t.lane === 'waiting'
              ? 'waiting'
              : 'idle';
    this.lanes[t.lane].delete(t.socket);
    t.lane = lane;
    this.lanes[lane].set(t.socket, t);
  }

  /** Forgets a connection that closed or is being closed. */
  private drop(t: Tracked): void {
    if (this.bySocket.get(t.socket) !== t) return;
    this.bySocket.delete(t.socket);
    this.lanes[t.lane].delete(t.socket);
  }
}
