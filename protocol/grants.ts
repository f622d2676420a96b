import { z } from 'zod';

/** The environment variable `overseer mcp` reads an agent's own credential from (docs/agents.md#stdio-agents). */
export const AGENT_CREDENTIAL_ENV = 'OVERSEER_AGENT_CREDENTIAL';

/**
 * An agent the person granted its own credential (docs/agents.md#grants): the identity cards,
 * receipts, the journal, rules and the fair share use for every session it opens.
 */
export const AgentGrant = z.object({
  /** The grant's id (`G…`): what the supervisor tells agents apart by. */
  id: z.string().max(40),
  /** The name as the person approved it (unique among live grants). */
  name: z.string().max(120),
  /** How the agent connects: the MCP authorization flow over HTTP, or `overseer mcp` with its own credential (AGENT_CREDENTIAL_ENV). */
  kind: z.enum(['oauth', 'stdio']),
  /** The client's id as it presented it (a registered `C…` id or its metadata document's https URL); empty for stdio. */
  client_id: z.string().max(2000),
  /** Where its authorization was sent back to (scheme and host of the redirect URI); empty for stdio. */
  redirect_host: z.string().max(300),
  granted_at: z.string(),
  /** When a request last carried its credential. */
  last_used: z.string().optional(),
  /** Its sessions open now. */
  sessions: z.number().int().min(0),
});
export type AgentGrant = z.infer<typeof AgentGrant>;

/** What an agent_grant card shows: who asks, in its own words (untrusted), and what it asks for. */
export const GrantRequestInfo = z.object({
  /** The name the client gives itself (client_name of its registration or metadata document, or the bridge's --name). */
  claimed_name: z.string().max(200),
  kind: z.enum(['oauth', 'stdio']),
  /** The client's id as presented (a registered id or an https URL). */
  client_id: z.string().max(2000),
  /** The redirect URI the authorization goes back to (its host is what the person checks). */
  redirect_uri: z.string().max(2000),
  /** Its metadata document's or registration's client_uri, when it gave one: its own claim. */
  client_uri: z.string().max(2000).optional(),
  /** What it asks for, in words. */
  asks: z.string().max(300),
  /** The name the grant gets when approved (the claimed name, made unique among live grants). */
  grant_name: z.string().max(120),
  /** For a stdio bridge: the process that asked, as the kernel confirms it (pid), when known. */
  host_pid: z.number().int().optional(),
});
export type GrantRequestInfo = z.infer<typeof GrantRequestInfo>;
