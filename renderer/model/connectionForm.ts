// The Settings → Connections add form (docs/supervision.md#where-an-action-lands): what the person typed, checked with the
// protocol's own schema before it is sent, each problem shown by the field it concerns.
import { ConnectionConfig, isPrivateUrl, type ConnectionKind } from '../../protocol/index.js';

/** The fields of the add form, as typed. */
export interface ConnectionDraft {
  kind: Exclude<ConnectionKind, 'local'>;
  name: string;
  host: string;
  user: string;
  port: string;
  ssh_config: string;
  display: string;
  bus: string;
  node: string;
  url: string;
  timeout_ms: string;
}

/** A field of the form. */
export type DraftField = Exclude<keyof ConnectionDraft, 'kind'>;

/** The fields each kind has, in the order the form shows them. */
export const DRAFT_FIELDS: Record<ConnectionDraft['kind'], DraftField[]> = {
  ssh: ['name', 'host', 'user', 'port', 'ssh_config', 'display', 'bus', 'node'],
  osworld_http: ['name', 'url', 'timeout_ms'],
};

/** An empty form of one kind. */
export function emptyDraft(kind: ConnectionDraft['kind'] = 'ssh'): ConnectionDraft {
  return { kind, name: '', host: '', user: '', port: '', ssh_config: '', display: '', bus: '', node: '', url: '', timeout_ms: '' };
}

const NUMERIC = new Set<DraftField>(['port', 'timeout_ms']);

/** What the form makes of a draft: the entry to send, or the problems by field. */
export type DraftResult = { ok: true; config: ConnectionConfig } | { ok: false; errors: Partial<Record<DraftField, string>> };

/**
 * Checks a draft with the registry's schema (enabled: a connection the person adds is on). An empty
 * optional field is left out; a number field that is not a whole number is refused as typed, never
 * rounded, so what is added is what the person wrote.
 */
export function parseDraft(draft: ConnectionDraft): DraftResult {
  const errors: Partial<Record<DraftField, string>> = {};
  const entry: Record<string, unknown> = { kind: draft.kind, enabled: true };
  for (const field of DRAFT_FIELDS[draft.kind]) {
    const raw = draft[field].trim();
    if (raw === '' && field !== 'name') continue;
    if (NUMERIC.has(field)) {
      if (!/^\d{1,9}$/.test(raw)) errors[field] = 'a whole number';
      else entry[field] = Number(raw);
    } else entry[field] = raw;
  }
  const parsed = ConnectionConfig.safeParse(entry);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (typeof field === 'string' && DRAFT_FIELDS[draft.kind].includes(field as DraftField)) errors[field as DraftField] ??= issue.message;
    }
  if (draft.kind === 'ssh' && draft.host.trim() === '') errors.host = 'a host is needed';
  if (draft.kind === 'osworld_http' && draft.url.trim() === '') errors.url = 'a URL is needed';
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors: Object.keys(errors).length > 0 ? errors : { name: 'not a valid entry' } };
  return { ok: true, config: parsed.data };
}

/**
 * The warning an OSWorld URL earns when it is neither loopback nor a private address: the VM's
 * server takes any pyautogui command without a credential, so whoever reaches that address drives it.
 */
export function publicUrlWarning(url: string): string | undefined {
  const u = url.trim();
  if (!/^https?:\/\/./i.test(u) || isPrivateUrl(u)) return undefined;
  return 'This address is neither this machine nor a private network. An OSWorld server runs any command it is sent, with no password: anyone who can reach this address can drive that desktop. Use it only for a VM you control, reached over a private network or a tunnel.';
}
