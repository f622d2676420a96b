// The connections tier's answers as agents read them (compact text; `output: "json"` gives the structured answer).
import type {
  ActivateConnectionAnswer,
  AddConnectionAnswer,
  ConnectionInfo,
  ConnectionTest,
  ListConnectionsAnswer,
  RemoteExecResult,
} from '../../../protocol/index.js';

function line(c: ConnectionInfo, active: string): string {
  const marks = [c.enabled ? undefined : 'disabled', c.name === active ? 'active' : undefined, c.public_url === true ? 'public URL' : undefined].filter(
    (m) => m !== undefined,
  );
  const error = c.last_error !== undefined ? ` — last error ${c.last_error.code}: ${c.last_error.detail}` : '';
  return `${c.name} (${c.kind}) ${c.where}: ${c.status}${marks.length > 0 ? ` [${marks.join(', ')}]` : ''}${error}`;
}

export function renderConnectionList(a: ListConnectionsAnswer): string {
  return [`active: ${a.active}`, ...a.connections.map((c) => line(c, a.active))].join('\n');
}

export function renderConnectionTest(t: ConnectionTest): string {
  const parts = [
    `${t.name}: ${t.reachable ? 'reachable' : 'unreachable'}, ${t.authenticated ? 'authenticated' : 'not authenticated'}`,
    t.platform !== undefined ? `platform ${t.platform}` : undefined,
    t.session_type !== undefined ? `session ${t.session_type}` : undefined,
    t.helper_version !== undefined ? `helper ${t.helper_version}` : undefined,
    t.backend !== undefined ? `backend ${t.backend}` : undefined,
    t.capabilities !== undefined ? `can: ${t.capabilities.join(', ')}` : undefined,
    t.round_trip_ms !== undefined ? `round trip ${t.round_trip_ms} ms` : undefined,
  ];
  return parts.filter((p) => p !== undefined).join('; ');
}

export function renderActivated(a: ActivateConnectionAnswer): string {
  return `active: ${a.active.name} (${a.active.kind}, ${a.active.where}); was ${a.previous}. Ids from other connections answer wrong_connection here.`;
}

export function renderAdded(a: AddConnectionAnswer): string {
  return `added (approved by the person): ${line(a.added, '')}`;
}

export function renderRemoteExec(r: RemoteExecResult): string {
  const head = `${r.ok ? 'ok' : 'failed'}: exit ${r.exit_code ?? (r.timed_out === true ? 'none (timed out)' : 'none')} on ${r.connection.name} (${r.connection.where}) in ${r.duration_ms} ms`;
  const out = r.stdout !== '' ? `\nstdout${r.stdout_truncated ? ' (truncated)' : ''}:\n${r.stdout}` : '';
  const err = r.stderr !== '' ? `\nstderr${r.stderr_truncated ? ' (truncated)' : ''}:\n${r.stderr}` : '';
  return `${head}${out}${err}`;
}
