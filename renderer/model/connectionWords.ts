// How the UI names where something acts (docs/supervision.md#where-an-action-lands): the connection's name and host or
// URL, said only when it is not this desktop, so that a remote card stands out from local ones.
import { LOCAL_CONNECTION_NAME, unreachable, type ConnectionInfo, type ConnectionRef, type PendingApproval } from '../../protocol/index.js';

/** Whether a card, receipt or agent acts somewhere other than this desktop (absent means local). */
export function isRemote(ref: Pick<ConnectionRef, 'name' | 'kind'> | undefined): ref is ConnectionRef {
  return ref !== undefined && (ref.kind !== 'local' || ref.name !== LOCAL_CONNECTION_NAME);
}

/** The connection a card acts on (a card made before connections acts here). */
export function cardConnectionName(card: Pick<PendingApproval, 'connection'>): string {
  return card.connection?.name ?? LOCAL_CONNECTION_NAME;
}

/** A kind of connection as people read it. */
export function kindWords(kind: ConnectionRef['kind']): string {
  return kind === 'ssh' ? 'SSH' : kind === 'osworld_http' ? 'OSWorld VM' : 'this desktop';
}

/** One line naming where: `lab (SSH, ann@lab.example:2222)`. */
export function whereLine(ref: ConnectionRef): string {
  return `${ref.name} (${kindWords(ref.kind)}, ${ref.where})`;
}

/**
 * Whether a card may be approved together with a session rule: a rule binds an application or an
 * element, and a shell command or a new connection has neither, so each of those is decided alone.
 */
export function mayAllowForSession(card: PendingApproval): boolean {
  switch (card.kind) {
    case 'element':
    case 'screen':
      return true;
    // A question or handoff has no approve, so no rule either (docs/supervision.md#questions-and-handoffs).
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
    case 'question':
    case 'handoff':
      return false;
    default:
      return unreachable(card);
  }
}

/** The connection an agent acts on, from the list (undefined when the list does not name it: shown as its bare name). */
export function agentConnection(list: readonly ConnectionInfo[], name: string | undefined): ConnectionInfo | undefined {
  return list.find((c) => c.name === (name ?? LOCAL_CONNECTION_NAME));
}

/** How long a check stays news: past this, the status is what was found then, not what is true now. */
export const STATUS_FRESH_MS = 5 * 60_000;

/**
 * A connection's status in words, and when it was checked. A check older than STATUS_FRESH_MS is
 * said as the past it is ("was down 67 min ago; not checked since"), never as the state now.
 */
export function statusWords(c: ConnectionInfo, now: number): string {
  if (!c.enabled) return 'disabled';
  if (c.status !== 'up' && c.status !== 'down') return 'not checked yet';
  if (c.checked_at === undefined) return c.status;
  const age = now - Date.parse(c.checked_at);
  if (age > STATUS_FRESH_MS) return `was ${c.status} ${ago(age)}; not checked since — Test checks now`;
  return `${c.status}, checked ${ago(age)}`;
}

function ago(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'just now';
  const s = Math.round(ms / 1000);
  if (s < 5) return 'just now';
  if (s < 90) return `${s} s ago`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min ago`;
  return `${Math.round(m / 60)} h ago`;
}

/**
 * The desktop a session rule covers, as people read it: "this desktop" for local, else the
 * connection's name, and which one of that name when it was removed and added again (`box~2`).
 */
export function ruleDesktopWords(connection: string): string {
  if (connection === 'local') return 'this desktop';
  const [name, n] = connection.split('~');
  return n === undefined ? `the connection ${name}` : `the connection ${name} (its ${ordinal(Number(n))} entry of that name)`;
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}
