// The person's grants to agents (docs/agents.md#grants), kept in DATA_DIR/grants.json (0600):
// each grant is one agent identity. Only hashes of its refresh tokens and stdio credential are
// written; access tokens and authorization codes live in memory (a restart makes clients refresh).
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentGrant } from '../../../protocol/index.js';

/** How long an access token is good for: short, so a revoked grant's copies die soon even where they are not checked. */
export const ACCESS_TOKEN_TTL_S = 15 * 60;
/** How long a refresh token is good for (each use replaces it). */
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
/** Most live grants; past it a new one is refused until the person revokes one. */
export const MAX_GRANTS = 64;
/** Most registered clients kept (dynamic registration is open to any local process): the oldest without a grant go first. */
export const MAX_CLIENTS = 128;

/** Who a credential belongs to: a grant, as the person approved it. */
export interface GrantIdentity {
  id: string;
  name: string;
}

/** A client registered with RFC 7591 dynamic client registration. */
export const RegisteredClient = z.object({
  client_id: z.string(),
  client_name: z.string().max(200).optional(),
  client_uri: z.string().max(2000).optional(),
  redirect_uris: z.array(z.string().max(2000)).min(1).max(10),
  registered_at: z.string(),
});
export type RegisteredClient = z.infer<typeof RegisteredClient>;

const StoredGrant = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['oauth', 'stdio']),
  client_id: z.string(),
  redirect_host: z.string(),
  granted_at: z.string(),
  last_used: z.string().optional(),
  /** sha256 of each refresh token still good, with its expiry (epoch ms). */
  refresh: z.array(z.object({ hash: z.string(), expires: z.number() })),
  /** sha256 of the stdio credential. */
  credential: z.string().optional(),
});
type StoredGrant = z.infer<typeof StoredGrant>;

const Stored = z.object({ clients: z.array(RegisteredClient), grants: z.array(StoredGrant) });

const sha256 = (s: string): string => createHash('sha256').update(s).digest('base64url');
const secret = (prefix: string): string => `${prefix}${randomBytes(32).toString('base64url')}`;

/** A token pair as the token endpoint answers it. */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

/** What a new grant is made of. */
export interface NewGrant {
  name: string;
  kind: 'oauth' | 'stdio';
  client_id: string;
  redirect_host: string;
}

/**
 * The grants, their credentials and the registered clients. Every check of a credential is a
 * lookup by its hash, so nothing compares a secret byte by byte.
 */
export class GrantStore {
  private clients: RegisteredClient[] = [];
  private grants = new Map<string, StoredGrant>();
  private readonly access = new Map<string, { grant: string; expires: number }>();
  private readonly revokedListeners = new Set<(id: string) => void>();
  private readonly changeListeners = new Set<() => void>();
  private saving: Promise<void> = Promise.resolve();
  private lastUseSaved = 0;

  constructor(
    private readonly dataDir: string | undefined,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  private get path(): string | undefined {
    return this.dataDir === undefined ? undefined : join(this.dataDir, 'grants.json');
  }

  /** Loads grants.json; a missing file means none, a broken one is logged and set aside (never silently re-granted). */
  async load(): Promise<void> {
    const path = this.path;
    if (path === undefined) return;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return;
    }
    try {
      const stored = Stored.parse(JSON.parse(text));
      this.clients = stored.clients;
      this.grants = new Map(stored.grants.map((g) => [g.id, g]));
    } catch (error) {
      this.log(`[grants] ${path} is not valid (${error instanceof Error ? error.message.slice(0, 200) : String(error)}); starting with no grants`);
      await rename(path, `${path}.invalid`).catch(() => {});
    }
  }

  /** Calls `listener` with a grant's id when it is revoked: its sessions end at once. */
  onRevoked(listener: (id: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /** Calls `listener` when the list of grants or a grant's last use changed. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Registers a client (RFC 7591); the oldest registrations without a grant make room. */
  register(client: Omit<RegisteredClient, 'client_id' | 'registered_at'>): RegisteredClient {
    const registered: RegisteredClient = {
      ...client,
      client_id: `C${randomBytes(12).toString('base64url')}`,
      registered_at: new Date(this.now()).toISOString(),
    };
    this.clients.push(registered);
    while (this.clients.length > MAX_CLIENTS) {
      const granted = new Set([...this.grants.values()].map((g) => g.client_id));
      const drop = this.clients.findIndex((c) => !granted.has(c.client_id));
      this.clients.splice(drop >= 0 ? drop : 0, 1);
    }
    this.save();
    return registered;
  }

  /** A registered client by its id. */
  client(clientId: string): RegisteredClient | undefined {
    return this.clients.find((c) => c.client_id === clientId);
  }

  /** The name a new grant gets: the one asked for, numbered when a live grant has it already, so two agents never look alike. */
  uniqueName(wanted: string): string {
    const taken = new Set([...this.grants.values()].map((g) => g.name.toLowerCase()));
    if (!taken.has(wanted.toLowerCase())) return wanted;
    for (let n = 2; ; n++) if (!taken.has(`${wanted} (${n})`.toLowerCase())) return `${wanted} (${n})`;
  }

  /** True when no more grants may be made now. */
  get full(): boolean {
    return this.grants.size >= MAX_GRANTS;
  }

  /** Makes a grant the person approved. */
  create(grant: NewGrant): GrantIdentity {
    const stored: StoredGrant = {
      ...grant,
      name: this.uniqueName(grant.name),
      id: `G${randomBytes(6).toString('base64url')}`,
      granted_at: new Date(this.now()).toISOString(),
      refresh: [],
    };
    this.grants.set(stored.id, stored);
    this.save();
    this.changed();
    return { id: stored.id, name: stored.name };
  }

  /** A fresh access and refresh token for a grant (the code exchange); undefined once it was revoked. */
  issueTokens(grantId: string): IssuedTokens | undefined {
    const grant = this.grants.get(grantId);
    if (grant === undefined) return undefined;
    const t = this.now();
    const access_token = secret('ovr_at_');
    const refresh_token = secret('ovr_rt_');
    this.access.set(sha256(access_token), { grant: grant.id, expires: t + ACCESS_TOKEN_TTL_S * 1000 });
    grant.refresh = grant.refresh.filter((r) => r.expires > t);
    grant.refresh.push({ hash: sha256(refresh_token), expires: t + REFRESH_TOKEN_TTL_S * 1000 });
    this.pruneAccess(t);
    this.save();
    return { access_token, refresh_token, expires_in: ACCESS_TOKEN_TTL_S };
  }

  /**
   * Spends a refresh token of this client for a new pair (rotation: the old one is good no more);
   * undefined when it is unknown, expired, spent, another client's, or its grant was revoked.
   */
  refresh(refreshToken: string, clientId: string): IssuedTokens | undefined {
    const hash = sha256(refreshToken);
    const t = this.now();
    for (const grant of this.grants.values()) {
      const i = grant.refresh.findIndex((r) => r.hash === hash);
      if (i < 0) continue;
      const entry = grant.refresh[i];
      grant.refresh.splice(i, 1);
      if (grant.client_id !== clientId || entry === undefined || entry.expires <= t) {
        this.save();
        return undefined;
      }
      return this.issueTokens(grant.id);
    }
    return undefined;
  }

  /** Makes (or replaces) the stdio credential of a grant: the one secret `overseer mcp` keeps in its file. */
  issueCredential(grantId: string): string | undefined {
    const grant = this.grants.get(grantId);
    if (grant === undefined) return undefined;
    const credential = secret('ovr_sc_');
    grant.credential = sha256(credential);
    this.save();
    return credential;
  }

  /** Whose credential this is (an access token or a stdio credential), noting its use; undefined when it opens nothing. */
  verify(presented: string | undefined): GrantIdentity | undefined {
    if (presented === undefined || presented.length > 200) return undefined;
    const hash = sha256(presented);
    const t = this.now();
    let grant: StoredGrant | undefined;
    if (presented.startsWith('ovr_at_')) {
      const token = this.access.get(hash);
      if (token === undefined) return undefined;
      if (token.expires <= t) {
        this.access.delete(hash);
        return undefined;
      }
      grant = this.grants.get(token.grant);
    } else if (presented.startsWith('ovr_sc_')) {
      grant = [...this.grants.values()].find((g) => g.credential === hash);
    }
    if (grant === undefined) return undefined;
    grant.last_used = new Date(t).toISOString();
    // Last use is written now and then, not on every request.
    if (t - this.lastUseSaved > 10_000) {
      this.lastUseSaved = t;
      this.save();
      this.changed();
    }
    return { id: grant.id, name: grant.name };
  }

  /** Revokes a grant: every token and credential of it is refused from now on, and its sessions are ended. False when there is none. */
  revoke(grantId: string): boolean {
    const grant = this.grants.get(grantId);
    if (grant === undefined) return false;
    this.grants.delete(grantId);
    for (const [hash, token] of this.access) if (token.grant === grantId) this.access.delete(hash);
    this.save();
    for (const l of this.revokedListeners) l(grantId);
    this.changed();
    return true;
  }

  /** The grant a refresh or access token belongs to, for RFC 7009 revocation of one token. */
  revokeToken(presented: string): void {
    const hash = sha256(presented);
    if (this.access.delete(hash)) return;
    for (const grant of this.grants.values()) {
      const before = grant.refresh.length;
      grant.refresh = grant.refresh.filter((r) => r.hash !== hash);
      if (grant.refresh.length !== before) this.save();
    }
  }

  /** The grants as Settings → Agents lists them, with the sessions each has open. */
  list(sessions: (grantId: string) => number): AgentGrant[] {
    return [...this.grants.values()].map((g) => ({
      id: g.id,
      name: g.name,
      kind: g.kind,
      client_id: g.client_id,
      redirect_host: g.redirect_host,
      granted_at: g.granted_at,
      ...(g.last_used !== undefined ? { last_used: g.last_used } : {}),
      sessions: sessions(g.id),
    }));
  }

  /** The grant's identity, while it stands. */
  identity(grantId: string): GrantIdentity | undefined {
    const g = this.grants.get(grantId);
    return g === undefined ? undefined : { id: g.id, name: g.name };
  }

  /** The client a grant was made for. */
  grantClient(grantId: string): string | undefined {
    return this.grants.get(grantId)?.client_id;
  }

  /** Waits until what was changed so far is on disk. */
  flush(): Promise<void> {
    return this.saving;
  }

  private pruneAccess(t: number): void {
    for (const [hash, token] of this.access) if (token.expires <= t) this.access.delete(hash);
  }

  private changed(): void {
    for (const l of this.changeListeners) l();
  }

  /** Writes grants.json to a fresh 0600 file renamed over the old one, one write after another. */
  private save(): void {
    const path = this.path;
    if (path === undefined) return;
    this.saving = this.saving.then(async () => {
      const text = JSON.stringify({ clients: this.clients, grants: [...this.grants.values()] }, null, 2);
      const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        const handle = await open(tmp, 'wx', 0o600);
        try {
          await handle.writeFile(text);
        } finally {
          await handle.close();
        }
        await rename(tmp, path);
      } catch (error) {
        await unlink(tmp).catch(() => {});
        this.log(`[grants] could not save ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }
}
