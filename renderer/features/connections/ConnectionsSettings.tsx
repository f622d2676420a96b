import { useState } from 'react';
import { LOCAL_CONNECTION_NAME, escapeHiddenPlain, type ConnectionInfo, type ConnectionTest } from '../../../protocol/index.js';
import { kindWords, statusWords } from '../../model/connectionWords.js';
import { selectAgents, selectConnections, selectLive } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useApi } from '../shell/apiContext.js';
import { clock, useNow } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ConnectionAddForm } from './ConnectionAddForm.js';
import { FailureWords, failureOf, type Failure } from './FailureWords.js';
import './connections.css';

/**
 * Settings → Connections (docs/supervision.md#where-an-action-lands): every desktop this supervisor reaches, whether it
 * answered and what went wrong last, which agents act there; test, enable, disable and remove each
 * (remove asks again, naming it), and add a new one.
 */
export function ConnectionsSettings() {
  const list = useApp(selectConnections);
  return (
    <section className="panel" aria-labelledby="connections-heading" data-testid="settings-connections">
      <h3 id="connections-heading">Connections</h3>
      <p className="muted small">
        The desktops agents can act on. Each agent acts on one at a time; an action meant for one never lands on another, this desktop included.
      </p>
      <ul className="plain connections" aria-label="Connections">
        {list.map((c) => (
          <ConnectionRow key={c.name} c={c} />
        ))}
      </ul>
      <ConnectionAddForm />
    </section>
  );
}

function ConnectionRow({ c }: { c: ConnectionInfo }) {
  const online = useApp(selectLive);
  const agents = useApp(selectAgents);
  const now = useNow(5000);
  const api = useApi();
  const local = c.name === LOCAL_CONNECTION_NAME;
  const on = c.active_for ?? agents.filter((a) => (a.connection ?? LOCAL_CONNECTION_NAME) === c.name).map((a) => a.client);
  const [test, setTest] = useState<{ state: 'testing' } | { state: 'done'; result: ConnectionTest } | { state: 'failed'; failure: Failure } | undefined>();
  const [failure, setFailure] = useState<Failure | undefined>();
  const [removing, setRemoving] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async (what: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await what();
    } catch (error) {
      setFailure(failureOf(error));
    } finally {
      setBusy(false);
    }
  };
  const runTest = () => {
    setTest({ state: 'testing' });
    api.command('connection_test', { name: c.name }).then(
      (result) => setTest({ state: 'done', result }),
      (error: unknown) => setTest({ state: 'failed', failure: failureOf(error) }),
    );
  };
  const setEnabled = (enabled: boolean) =>
    run(async () => {
      await api.command('connection_set_enabled', { name: c.name, enabled });
      appStore.getState().putConnection({ ...c, enabled });
    });
  const remove = () =>
    run(async () => {
      await api.command('connection_remove', { name: c.name });
      appStore.getState().dropConnection(c.name);
    });
  const status = !c.enabled ? 'disabled' : c.status;
  return (
    <li className="connection" data-testid="connection-row" data-name={c.name} data-status={status}>
      <div className="connection-head">
        <strong className="connection-name">{c.name}</strong>
        <span className="tag">{kindWords(c.kind)}</span>
        <span className={`tag conn-status conn-status-${status}`} data-testid="connection-status">
          {statusWords(c, now)}
        </span>
      </div>
      {!local && (
        <div className="small connection-where" data-testid="connection-where">
          <UntrustedText text={c.where} limit={200} />
        </div>
      )}
      {c.public_url === true && (
        <p className="warning small" data-testid="connection-public-warning">
          This OSWorld address is neither this machine nor a private network: anyone who reaches it can drive that desktop.
        </p>
      )}
      {/* A failed test below says the same, newer: ssh's line is said once. */}
      {c.last_error !== undefined && c.status !== 'up' && test?.state !== 'failed' && (
        <p className="error small" data-testid="connection-last-error">
          Last error{c.checked_at !== undefined ? ` (${clock(c.checked_at)})` : ''}: <code>{c.last_error.code}</code>{' '}
          <UntrustedText text={c.last_error.detail} limit={300} />
        </p>
      )}
      <div className="muted small" data-testid="connection-agents">
        {on.length === 0 ? (
          'No agent acts here now.'
        ) : (
          <>
            Agents here:{' '}
            {on.map((name, i) => (
              <span key={i}>
                {i > 0 && ', '}
                <UntrustedText text={name} limit={60} />
              </span>
            ))}
          </>
        )}
      </div>
      {!local && (
        <div className="row connection-buttons">
          <button type="button" data-testid="connection-test" disabled={!online || test?.state === 'testing'} onClick={runTest}>
            {test?.state === 'testing' ? 'Testing…' : 'Test'}
          </button>
          <button
            type="button"
            data-testid="connection-toggle"
            aria-label={`${c.enabled ? 'Disable' : 'Enable'} connection ${c.name}`}
            disabled={!online || busy}
            onClick={() => void setEnabled(!c.enabled)}
          >
            {c.enabled ? 'Disable' : 'Enable'}
          </button>
          {!removing ? (
            <button
              type="button"
              data-testid="connection-remove"
              aria-label={`Remove connection ${c.name}…`}
              disabled={!online || busy}
              onClick={() => setRemoving(true)}
            >
              Remove…
            </button>
          ) : (
            <span className="confirm-remove" role="group" aria-label={`Remove connection ${c.name}`}>
              <span data-testid="connection-remove-question">
                Remove “{c.name}” ({escapeHiddenPlain(c.where)})? Agents on it lose it; nothing moves to another desktop.
              </span>{' '}
              <button
                type="button"
                className="deny"
                data-testid="connection-remove-confirm"
                disabled={!online || busy}
                onClick={() => void remove().then(() => setRemoving(false))}
              >
                Remove {c.name}
              </button>{' '}
              <button type="button" data-testid="connection-remove-cancel" onClick={() => setRemoving(false)}>
                Cancel
              </button>
            </span>
          )}
        </div>
      )}
      {failure !== undefined && (
        <div className="error small" role="alert" data-testid="connection-failure">
          <FailureWords failure={failure} />
        </div>
      )}
      {test !== undefined && test.state !== 'testing' && (
        <div className="connection-test small" role="status" data-testid="connection-test-result" data-ok={test.state === 'done' ? 'true' : 'false'}>
          {test.state === 'done' ? <TestResult result={test.result} /> : <FailureWords failure={test.failure} />}
        </div>
      )}
    </li>
  );
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/** What a test found, every field it answered. */
function TestResult({ result: r }: { result: ConnectionTest }) {
  const rows: [string, string | undefined][] = [
    ['Reachable', yesNo(r.reachable)],
    ['Authenticated', yesNo(r.authenticated)],
    ['Platform', r.platform],
    ['Session type', r.session_type],
    ['Helper version', r.helper_version],
    ['Backend', r.backend],
    ['Round trip', r.round_trip_ms === undefined ? undefined : `${Math.round(r.round_trip_ms)} ms`],
    ['Can', r.capabilities?.join(', ')],
  ];
  return (
    <dl className="test-fields">
      {rows
        .filter((x): x is [string, string] => x[1] !== undefined)
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd data-testid={`connection-test-${k.toLowerCase().replace(/ /g, '-')}`}>
              <UntrustedText text={v} limit={200} />
            </dd>
          </div>
        ))}
    </dl>
  );
}
