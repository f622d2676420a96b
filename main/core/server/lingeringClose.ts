import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** Longest a closing connection's peer may go on sending before its socket is destroyed. */
export const LINGER_MS = 2000;
/** Most bytes read and dropped from a closing connection (or a refused body) before its socket is destroyed. */
export const LINGER_BYTES = 16 * 1024 * 1024;

const closing = new WeakSet<Duplex>();

/** Destroys `socket` once `bytes` more arrive than LINGER_BYTES or LINGER_MS pass, whichever is first; answers the function that stops the watch. */
function bounded(socket: Duplex, count: (onChunk: (size: number) => void) => void): () => void {
  let read = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  count((size) => {
    read += size;
    if (read > LINGER_BYTES) socket.destroy();
  });
  const stop = (): void => clearTimeout(timer);
  socket.once('close', stop);
  return stop;
}

/**
 * Ends a raw connection after its last words (an HTTP status line, a JSON line), as Apache's
 * lingering close does: the write side closes at once, what the peer still sends is read and
 * dropped for a bounded time, then the socket is destroyed. Destroying it at once with unread bytes
 * makes the kernel answer with a reset, and a reset can discard the answer before the peer reads
 * it; waiting for the peer's own close instead would let a peer that never closes keep the socket.
 */
export function lingeringClose(socket: Duplex, last?: string): void {
  if (closing.has(socket)) return;
  closing.add(socket);
  if (socket.destroyed) return;
  socket.on('error', () => socket.destroy());
  bounded(socket, (onChunk) => socket.on('data', (chunk: Buffer) => onChunk(chunk.length)));
  // The peer's end means it read what it wanted: nothing is left to linger for.
  socket.once('end', () => socket.destroy());
  socket.resume();
  socket.end(last);
}

/**
 * Drops the rest of a request body that was refused (413) while its answer goes out: the
 * connection reads on, so the peer can finish sending and read the answer, and stays usable when
 * the body ends; a peer that sends more than LINGER_BYTES, or for longer than LINGER_MS, has its
 * connection destroyed. Call before answering.
 */
export function discardBody(req: IncomingMessage): void {
  const socket = req.socket;
  if (req.complete || socket.destroyed) return;
  const stop = bounded(socket, (onChunk) => req.on('data', (chunk: Buffer) => onChunk(chunk.length)));
  req.once('end', stop);
  req.resume();
}
