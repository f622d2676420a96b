import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Compares a presented token with the real one in constant time. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer token of a request, if any. */
export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') === true ? h.slice(7).trim() : undefined;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * DNS-rebinding protection: the Host header must name a loopback host on our port, and an Origin,
 * when present, must be one of ours. A page on another site can then never reach the server.
 */
export function sameOrigin(req: IncomingMessage, port: number): { ok: true } | { ok: false; why: string } {
  const host = req.headers.host ?? '';
  const allowedHosts = LOOPBACK_HOSTS.map((h) => `${h}:${port}`);
  if (!allowedHosts.includes(host)) return { ok: false, why: `host ${JSON.stringify(host)} is not this loopback server` };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null' && !allowedHosts.some((h) => origin === `http://${h}`))
    return { ok: false, why: `origin ${JSON.stringify(origin)} is not allowed` };
  if (origin === 'null') return { ok: false, why: 'an opaque origin is not allowed' };
  return { ok: true };
}

/** Stricter than sameOrigin, for the UI channel: an Origin must be present and be this server's own. */
export function exactOrigin(req: IncomingMessage, port: number): boolean {
  if (!sameOrigin(req, port).ok) return false;
  const origin = req.headers.origin;
  return origin !== undefined && LOOPBACK_HOSTS.some((h) => origin === `http://${h}:${port}`);
}
