import { useState, type FormEvent } from 'react';
import { DRAFT_FIELDS, emptyDraft, parseDraft, publicUrlWarning, type ConnectionDraft, type DraftField } from '../../model/connectionForm.js';
import { selectLive } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useApi } from '../shell/apiContext.js';
import { FailureWords, failureOf, type Failure } from './FailureWords.js';

/** Each field's label and, where it helps, what leaving it empty means. */
const FIELD_WORDS: Record<DraftField, { label: string; hint?: string; placeholder?: string; numeric?: boolean }> = {
  name: { label: 'Name', hint: 'What agents activate: a-z, 0-9, _ and -.', placeholder: 'lab' },
  host: { label: 'Host', hint: 'A host name or an alias of your ssh_config.', placeholder: 'lab.example.org' },
  user: { label: 'User', hint: 'Empty: as ssh decides (ssh_config, then your user name).' },
  port: { label: 'Port', hint: 'Empty: as ssh decides (22).', numeric: true },
  ssh_config: { label: 'ssh_config file', hint: 'An absolute path, passed to ssh as -F.', placeholder: '/home/you/.ssh/config' },
  display: { label: 'Remote X display', hint: 'Empty: found in your session there.', placeholder: ':0' },
  bus: { label: 'Remote session bus', hint: 'Empty: found in your session there.', placeholder: 'unix:path=/run/user/1000/bus' },
  node: { label: 'Remote node', hint: 'Node.js ≥ 20 there; empty: node on the remote PATH.', placeholder: '/usr/bin/node' },
  url: { label: 'Server URL', hint: 'The OSWorld server in the VM, http or https, no password.', placeholder: 'http://192.168.122.10:5000' },
  timeout_ms: { label: 'Timeout per call (ms)', hint: 'Empty: the default.', numeric: true },
};

/**
 * Adds a connection (docs/supervision.md#where-an-action-lands): ssh or OSWorld, checked with the registry's schema before
 * it is sent and each problem shown by its field; an OSWorld URL that is neither loopback nor
 * private is warned about in words while it is typed. A connection the person adds is enabled.
 */
export function ConnectionAddForm() {
  const api = useApi();
  const online = useApp(selectLive);
  const [draft, setDraft] = useState<ConnectionDraft>(emptyDraft());
  const [errors, setErrors] = useState<Partial<Record<DraftField, string>>>({});
  const [failure, setFailure] = useState<Failure | undefined>();
  const [added, setAdded] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const warning = draft.kind === 'osworld_http' ? publicUrlWarning(draft.url) : undefined;
  const edit = (field: DraftField, value: string) => {
    setAdded(undefined);
    setDraft({ ...draft, [field]: value });
    if (errors[field] !== undefined) setErrors({ ...errors, [field]: undefined });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setFailure(undefined);
    const parsed = parseDraft(draft);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    api.command('connection_add', { config: parsed.config }).then(
      (r) => {
        setBusy(false);
        appStore.getState().putConnection(r.connection);
        setAdded(r.connection.name);
        setDraft(emptyDraft(draft.kind));
      },
      (error: unknown) => {
        setBusy(false);
        setFailure(failureOf(error));
      },
    );
  };
  return (
    <form className="connection-add" aria-labelledby="connection-add-heading" onSubmit={onSubmit} noValidate data-testid="connection-add-form">
      <h4 id="connection-add-heading">Add a connection</h4>
      <fieldset className="row kind-choice">
        <legend className="small">Kind</legend>
        {(['ssh', 'osworld_http'] as const).map((kind) => (
          <label key={kind} className="check">
            <input
              type="radio"
              name="connection-kind"
              value={kind}
              data-testid={`connection-kind-${kind}`}
              checked={draft.kind === kind}
              onChange={() => (setErrors({}), setDraft({ ...draft, kind }))}
            />
            {kind === 'ssh' ? 'SSH (the helper runs there, over your ssh)' : 'OSWorld VM (its HTTP server)'}
          </label>
        ))}
      </fieldset>
      <div className="fields">
        {DRAFT_FIELDS[draft.kind].map((field) => {
          const words = FIELD_WORDS[field];
          const error = errors[field];
          const id = `connection-field-${field}`;
          const described = [
            error !== undefined ? `${id}-error` : undefined,
            words.hint !== undefined ? `${id}-hint` : undefined,
            field === 'url' && warning !== undefined ? 'connection-url-warning' : undefined,
          ]
            .filter((x) => x !== undefined)
            .join(' ');
          return (
            <div key={field} className="field">
              <label htmlFor={id}>{words.label}</label>
              <input
                id={id}
                data-testid={id}
                inputMode={words.numeric === true ? 'numeric' : undefined}
                placeholder={words.placeholder}
                autoComplete="off"
                spellCheck={false}
                aria-invalid={error !== undefined ? true : undefined}
                aria-describedby={described === '' ? undefined : described}
                value={draft[field]}
                onChange={(e) => edit(field, e.target.value)}
              />
              {error !== undefined && (
                <span id={`${id}-error`} className="error small" data-testid={`${id}-error`}>
                  {error}
                </span>
              )}
              {words.hint !== undefined && (
                <span id={`${id}-hint`} className="muted small">
                  {words.hint}
                </span>
              )}
            </div>
          );
        })}
      </div>
      {warning !== undefined && (
        <p id="connection-url-warning" className="warning small" data-testid="connection-url-warning">
          ⚠ {warning}
        </p>
      )}
      {failure !== undefined && (
        <div className="error small" role="alert" data-testid="connection-add-failure">
          Not added: <FailureWords failure={failure} />
        </div>
      )}
      <div className="row">
        <button type="submit" className="primary" data-testid="connection-add" disabled={!online || busy}>
          {busy ? 'Adding…' : 'Add connection'}
        </button>
        <span role="status" className="muted small" data-testid="connection-added">
          {added !== undefined ? `Added “${added}”, enabled.` : ''}
        </span>
      </div>
    </form>
  );
}
