import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { tokenMatches } from './auth.js';

/** Path of the pairing link (`/pair?code=…`). */
export const PAIR_PATH = '/pair';
/** How long a pairing link made from the UI stays valid. */
export const PAIR_LINK_TTL_MS = 5 * 60_000;
/** Most pairing codes outstanding at once (the oldest is dropped). */
const MAX_CODES = 8;
/** How long the browser keeps the UI cookie. */
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

/** The cookies of a request, by name (first wins). */
function cookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/**
 * The person's credential in browser mode (docs/security.md): the UI secret never appears in a
 * URL, a log or anything an agent is given. `overseer serve` prints a one-time pairing link; the
 * browser that opens it gets the secret as an HttpOnly, SameSite=Strict cookie and is sent on to a
 * clean `/`. A signed-in UI can make another one-time link for a second browser.
 */
export class UiAuth {
  private readonly codes = new Map<string, number>();

  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh one-time pairing code, valid for `ttlMs` (the startup link: until used). */
  issueCode(ttlMs = Number.POSITIVE_INFINITY): { code: string; expiresAt: number } {
    const code = randomBytes(18).toString('base64url');
    const expiresAt = this.now() + ttlMs;
    this.codes.set(code, expiresAt);
    while (this.codes.size > MAX_CODES) {
      const oldest = this.codes.keys().next().value;
      if (oldest === undefined) break;
      this.codes.delete(oldest);
    }
    return { code, expiresAt };
  }

  /** Spends a pairing code; true once for a valid, unexpired code. */
  redeem(code: string | null | undefined): boolean {
    if (typeof code !== 'string' || code.length === 0 || code.length > 100) return false;
    const t = this.now();
    for (const [c, expiresAt] of this.codes) {
      if (expiresAt <= t) {
        this.codes.delete(c);
        continue;
      }
      if (tokenMatches(code, c)) {
        this.codes.delete(c);
        return true;
      }
    }
    return false;
  }

  /** The cookie's name: per port, because browsers send a host's cookies to every port of it. */
  cookieName(port: number): string {
    return `overseer_ui_${port}`;
  }

  /** The Set-Cookie header that signs a browser in. */
  setCookie(port: number): string {
    return `${this.cookieName(port)}=${this.secret}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${COOKIE_MAX_AGE_S}`;
  }

  /** True when the request carries the UI secret in its cookie (never a bearer token, never a query). */
  signedIn(req: IncomingMessage, port: number): boolean {
    return tokenMatches(cookies(req).get(this.cookieName(port)), this.secret);
  }
}
