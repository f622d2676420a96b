// Who a client says it is (docs/agents.md#clients): a registration of ours (RFC 7591), or a client
// ID metadata document — a client_id that is an https URL whose document names the client and its
// redirect URIs. Everything in either is the client's own claim, shown to the person as such.
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';

/** A client as the authorize endpoint knows it. */
export interface ClientInfo {
  client_id: string;
  client_name?: string;
  client_uri?: string;
  redirect_uris: string[];
}

/** Largest metadata document read. */
export const MAX_METADATA_BYTES = 5 * 1024;
/** How long fetching a metadata document may take. */
const FETCH_TIMEOUT_MS = 5000;
/** How long a fetched document is reused. */
const CACHE_MS = 5 * 60_000;
/** Most documents kept. */
const MAX_CACHED = 32;

const BLOCKED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'ws:', 'wss:']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A redirect URI an authorization may go back to (OAuth 2.1 §7.5): absolute, no fragment, https
 * anywhere, plain http only to a loopback host (where a native client listens), or a private
 * scheme of an application (`cursor://…`); never a scheme that runs or reads something itself.
 */
export function redirectAllowed(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash !== '' || uri.includes('#')) return false;
  if (BLOCKED_SCHEMES.has(url.protocol)) return false;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname);
  return url.protocol === 'https:' || /^[a-z][a-z0-9+.-]*:$/.test(url.protocol);
}

/** Whether a client_id names a metadata document: an https URL with a path, no fragment, no credentials, no dot segments. */
export function isMetadataDocumentId(clientId: string): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  return (
    url.protocol === 'https:' &&
    url.pathname !== '/' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === '' &&
    !/\/\.\.?(\/|$)/.test(clientId.slice(url.origin.length))
  );
}

/** What a metadata document said, or why it cannot be used. */
export type MetadataResult = { ok: true; client: ClientInfo } | { ok: false; why: string };

/** Fetches and checks client ID metadata documents, keeping a few for a while. */
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, { result: MetadataResult; until: number }>();

  constructor(
    private readonly fetchFn: typeof fetch = fetch,
    private readonly now: () => number = Date.now,
  ) {}

  /** The client a metadata document describes (its client_id must be the document's own URL). */
  async resolve(clientId: string): Promise<MetadataResult> {
    const cached = this.cache.get(clientId);
    if (cached !== undefined && cached.until > this.now()) return cached.result;
    const result = await this.fetchDocument(clientId);
    this.cache.set(clientId, { result, until: this.now() + (result.ok ? CACHE_MS : 10_000) });
    while (this.cache.size > MAX_CACHED) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
    return result;
  }

  private async fetchDocument(clientId: string): Promise<MetadataResult> {
    if (!isMetadataDocumentId(clientId)) return { ok: false, why: 'client_id is neither registered here nor an https URL of a client metadata document' };
    let text: string;
    try {
      const res = await this.fetchFn(clientId, { redirect: 'error', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) return { ok: false, why: `its metadata document answered HTTP ${res.status}` };
      text = await boundedText(res, MAX_METADATA_BYTES);
    } catch (error) {
      return { ok: false, why: `its metadata document could not be fetched (${error instanceof Error ? error.message.slice(0, 200) : String(error)})` };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, why: 'its metadata document is not JSON' };
    }
    const raw = json as Record<string, unknown>;
    if (typeof raw !== 'object' || raw === null || raw['client_id'] !== clientId)
      return { ok: false, why: 'its metadata document does not name its own URL as client_id' };
    if ('client_secret' in raw || 'client_secret_expires_at' in raw) return { ok: false, why: 'a metadata document may not carry a client secret' };
    const parsed = OAuthClientMetadataSchema.safeParse(json);
    if (!parsed.success) return { ok: false, why: 'its metadata document is not valid client metadata' };
    const doc = parsed.data;
    if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== 'none')
      return { ok: false, why: `token_endpoint_auth_method ${doc.token_endpoint_auth_method} is not supported: Overseer's clients are public (none)` };
    const redirects = doc.redirect_uris.map(String);
    if (redirects.length === 0 || !redirects.every(redirectAllowed))
      return { ok: false, why: 'its metadata document lists a redirect URI that is not allowed' };
    return {
      ok: true,
      client: {
        client_id: clientId,
        redirect_uris: redirects,
        ...(doc.client_name !== undefined ? { client_name: doc.client_name } : {}),
        ...(doc.client_uri !== undefined ? { client_uri: String(doc.client_uri) } : {}),
      },
    };
  }
}

/** A response's body as text, refused past `max` bytes (read in chunks, so a long body is cut off, not held). */
async function boundedText(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) throw new Error(`larger than ${max} bytes`);
  if (res.body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > max) throw new Error(`larger than ${max} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
