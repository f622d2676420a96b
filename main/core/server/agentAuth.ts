import type { GrantIdentity, GrantStore } from '../grants/grantStore.js';
import type { SettingsStore } from '../settings/settingsStore.js';
import { tokenMatches } from './auth.js';

/** Who a credential says an agent is: a grant the person approved, or the shared token (docs/agents.md#the-shared-token). */
export type AgentCredential = { kind: 'grant'; grant: GrantIdentity } | { kind: 'shared' };

/** What checking an agent's credential needs: the shared token, whether it still opens anything, and the grants. */
export interface AgentCredentials {
  token: string;
  /** Whether the person keeps the shared token as a fallback (Settings → Agents). */
  sharedToken: () => boolean;
  grants?: Pick<GrantStore, 'verify'> | undefined;
}

/** The credentials a supervisor takes from agents, over HTTP and the bridge alike: its grants, and the shared token while the person keeps it. */
export function hostCredentials(token: string, host: { settings: Pick<SettingsStore, 'settings'>; grants: Pick<GrantStore, 'verify'> }): AgentCredentials {
  return { token, sharedToken: () => host.settings.settings.shared_token, grants: host.grants };
}

/**
 * Whose credential this is: a grant's access token or stdio credential, or — while the person keeps
 * it on — the shared token; undefined when it opens nothing (unknown, expired, revoked, or the
 * shared token turned off). Checked on every request, so a revoked grant is refused at once.
 */
export function agentCredential(presented: string | undefined, credentials: AgentCredentials): AgentCredential | undefined {
  if (presented === undefined) return undefined;
  const grant = credentials.grants?.verify(presented);
  if (grant !== undefined) return { kind: 'grant', grant };
  if (credentials.sharedToken() && tokenMatches(presented, credentials.token)) return { kind: 'shared' };
  return undefined;
}

/** Whether a credential may drive a session: the grant that opened it, or the shared token for a session it opened. */
export function credentialOwns(credential: AgentCredential, grant: { id: string } | undefined): boolean {
  return credential.kind === 'grant' ? grant?.id === credential.grant.id : grant === undefined;
}
