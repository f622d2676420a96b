import { useState, type FormEvent } from 'react';
import { escapeHiddenPlain, Settings } from '../../../protocol/index.js';
import { selectConnection, selectRules, selectSettings } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ConnectionsSettings } from '../connections/ConnectionsSettings.js';
import { ConnectionSnippets } from './ConnectionSnippets.js';
import { ruleDesktopWords } from '../../model/connectionWords.js';
import { AgentsSettings } from './AgentsSettings.js';
import { PairLink } from './PairLink.js';
import { ScreenConsentSettings } from './ScreenConsentSettings.js';
import './settings.css';

/** Policy, exclusions and timeouts; deny-app rules; the desktops agents act on; how agents connect. */
export function SettingsPanel() {
  const settings = useApp(selectSettings);
  return (
    <div className="settings-view">
      <h2>Settings</h2>
      {settings === undefined ? <p className="muted">Waiting for the supervisor…</p> : <SettingsForm key={JSON.stringify(settings)} settings={settings} />}
      <RulesEditor />
      <AgentsSettings />
      <ScreenConsentSettings />
      <ConnectionsSettings />
      {/* Browser mode only: the desktop app's window is its own credential (IPC), there is nothing to link. */}
      {window.overseer === undefined && <PairLink />}
      <ConnectionSnippets />
    </div>
  );
}

const list = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');

function SettingsForm({ settings }: { settings: Settings }) {
  const command = useCommand();
  const online = useApp(selectConnection).state === 'open';
  const [draft, setDraft] = useState({
    approval_expiry_s: String(settings.approval_expiry_s),
    approval_wait_ms: String(settings.approval_wait_ms),
    read_timeout_ms: String(settings.read_timeout_ms),
    read_max_nodes: String(settings.read_max_nodes),
    agent_idle_s: String(settings.agent_idle_s),
    progressive_tools: settings.progressive_tools,
    screen_tools: settings.screen_tools,
    pids: (settings.exclusions.pids ?? []).join(', '),
    apps: (settings.exclusions.apps ?? []).join('\n'),
  });
  const [errors, setErrors] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const pids = list(draft.pids).map(Number);
    const apps = list(draft.apps);
    const candidate = Settings.safeParse({
      approval_expiry_s: Number(draft.approval_expiry_s),
      approval_wait_ms: Number(draft.approval_wait_ms),
      read_timeout_ms: Number(draft.read_timeout_ms),
      read_max_nodes: Number(draft.read_max_nodes),
      agent_idle_s: Number(draft.agent_idle_s),
      progressive_tools: draft.progressive_tools,
      screen_tools: draft.screen_tools,
      // Settings → Agents changes it on its own.
      shared_token: settings.shared_token,
      exclusions: { ...(pids.length > 0 ? { pids } : {}), ...(apps.length > 0 ? { apps } : {}) },
    });
    if (!candidate.success) {
      setErrors(candidate.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
      return;
    }
    setErrors([]);
    void command('update_settings', candidate.data).then((r) => {
      if (r === undefined) return;
      appStore.getState().setSettings(r.settings);
      setSaved(true);
    });
  };
  const field = (
    name: 'approval_expiry_s' | 'approval_wait_ms' | 'read_timeout_ms' | 'read_max_nodes' | 'agent_idle_s',
    label: string,
    min: number,
    max: number,
  ) => (
    <label className="field">
      <span>{label}</span>
      <input
        type="number"
        data-testid={`settings-${name.replace(/_/g, '-')}`}
        min={min}
        max={max}
        required
        value={draft[name]}
        onChange={(e) => (setSaved(false), setDraft({ ...draft, [name]: e.target.value }))}
      />
    </label>
  );
  return (
    <form className="panel settings-form" aria-labelledby="policy-heading" onSubmit={onSubmit} data-testid="settings-form">
      <h3 id="policy-heading">Policy and timeouts</h3>
      <div className="fields">
        {field('approval_expiry_s', 'Approval expiry (seconds)', 5, 3600)}
        {field('approval_wait_ms', 'Approval wait before "pending" (ms)', 1000, 55000)}
        {field('read_timeout_ms', 'Read timeout (ms)', 100, 20000)}
        {field('read_max_nodes', 'Max nodes per read', 1, 5000)}
        {field('agent_idle_s', 'Idle agent session ends after (seconds; its pending actions are withdrawn)', 5, 86400)}
      </div>
      <label className="check">
        <input
          type="checkbox"
          data-testid="settings-progressive-tools"
          checked={draft.progressive_tools}
          onChange={(e) => (setSaved(false), setDraft({ ...draft, progressive_tools: e.target.checked }))}
        />
        Progressive tools (agents see one activation tool until they activate the rest)
      </label>
      <label className="check">
        <input
          type="checkbox"
          data-testid="settings-screen-tools"
          checked={draft.screen_tools}
          onChange={(e) => (setSaved(false), setDraft({ ...draft, screen_tools: e.target.checked }))}
        />
        Screen tools (agents may take screenshots and use the pointer and keyboard, each input approved like an action)
      </label>
      <h3>Exclusions (never read or acted on)</h3>
      <div className="fields">
        <label className="field">
          <span>Process ids (comma separated)</span>
          <input
            data-testid="settings-exclude-pids"
            inputMode="numeric"
            value={draft.pids}
            onChange={(e) => (setSaved(false), setDraft({ ...draft, pids: e.target.value }))}
          />
        </label>
        <label className="field">
          <span>Applications (one a line; /regex/ allowed)</span>
          <textarea
            data-testid="settings-exclude-apps"
            rows={3}
            value={draft.apps}
            onChange={(e) => (setSaved(false), setDraft({ ...draft, apps: e.target.value }))}
          />
        </label>
      </div>
      {errors.length > 0 && (
        <ul className="error" role="alert">
          {errors.map((x) => (
            <li key={x}>{x}</li>
          ))}
        </ul>
      )}
      <div className="row">
        <button type="submit" className="primary" data-testid="settings-save" disabled={!online}>
          Save settings
        </button>
        {saved && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}

function RulesEditor() {
  const rules = useApp(selectRules);
  const online = useApp(selectConnection).state === 'open';
  const command = useCommand();
  const [pattern, setPattern] = useState('');
  const add = (e: FormEvent) => {
    e.preventDefault();
    const p = pattern.trim();
    if (p === '') return;
    void command('add_rule', { pattern: p }).then((r) => {
      if (r === undefined) return;
      appStore.getState().addRule(r.rule);
      setPattern('');
    });
  };
  const remove = (id: string) => void command('remove_rule', { id }).then((r) => r !== undefined && appStore.getState().removeRule(id));
  return (
    <section className="panel" aria-labelledby="rules-heading" data-testid="settings-rules">
      <h3 id="rules-heading">Rules</h3>
      {rules.length === 0 ? (
        <p className="muted">
          No rules. A deny rule refuses every action on the applications whose name it matches (agents can still read them); “allow for this session” approvals
          add allow rules.
        </p>
      ) : (
        <ul className="plain rules">
          {rules.map((r) => (
            <li key={r.id} data-testid="settings-rule">
              {r.kind === 'deny_app' ? (
                <span>
                  <span className="tag tag-alert">deny app</span> every action on{' '}
                  <code>
                    <UntrustedText text={r.pattern} />
                  </code>{' '}
                  is refused <span className="muted">(reads are not: agents can still see it)</span>
                </span>
              ) : (
                <span data-testid="settings-allow-rule">
                  <span className="tag">allow</span>{' '}
                  <strong>
                    <UntrustedText text={r.agent} />
                  </strong>{' '}
                  <span className="muted">(session {r.session.slice(0, 8)})</span> may <code>{r.action}</code> on{' '}
                  <strong data-testid="settings-rule-desktop">
                    <UntrustedText text={ruleDesktopWords(r.connection)} />
                  </strong>{' '}
                  without asking:{' '}
                  {r.scope === 'element' ? (
                    <>
                      only{' '}
                      <code>
                        <UntrustedText text={r.element_label ?? r.element ?? ''} />
                      </code>{' '}
                      in{' '}
                      <code>
                        <UntrustedText text={r.app} />
                      </code>
                    </>
                  ) : (
                    <>
                      any element of{' '}
                      <code>
                        <UntrustedText text={r.app} />
                      </code>
                    </>
                  )}
                </span>
              )}
              <button
                type="button"
                data-testid="settings-rule-remove"
                aria-label={escapeHiddenPlain(`Remove rule ${r.kind === 'deny_app' ? r.pattern : `${r.agent} ${r.action} in ${r.app}`}`)}
                disabled={!online}
                onClick={() => remove(r.id)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="row" onSubmit={add}>
        <label className="field grow">
          <span>Refuse every action on applications matching</span>
          <input
            data-testid="settings-rule-pattern"
            maxLength={200}
            placeholder="e.g. firefox or /bank/i"
            value={pattern}
            onChange={(e) => setPattern(e.target.value)}
          />
        </label>
        <button type="submit" data-testid="settings-rule-add" disabled={!online || pattern.trim() === ''}>
          Add deny rule
        </button>
      </form>
    </section>
  );
}
