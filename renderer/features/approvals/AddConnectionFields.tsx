import type { ConnectionConfig } from '../../../protocol/index.js';
import { kindWords } from '../../model/connectionWords.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** The entry's fields in the order the person reads them; those absent are said to be absent. */
const FIELDS: Record<ConnectionConfig['kind'], { key: string; label: string; absent: string }[]> = {
  ssh: [
    { key: 'name', label: 'Name', absent: '' },
    { key: 'host', label: 'Host', absent: '' },
    { key: 'user', label: 'User', absent: 'as ssh decides' },
    { key: 'port', label: 'Port', absent: 'as ssh decides' },
    { key: 'ssh_config', label: 'ssh_config', absent: 'your default' },
    { key: 'display', label: 'Display', absent: 'found in the session' },
    { key: 'bus', label: 'Session bus', absent: 'found in the session' },
    { key: 'node', label: 'Remote node', absent: 'node on the remote PATH' },
  ],
  osworld_http: [
    { key: 'name', label: 'Name', absent: '' },
    { key: 'url', label: 'URL', absent: '' },
    { key: 'timeout_ms', label: 'Timeout (ms)', absent: 'the default' },
  ],
};

/**
 * An add_connection card's body: exactly the entry that would be added, every field, each value as
 * the agent sent it (untrusted text), and enabled once approved.
 */
export function AddConnectionFields({ config, publicUrl }: { config: ConnectionConfig; publicUrl: boolean }) {
  const entry = config as Record<string, unknown>;
  return (
    <div className="add-connection" data-testid="add-connection">
      <div className="muted small">Adds this {kindWords(config.kind)} connection, enabled, for every agent to activate:</div>
      <dl className="card-fields">
        <div>
          <dt>Kind</dt>
          <dd data-testid="add-connection-kind">{config.kind}</dd>
        </div>
        <div>
          <dt>Enabled</dt>
          <dd data-testid="add-connection-enabled">{config.enabled ? 'yes, once approved' : 'no'}</dd>
        </div>
        {FIELDS[config.kind].map((f) => {
          const v = entry[f.key];
          return (
            <div key={f.key}>
              <dt>{f.label}</dt>
              <dd data-testid={`add-connection-${f.key}`} data-absent={v === undefined ? '' : undefined}>
                {v === undefined ? (
                  <span className="muted">not set ({f.absent})</span>
                ) : (
                  <UntrustedText text={typeof v === 'number' ? String(v) : typeof v === 'string' ? v : JSON.stringify(v)} limit={2100} />
                )}
              </dd>
            </div>
          );
        })}
      </dl>
      {publicUrl && (
        <p className="warning small" data-testid="add-connection-public-warning">
          ⚠ This URL is neither this machine nor a private network: anyone who reaches it can drive that desktop.
        </p>
      )}
    </div>
  );
}
