import { useState, type FormEvent } from 'react';
import { selectConnection, selectAgentConnect, selectGrants, selectSettings } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { clock } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { Snippet, stdioSnippet } from './ConnectionSnippets.js';

/**
 * Settings → Agents (docs/agents.md#grants): every agent the person granted its own credential,
 * with its last use and a Revoke that refuses its credential from the next request on and ends its
 * sessions at once; a credential of its own for an agent that runs `overseer mcp`
 * (docs/agents.md#stdio-agents); and the shared token, kept only as a fallback the person can turn off.
 */
export function AgentsSettings() {
  const grants = useApp(selectGrants);
  const settings = useApp(selectSettings);
  const online = useApp(selectConnection).state === 'open';
  const command = useCommand();
  const [confirm, setConfirm] = useState<string | undefined>(undefined);
  const setShared = (on: boolean) =>
    void command('update_settings', { shared_token: on }).then((r) => {
      if (r !== undefined) appStore.getState().setSettings(r.settings);
    });
  return (
    <section className="panel" aria-labelledby="grants-heading" data-testid="settings-agents">
      <h3 id="grants-heading">Agents</h3>
      <p className="muted small">Agents you granted their own credential. Each is one identity on cards, receipts and rules, whatever name it gives itself.</p>
      {grants.length === 0 ? (
        <p className="muted" data-testid="grants-empty">
          No agent has its own credential yet. An MCP client that signs in to Overseer asks you on a card.
        </p>
      ) : (
        <ul className="rule-list" data-testid="grant-list">
          {grants.map((g) => (
            <li key={g.id} data-testid="grant-row" data-grant={g.id} data-name={g.name}>
              <span>
                <strong>
                  <UntrustedText text={g.name} />
                </strong>{' '}
                <span className="muted small">
                  {g.kind === 'oauth' ? (
                    <>
                      · <UntrustedText text={g.redirect_host} limit={80} />
                    </>
                  ) : (
                    '· overseer mcp'
                  )}{' '}
                  · {g.sessions} session{g.sessions === 1 ? '' : 's'} open · last used{' '}
                  <span data-testid="grant-last-used">{g.last_used !== undefined ? clock(g.last_used) : 'never'}</span> · {g.id}
                </span>
              </span>
              {confirm === g.id ? (
                <span>
                  <button
                    type="button"
                    className="danger"
                    data-testid="grant-revoke-confirm"
                    disabled={!online}
                    onClick={() => void command('revoke_grant', { id: g.id }).then(() => setConfirm(undefined))}
                  >
                    Revoke {g.name}: end its sessions now
                  </button>{' '}
                  <button type="button" onClick={() => setConfirm(undefined)}>
                    Keep
                  </button>
                </span>
              ) : (
                <button type="button" data-testid="grant-revoke" disabled={!online} onClick={() => setConfirm(g.id)}>
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <StdioGrant online={online} />
      {settings !== undefined && (
        <label className="check">
          <input
            type="checkbox"
            data-testid="settings-shared-token"
            checked={settings.shared_token}
            disabled={!online}
            onChange={(e) => setShared(e.target.checked)}
          />
          Fallback: the shared agent token also connects (every agent using it is one identity, named as it names itself). Turn it off once your agents have
          their own credentials.
        </label>
      )}
    </section>
  );
}

/**
 * Gives an agent that runs `overseer mcp` its own credential: the person names it, and its
 * configuration is shown with the credential this once (the supervisor keeps only a hash).
 */
function StdioGrant({ online }: { online: boolean }) {
  const info = useApp(selectAgentConnect);
  const command = useCommand();
  const [name, setName] = useState('');
  const [made, setMade] = useState<{ name: string; credential: string } | undefined>(undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wanted = name.trim();
    if (wanted === '') return;
    // A refusal (too many grants) is said in the notice, as every failed command is.
    void command('grant_stdio_agent', { name: wanted }).then((r) => {
      if (r === undefined) return;
      setMade({ name: r.grant.name, credential: r.credential });
      setName('');
    });
  };
  if (made !== undefined && info !== undefined)
    return (
      <div data-testid="stdio-grant-made">
        <p className="small">
          <strong>
            <UntrustedText text={made.name} />
          </strong>{' '}
          has its own credential. Put this configuration in that agent&apos;s MCP client now: it is shown this once, and Overseer keeps only a hash of it.
        </p>
        <Snippet id="stdio-credential" title={`Local (stdio) for ${made.name}`} text={stdioSnippet(info, made.credential)} />
        <button type="button" data-testid="stdio-grant-done" onClick={() => setMade(undefined)}>
          Done: hide the credential
        </button>
      </div>
    );
  return (
    <form className="row" data-testid="stdio-grant-form" onSubmit={submit}>
      <label>
        Give an agent that runs <code>overseer mcp</code> its own credential, named{' '}
        <input data-testid="stdio-grant-name" value={name} maxLength={120} placeholder="e.g. Claude Code" onChange={(e) => setName(e.target.value)} />
      </label>{' '}
      <button type="submit" data-testid="stdio-grant-make" disabled={!online || name.trim() === ''}>
        Make its credential
      </button>
    </form>
  );
}
