// Authorization codes and PKCE (docs/agents.md#the-authorization-flow): a code is good once, for
// 60 s, for the client, redirect URI and code challenge it was issued with; S256 is the only method.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long an authorization code may wait for its exchange. */
export const CODE_TTL_MS = 60_000;
/** Most codes outstanding at once (the oldest is dropped). */
const MAX_CODES = 64;

/** The S256 challenge of a PKCE code verifier (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** A code verifier as RFC 7636 §4.1 allows it: 43 to 128 unreserved characters. */
export function validVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier);
}

/** A code challenge as S256 makes it: 43 base64url characters. */
export function validChallenge(challenge: string): boolean {
  return /^[A-Za-z0-9\-_]{43}$/.test(challenge);
}

interface Code {
  grant: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  expires: number;
}

/** Why an exchange was refused, in the words of RFC 6749 §5.2. */
export type CodeRefusal = { error: 'invalid_grant'; why: string };

/** The outstanding authorization codes. */
export class AuthorizationCodes {
  private readonly codes = new Map<string, Code>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh code for a grant the person approved. */
  issue(grant: string, clientId: string, redirectUri: string, challenge: string): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, { grant, clientId, redirectUri, challenge, expires: this.now() + CODE_TTL_MS });
    while (this.codes.size > MAX_CODES) {
      const oldest = this.codes.keys().next().value;
      if (oldest === undefined) break;
      this.codes.delete(oldest);
    }
    return code;
  }

  /** Spends a code: the grant it was issued for, when client, redirect URI and verifier all match. */
  redeem(code: string, clientId: string, redirectUri: string | undefined, verifier: string): { grant: string } | CodeRefusal {
    const entry = this.codes.get(code);
    // Spent whatever happens next: a code is tried once.
    this.codes.delete(code);
    if (entry === undefined || entry.expires <= this.now()) return { error: 'invalid_grant', why: 'the code is unknown, spent or expired' };
    if (entry.clientId !== clientId) return { error: 'invalid_grant', why: 'the code was issued to another client' };
    if (redirectUri !== entry.redirectUri) return { error: 'invalid_grant', why: 'redirect_uri differs from the one the code was issued for' };
    if (!validVerifier(verifier)) return { error: 'invalid_grant', why: 'code_verifier must be 43 to 128 unreserved characters' };
    const a = Buffer.from(s256(verifier));
    const b = Buffer.from(entry.challenge);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { error: 'invalid_grant', why: 'code_verifier does not match the code_challenge' };
    return { grant: entry.grant };
  }
}
