import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { Transform } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AgentSession, agentName } from '../session/agentSession.js';
import { createMcpServer, trackSends } from '../mcp/mcpSession.js';
import { PROFILING, profileFinisher, profiled } from '../runtime/callProfile.js';
import { OVERSEER_VERSION } from '../runtime/version.js';
import { peerCredentials, type PeerCredentials } from '../native/peerCredentials.js';
import { agentCredential, hostCredentials, type AgentCredential } from './agentAuth.js';
import type { ByteBudget } from './byteBudget.js';
import { serveModernBridge } from './bridgeModern.js';
import { lingeringClose } from './lingeringClose.js';
import type { SessionHost } from './sessionHost.js';

/** The first line a bridge sends: its credential (the agent's own, or the shared token), and the pid of the agent host that launched it. */
export const BridgeHello = z.strictObject({
  token: z.string().max(200),
  host_pid: z.number().int().positive().optional(),
  client: z.string().max(200).optional(),
});
export type BridgeHello = z.infer<typeof BridgeHello>;
const MAX_HELLO = 4096;
/** A connection's hello must be complete this long after it connected (a deadline, not an idle timeout a trickle could renew). */
const HELLO_TIMEOUT_MS = 5000;
/**
 * Connections still owing their hello, at most; past it the oldest is closed. `overseer mcp` sends
 * its hello as it connects, so only a stalled or hostile peer waits here, and it may not hold
 * more sockets than there can be agent sessions.
 */
export const MAX_PENDING_HELLOS = 64;
/** Longest MCP message a bridge may send (as over HTTP). */
export const MAX_LINE = 8 * 1024 * 1024;
/** A bridge's first MCP message, which says its era, must come this long after its greeting. */
const FIRST_MESSAGE_MS = 30_000;

/**
 * Whether a bridge's first message opens the 2026-07-28 era (docs/tools.md#protocol-eras): a
 * `server/discover` probe, or a request carrying the protocol version in its `_meta` envelope.
 * Anything else (`initialize` first, as every 2025-11-25 client does) is served as today.
 */
export function opensModernEra(line: string): boolean {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return false;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const { method, params } = message as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (method === 'server/discover') return true;
  return typeof params === 'object' && params !== null && typeof params._meta?.[PROTOCOL_VERSION_META_KEY] === 'string';
}

/**
 * The agent host a bridge names, as far as the kernel confirms it (docs/security.md#agent-hosts):
 * `host_pid` counts only when it is the parent of the process at the other end of the socket. Where
 * the peer cannot be known (not Linux), the claim stands, for that agent's own session only.
 */
export function verifiedHost(claimed: number | undefined, peer: PeerCredentials | undefined): { pids: number[]; note?: string } {
  if (claimed === undefined) return { pids: [] };
  if (peer === undefined) return { pids: [claimed], note: `host_pid ${claimed} taken as claimed: the peer of this socket cannot be known here` };
  if (peer.ppid === claimed) return { pids: [claimed] };
  return {
    pids: [],
    note: `host_pid ${claimed} ignored: the bridge (pid ${peer.pid}) has ${peer.ppid === undefined ? 'no parent left' : `parent ${peer.ppid}`}`,
  };
}

/** Reads the first line of a socket (at most `max` bytes) and puts any rest back (`keep`: the line too). */
function firstLine(socket: Socket, max = MAX_HELLO, keep = false): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl >= 0) {
        socket.off('data', onData);
        socket.pause();
        const rest = keep ? buf : buf.subarray(nl + 1);
        if (rest.length > 0) socket.unshift(rest);
        resolve(buf.subarray(0, nl).toString('utf8'));
      } else if (buf.length > max) {
        socket.off('data', onData);
        reject(new Error('hello too long'));
      }
    };
    socket.on('data', onData);
    // A socket an earlier read paused flows again for this one.
    socket.resume();
    socket.once('close', () => reject(new Error('closed')));
  });
}

/**
 * The bridge stream as MCP reads it, one message a line, with a bound on a line: a peer that sends
 * an endless line is cut off instead of growing the supervisor's memory without end.
 */
export function lineLimit(maxLine: number, onOversize: () => void): Transform {
  let since = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const nl = chunk.lastIndexOf(0x0a);
      since = nl >= 0 ? chunk.length - nl - 1 : since + chunk.length;
      if (since > maxLine) {
        onOversize();
        done();
        return;
      }
      done(null, chunk);
    },
  });
}

/**
 * A bridge's messages count against the supervisor's request budget from arrival until their answer
 * is sent (docs/security.md#nothing-an-agent-sends-can-take-the-supervisor-down): while the budget
 * is spent the socket is not read, so the agent waits instead of the supervisor's memory growing.
 */
export function holdWhileAnswered(transport: Pick<StdioServerTransport, 'onmessage' | 'send'>, socket: Socket, budget: ByteBudget): void {
  const held = new Map<string | number, number>();
  let paused = false;
  const resume = (): void => {
    if (!paused || budget.full || socket.destroyed) return;
    paused = false;
    socket.resume();
  };
  const stopWaking = budget.onRoom(resume);
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    if ('id' in message && 'method' in message) {
      const bytes = JSON.stringify(message.params ?? null).length;
      held.set(message.id, (held.get(message.id) ?? 0) + bytes);
      if (!budget.force(bytes) && !paused) {
        paused = true;
        socket.pause();
      }
    }
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      const bytes = held.get(message.id);
      if (bytes !== undefined) {
        held.delete(message.id);
        budget.release(bytes);
      }
    }
    return send(message);
  };
  socket.once('close', () => {
    stopWaking();
    for (const bytes of held.values()) budget.release(bytes);
    held.clear();
  });
}

/** OVERSEER_PROF=1: a call's profile runs from its message's arrival until its answer is handed to the socket. */
function profileBridge(transport: StdioServerTransport, log: (line: string) => void): void {
  const receive = transport.onmessage;
  transport.onmessage = (message) => profiled('stdio', log, () => receive?.(message));
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    const finish = profileFinisher();
    const sent = send(message);
    // Handed to the socket: waiting for it to drain would count the agent's reading too.
    if ('id' in message && ('result' in message || 'error' in message)) finish();
    return sent;
  };
}

/**
 * The local socket `overseer mcp` connects to (a Unix domain socket, mode 0600): a hello line with
 * the agent's credential — its own grant's (docs/agents.md#stdio-agents), or the shared token while
 * the person keeps it — then MCP over the same stream, one JSON message a line, as one agent session.
 */
export async function startBridgeSocket(supervisor: SessionHost, options: { path: string; token: string; log: (line: string) => void }): Promise<Server> {
  await unlink(options.path).catch(() => {});
  // Oldest first: a Set iterates in insertion order.
  const awaitingHello = new Set<Socket>();
  const credentials = hostCredentials(options.token, supervisor);
  /** Why a bridge's credential opens nothing, in words `overseer mcp` prints for the person. */
  const refusal = (): string =>
    credentials.sharedToken()
      ? 'the credential is not known to this supervisor: it was revoked, or it is of another data folder'
      : 'the credential is not known to this supervisor (revoked, or of another data folder), and the shared agent token is turned off in Settings → Agents: give this agent its own credential there (OVERSEER_AGENT_CREDENTIAL)';
  const server = createServer((socket) => {
    // A peer that resets or half-closes ends its own session only.
    socket.on('error', (error) => options.log(`[bridge] a connection failed: ${error.message}`));
    if (awaitingHello.size >= MAX_PENDING_HELLOS) {
      const oldest = awaitingHello.values().next().value;
      if (oldest !== undefined) {
        awaitingHello.delete(oldest);
        oldest.destroy();
      }
    }
    awaitingHello.add(socket);
    // A peer that connects and says nothing, or trickles, does not hold a socket.
    const deadline = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const helloDone = (): void => {
      clearTimeout(deadline);
      awaitingHello.delete(socket);
    };
    socket.once('close', helloDone);
    void (async () => {
      let hello: BridgeHello;
      let credential: AgentCredential | undefined;
      try {
        const line = await firstLine(socket).finally(helloDone);
        const parsed = BridgeHello.safeParse(JSON.parse(line));
        if (!parsed.success) throw new Error('bad hello');
        hello = parsed.data;
        credential = agentCredential(hello.token, credentials);
        if (credential === undefined) throw new Error('bad credential');
      } catch {
        lingeringClose(socket, `${JSON.stringify({ ok: false, error: refusal() })}\n`);
        return;
      }
      const grant = credential.kind === 'grant' ? credential.grant : undefined;
      if (grant !== undefined) {
        // A revoked grant's bridge closes at once, whichever era it speaks and whatever it holds.
        const stop = supervisor.grants.onRevoked((id) => {
          if (id === grant.id) socket.destroy();
        });
        socket.once('close', stop);
      }
      const admitted = supervisor.admit();
      if (!admitted.ok) {
        lingeringClose(socket, `${JSON.stringify({ ok: false, error: admitted.why })}\n`);
        return;
      }
      const host = verifiedHost(hello.host_pid, peerCredentials(socket));
      socket.write(`${JSON.stringify({ ok: true, version: OVERSEER_VERSION })}\n`);
      // Until its first message says its era, a bridge holds a place among those owing their hello.
      awaitingHello.add(socket);
      const late = setTimeout(() => socket.destroy(), FIRST_MESSAGE_MS);
      const first = await firstLine(socket, MAX_LINE, true)
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(late);
          awaitingHello.delete(socket);
        });
      // A first message past the bound (or none) closes the connection, as an oversized line does later.
      if (first === undefined || socket.destroyed) return void socket.destroy();
      if (opensModernEra(first)) {
        serveModernBridge(supervisor, socket, { hostPids: host.pids, client: hello.client, grant, log: options.log });
        return;
      }
      const session = new AgentSession({
        transport: 'stdio',
        progressiveTools: supervisor.settings.settings.progressive_tools,
        hostPids: host.pids,
        now: () => supervisor.clock.now(),
        ...(grant !== undefined ? { grant } : {}),
      });
      if (host.note !== undefined) options.log(`[bridge] ${session.id}: ${host.note}`);
      session.client = agentName(hello.client, session.client);
      const server = createMcpServer({ runner: supervisor.runner, session, version: OVERSEER_VERSION, onChange: () => supervisor.emitAgents() });
      const input = socket.pipe(
        lineLimit(MAX_LINE, () => {
          options.log(`[bridge] ${session.id} sent a message longer than ${MAX_LINE} bytes; its connection was closed`);
          socket.destroy();
        }),
      );
      const transport = new StdioServerTransport(input, socket);
      const sends = trackSends(transport);
      transport.onclose = () => supervisor.endSession(session.id, 'its bridge closed');
      transport.onerror = (error) => options.log(`[bridge] ${session.id}: ${error.message}`);
      socket.once('close', () => void transport.close());
      await server.connect(transport);
      // After connect, which sets the transport's message handler this wraps.
      holdWhileAnswered(transport, socket, supervisor.requestBytes);
      if (PROFILING) profileBridge(transport, options.log);
      await supervisor.addSession(session, { close: () => socket.destroy(), drain: () => sends.drain() });
      if (socket.destroyed) supervisor.endSession(session.id, 'its bridge closed');
    })().catch((error: unknown) => options.log(`[bridge] connection failed: ${error instanceof Error ? error.message : String(error)}`));
  });
  server.on('error', (error) => options.log(`[bridge] socket server: ${error.message}`));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(options.path, 0o600);
  return server;
}
