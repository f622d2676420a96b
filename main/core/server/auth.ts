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

/** What sameOrigin says of a request that is not ours: why, and whether it came from a page on another loopback port. */
export interface ForeignOrigin {
  ok: false;
  why: string;
  /**
   * The Host is this server and the Origin is another loopback origin (`http://localhost:6274`, a
   * browser-based MCP client): a page on this machine, not a rebound name. `/mcp` asks it for the
   * agent credential first (docs/security.md#listeners-and-files).
   */
  loopbackPage: boolean;
}

/** An Origin naming a loopback host, on any port (`http://localhost`, `http://127.0.0.1:6274`). */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && url.origin === origin && LOOPBACK_HOSTS.includes(url.hostname);
}

/**
 * DNS-rebinding protection: the Host header must name a loopback host on our port, and an Origin,
 * when present, must be one of ours. A page on another site can then never reach the server.
 */
export function sameOrigin(req: IncomingMessage, port: number): { ok: true } | ForeignOrigin {
  const host = req.headers.host ?? '';
  const allowedHosts = LOOPBACK_HOSTS.map((h) => `${h}:${port}`);
  if (!allowedHosts.includes(host)) return { ok: false, why: `host ${JSON.stringify(host)} is not this loopback server`, loopbackPage: false };
  const origin = req.headers.origin;
  if (origin === 'null') return { ok: false, why: 'an opaque origin is not allowed', loopbackPage: false };
  if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`))
    return { ok: false, why: `origin ${JSON.stringify(origin)} is not allowed`, loopbackPage: isLoopbackOrigin(origin) };
  return { ok: true };
}

/** Stricter than sameOrigin, for the UI channel: an Origin must be present and be this server's own. */
export function exactOrigin(req: IncomingMessage, port: number): boolean {
  if (!sameOrigin(req, port).ok) return false;
  const origin = req.headers.origin;
  return origin !== undefined && LOOPBACK_HOSTS.some((h) => origin === `http://${h}:${port}`);
}
