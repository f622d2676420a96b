// Overseer as the authorization server of its own MCP endpoint (docs/agents.md#the-authorization-flow):
// protected resource metadata (RFC 9728), authorization server metadata (RFC 8414), dynamic client
// registration (RFC 7591), client ID metadata documents, the authorization code with PKCE (S256
// only) whose consent is a card in the person's UI, and short-lived access tokens with rotating
// refresh tokens. Plain node:http beside the rest of the server; the SDK's schemas check what
// clients send and type what is answered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  OAuthClientMetadataSchema,
  type OAuthClientInformationFull,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { GrantRequestInfo } from '../../../protocol/index.js';
import { AuthorizationCodes, validChallenge } from '../grants/authCodes.js';
import type { GrantDecision } from '../grants/consentCard.js';
import { ClientMetadataDocuments, redirectAllowed, type ClientInfo } from '../grants/clientMetadata.js';
import type { GrantStore } from '../grants/grantStore.js';
import { agentName } from '../session/agentSession.js';
import { htmlPage } from './htmlPage.js';
import { discardBody } from './lingeringClose.js';

/** The one scope: the MCP endpoint, with every call still waiting for the person as it does for any agent. */
export const MCP_SCOPE = 'mcp';
/** Path of the protected resource metadata of `/mcp` (RFC 9728 §3.1: the well-known prefix, then the resource's path). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';
const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';
const AUTHORIZE_PATH = '/oauth/authorize';
const TOKEN_PATH = '/oauth/token';
const REGISTER_PATH = '/oauth/register';
const REVOKE_PATH = '/oauth/revoke';
/** Largest body of a registration, token or revocation request. */
const MAX_FORM = 16 * 1024;

/** What the authorization endpoints need of the supervisor. */
export interface GrantHost {
  readonly grants: GrantStore;
  /** Shows an agent_grant card and waits for the person (the signal withdraws it). */
  askGrant(request: GrantRequestInfo, signal: AbortSignal): Promise<GrantDecision>;
}

/** This server's origin as the client reached it (the Host header, already checked to be loopback and ours). */
export function originOf(req: IncomingMessage): string {
  return `http://${req.headers.host ?? '127.0.0.1'}`;
}

/** The `WWW-Authenticate` challenge of a refused `/mcp` request (RFC 9728 §5.1): where to learn how to get a token. */
export function bearerChallenge(req: IncomingMessage, presented: boolean): string {
  const error = presented ? ', error="invalid_token", error_description="the token is unknown, expired or revoked"' : '';
  return `Bearer resource_metadata="${originOf(req)}${RESOURCE_METADATA_PATH}", scope="${MCP_SCOPE}"${error}`;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...headers });
  res.end(JSON.stringify(body));
};
const oauthError = (res: ServerResponse, status: number, error: string, description: string): void =>
  json(res, status, { error, error_description: description });

/** A request body of at most MAX_FORM bytes, or undefined when it is longer or cut off. */
function smallBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM) {
        discardBody(req);
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(size > MAX_FORM ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.once('error', () => resolve(undefined));
  });
}

/** The host a redirect URI sends the person's browser back to, as the card and Settings → Agents name it. */
export function redirectHost(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host !== '' ? `${url.protocol}//${url.host}` : url.protocol;
  } catch {
    return '';
  }
}

/** The authorization server's endpoints; `handle` answers the paths it owns and says whether it did. */
export function oauthHttp(
  host: GrantHost,
  options: { log: (line: string) => void; metadata?: ClientMetadataDocuments },
): { handle(url: URL, req: IncomingMessage, res: ServerResponse): boolean } {
  const codes = new AuthorizationCodes();
  const documents = options.metadata ?? new ClientMetadataDocuments();

  const resourceMetadata = (req: IncomingMessage, res: ServerResponse): void => {
    const origin = originOf(req);
    const body: OAuthProtectedResourceMetadata = {
      resource: `${origin}/mcp`,
      authorization_servers: [origin],
      bearer_methods_supported: ['header'],
      scopes_supported: [MCP_SCOPE],
      resource_name: 'Overseer',
    };
    json(res, 200, body);
  };

  const serverMetadata = (req: IncomingMessage, res: ServerResponse): void => {
    const origin = originOf(req);
    const body: OAuthMetadata & { client_id_metadata_document_supported: boolean } = {
      issuer: origin,
      authorization_endpoint: `${origin}${AUTHORIZE_PATH}`,
      token_endpoint: `${origin}${TOKEN_PATH}`,
      registration_endpoint: `${origin}${REGISTER_PATH}`,
      revocation_endpoint: `${origin}${REVOKE_PATH}`,
      scopes_supported: [MCP_SCOPE],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
    };
    json(res, 200, body);
  };

  const register = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await smallBody(req);
    if (text === undefined) return oauthError(res, 400, 'invalid_client_metadata', `the registration must be JSON of at most ${MAX_FORM} bytes`);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return oauthError(res, 400, 'invalid_client_metadata', 'the registration is not JSON');
    }
    const parsed = OAuthClientMetadataSchema.safeParse(raw);
    if (!parsed.success) return oauthError(res, 400, 'invalid_client_metadata', 'the registration is not valid client metadata (RFC 7591)');
    const meta = parsed.data;
    const redirects = meta.redirect_uris.map(String);
    if (redirects.length === 0 || redirects.length > 10) return oauthError(res, 400, 'invalid_redirect_uri', 'give 1 to 10 redirect_uris');
    const bad = redirects.find((u) => !redirectAllowed(u) || u.length > 2000);
    if (bad !== undefined)
      return oauthError(
        res,
        400,
        'invalid_redirect_uri',
        `${bad.slice(0, 200)} is not allowed: https, http to a loopback host, or an application's own scheme`,
      );
    if (meta.token_endpoint_auth_method !== undefined && meta.token_endpoint_auth_method !== 'none')
      return oauthError(res, 400, 'invalid_client_metadata', 'only public clients (token_endpoint_auth_method none) are supported');
    const client = host.grants.register({
      redirect_uris: redirects,
      ...(meta.client_name !== undefined ? { client_name: meta.client_name.slice(0, 200) } : {}),
      ...(meta.client_uri !== undefined ? { client_uri: String(meta.client_uri).slice(0, 2000) } : {}),
    });
    const body: OAuthClientInformationFull = {
      client_id: client.client_id,
      client_id_issued_at: Math.floor(Date.parse(client.registered_at) / 1000),
      redirect_uris: client.redirect_uris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(client.client_name !== undefined ? { client_name: client.client_name } : {}),
      ...(client.client_uri !== undefined ? { client_uri: client.client_uri } : {}),
    };
    json(res, 201, body);
  };

  const findClient = async (clientId: string): Promise<{ ok: true; client: ClientInfo } | { ok: false; why: string }> => {
    const registered = host.grants.client(clientId);
    if (registered !== undefined)
      return {
        ok: true,
        client: {
          client_id: registered.client_id,
          redirect_uris: registered.redirect_uris,
          ...(registered.client_name !== undefined ? { client_name: registered.client_name } : {}),
          ...(registered.client_uri !== undefined ? { client_uri: registered.client_uri } : {}),
        },
      };
    return documents.resolve(clientId);
  };

  const authorize = async (url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const q = url.searchParams;
    const clientId = q.get('client_id') ?? '';
    const redirectUri = q.get('redirect_uri') ?? '';
    const refuse = (why: string): void => htmlPage(res, 400, 'Overseer cannot authorize this client', `<p>${escapeHtml(why)}</p>`);
    if (clientId === '' || clientId.length > 2000) return refuse('The request names no client (client_id).');
    const found = await findClient(clientId);
    if (!found.ok) return refuse(`The client is not known: ${found.why}.`);
    const client = found.client;
    // Until the redirect URI is known to be the client's own, nothing is sent to it (RFC 6749 §4.1.2.1).
    if (!client.redirect_uris.includes(redirectUri)) return refuse('The redirect_uri is not one the client registered.');
    const back = (params: Record<string, string>): void => {
      const target = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
      const state = q.get('state');
      if (state !== null) target.searchParams.set('state', state);
      target.searchParams.set('iss', originOf(req));
      if (res.headersSent || res.destroyed) return;
      res.writeHead(302, { location: target.toString(), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end();
    };
    if (q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type', error_description: 'only response_type=code' });
    const challenge = q.get('code_challenge') ?? '';
    if (q.get('code_challenge_method') !== 'S256' || !validChallenge(challenge))
      return back({ error: 'invalid_request', error_description: 'PKCE is required: code_challenge with code_challenge_method=S256' });
    const resource = q.get('resource');
    if (resource !== null && resource.replace(/\/$/, '') !== `${originOf(req)}/mcp`)
      return back({ error: 'invalid_target', error_description: `this server's only resource is ${originOf(req)}/mcp` });
    const scope = q.get('scope');
    if (scope !== null && scope.split(' ').some((s) => s !== '' && s !== MCP_SCOPE))
      return back({ error: 'invalid_scope', error_description: `the only scope is ${MCP_SCOPE}` });
    if (host.grants.full)
      return back({
        error: 'temporarily_unavailable',
        error_description: 'the person has as many agents granted as Overseer keeps; they can revoke one in Settings → Agents',
      });
    const claimed = agentName(client.client_name, 'an unnamed client');
    const request: GrantRequestInfo = {
      claimed_name: claimed.slice(0, 200),
      kind: 'oauth',
      client_id: clientId,
      redirect_uri: redirectUri.slice(0, 2000),
      ...(client.client_uri !== undefined ? { client_uri: client.client_uri.slice(0, 2000) } : {}),
      asks: 'Its own credential for Overseer’s MCP endpoint: to connect as itself; every action still waits for your approval.',
      grant_name: host.grants.uniqueName(claimed).slice(0, 120),
    };
    // The person's browser (or the client's) waits on this request while the card is shown; a closed request withdraws it.
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const decision = await host.askGrant(request, abort.signal);
    if (abort.signal.aborted) return;
    if (!decision.approved) return back({ error: 'access_denied', error_description: decision.why.slice(0, 300) });
    const grant = host.grants.create({ name: request.grant_name, kind: 'oauth', client_id: clientId, redirect_host: redirectHost(redirectUri) });
    options.log(`[oauth] the person granted ${grant.name} (${grant.id}) to client ${clientId.slice(0, 200)}`);
    back({ code: codes.issue(grant.id, clientId, redirectUri, challenge) });
  };

  const token = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await smallBody(req);
    if (text === undefined) return oauthError(res, 400, 'invalid_request', `the token request must be a form of at most ${MAX_FORM} bytes`);
    if (req.headers.authorization !== undefined)
      return oauthError(res, 401, 'invalid_client', 'clients here are public: send client_id in the form, no client authentication');
    const form = new URLSearchParams(text);
    const clientId = form.get('client_id') ?? '';
    if (clientId === '') return oauthError(res, 401, 'invalid_client', 'client_id is required');
    const answer = (issued: ReturnType<GrantStore['issueTokens']>): void => {
      if (issued === undefined) return oauthError(res, 400, 'invalid_grant', 'the grant was revoked');
      const body: OAuthTokens = { ...issued, token_type: 'Bearer', scope: MCP_SCOPE };
      json(res, 200, body);
    };
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const redeemed = codes.redeem(form.get('code') ?? '', clientId, form.get('redirect_uri') ?? undefined, form.get('code_verifier') ?? '');
      if ('error' in redeemed) return oauthError(res, 400, redeemed.error, redeemed.why);
      return answer(host.grants.issueTokens(redeemed.grant));
    }
    if (grantType === 'refresh_token') {
      const issued = host.grants.refresh(form.get('refresh_token') ?? '', clientId);
      if (issued === undefined)
        return oauthError(res, 400, 'invalid_grant', 'the refresh token is unknown, spent, expired, another client’s, or its grant was revoked');
      return answer(issued);
    }
    oauthError(res, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  };

  const revoke = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await smallBody(req);
    if (text === undefined) return oauthError(res, 400, 'invalid_request', `the revocation must be a form of at most ${MAX_FORM} bytes`);
    const presented = new URLSearchParams(text).get('token');
    if (presented !== null && presented.length <= 200) host.grants.revokeToken(presented);
    // RFC 7009 §2.2: an unknown token is answered 200 too.
    json(res, 200, {});
  };

  const fail = (what: string, res: ServerResponse) => (error: unknown) => {
    options.log(`[oauth] ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    oauthError(res, 500, 'server_error', 'internal error; it was logged');
  };

  return {
    handle(url, req, res) {
      const path = url.pathname;
      if (path === '/.well-known/oauth-protected-resource' || path === RESOURCE_METADATA_PATH) {
        if (req.method !== 'GET') json(res, 405, { error: 'GET only' });
        else resourceMetadata(req, res);
        return true;
      }
      if (path === AS_METADATA_PATH || path.startsWith(`${AS_METADATA_PATH}/`)) {
        if (req.method !== 'GET') json(res, 405, { error: 'GET only' });
        else serverMetadata(req, res);
        return true;
      }
      const post = (run: () => Promise<void>): true => {
        if (req.method !== 'POST') {
          discardBody(req);
          json(res, 405, { error: 'POST only' });
        } else run().catch(fail(path, res));
        return true;
      };
      if (path === REGISTER_PATH) return post(() => register(req, res));
      if (path === TOKEN_PATH) return post(() => token(req, res));
      if (path === REVOKE_PATH) return post(() => revoke(req, res));
      if (path === AUTHORIZE_PATH) {
        if (req.method !== 'GET') json(res, 405, { error: 'GET only' });
        else authorize(url, req, res).catch(fail(path, res));
        return true;
      }
      return false;
    },
  };
}

/** Text for an HTML page: what a client wrote is shown, never run. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
