import { useEffect, useState } from 'react';
import { AGENT_CREDENTIAL_ENV, type AgentConnectInfo } from '../../../protocol/index.js';
import { selectAgents, selectAgentConnect, selectSettings } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { CONNECT_AGENT_ID, showConnectAgent } from './connectAgent.js';

/**
 * The MCP client configurations to paste into an agent: stdio (`overseer mcp`) and Streamable HTTP,
 * and whether an agent has connected (docs/supervision.md#first-run), updated as it happens.
 */
export function ConnectionSnippets() {
  const info = useApp(selectAgentConnect);
  const shared = useApp(selectSettings)?.shared_token ?? true;
  useEffect(() => {
    if (info !== undefined) showConnectAgent();
  }, [info]);
  if (info === undefined) return null;
  const signIn = JSON.stringify({ mcpServers: { overseer: { type: 'http', url: info.mcp_url } } }, null, 2);
  const withToken = JSON.stringify(
    {
      mcpServers: {
        overseer: { type: 'http', url: info.mcp_url, headers: { Authorization: `Bearer ${info.mcp_token ?? '<the token file in the data folder>'}` } },
      },
    },
    null,
    2,
  );
  return (
    <section className="panel" aria-labelledby="snippets-heading" data-testid="settings-connection">
      <h3 id={CONNECT_AGENT_ID} tabIndex={-1}>
        Connect an agent
      </h3>
      <p className="small">
        Paste one of these into your MCP client&apos;s configuration (Claude Code, Codex, VS Code, Cursor and others), then start it. Every action it asks for
        that changes an application waits for you in the approval queue.
      </p>
      <AgentCheck />
      <Snippet id="http" title={`HTTP, signing in (${info.mcp_url})`} text={signIn} />
      <p className="muted small">
        The client asks for its own credential and you approve it on a card: each client is then its own agent, whatever it calls itself.
      </p>
      <Snippet id="stdio" title="Local (stdio: the client launches overseer mcp)" text={stdioSnippet(info)} />
      <p className="muted small" data-testid="stdio-credential-hint">
        {shared
          ? 'This uses the shared agent token. To tell this agent apart from others, give it its own credential in Agents above.'
          : 'The shared agent token is off: give this agent its own credential in Agents above, and use the configuration shown there.'}
      </p>
      {shared && (
        <>
          <Snippet id="http-token" title="HTTP with the shared agent token (fallback)" text={withToken} />
          <p className="muted small">For clients that cannot sign in. Every agent using it is one identity, named as it names itself.</p>
        </>
      )}
    </section>
  );
}

/** The stdio configuration of `overseer mcp`, with an agent's own credential in its environment when given. */
export function stdioSnippet(info: AgentConnectInfo, credential?: string): string {
  const [cmd = '', ...args] = info.stdio_command;
  const env = { ...info.stdio_env, ...(credential !== undefined ? { [AGENT_CREDENTIAL_ENV]: credential } : {}) };
  return JSON.stringify({ mcpServers: { overseer: { command: cmd, args, ...(Object.keys(env).length > 0 ? { env } : {}) } } }, null, 2);
}

/** Whether an agent is connected now: the check a person makes after pasting a snippet. */
function AgentCheck() {
  const agents = useApp(selectAgents);
  return (
    <p className={`agent-check small${agents.length > 0 ? ' agent-check-ok' : ''}`} role="status" data-testid="agent-check">
      {agents.length === 0 ? (
        'Waiting for an agent to connect… this line changes as soon as one does.'
      ) : (
        <>
          Connected:{' '}
          {agents.map((a, i) => (
            <span key={a.session}>
              {i > 0 && ', '}
              <UntrustedText text={a.client} limit={60} /> ({a.transport})
            </span>
          ))}
          .
        </>
      )}
    </p>
  );
}

export function Snippet({ id, title, text }: { id: string; title: string; text: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>(undefined);
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  };
  return (
    <div className="snippet">
      <div className="row">
        <h4 id={`snippet-${id}`}>{title}</h4>
        <button type="button" data-testid={`settings-copy-${id}`} aria-label={`Copy the ${id} configuration`} onClick={copy}>
          Copy
        </button>
        <span className="muted small" role="status">
          {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copy failed: select the text instead.' : ''}
        </span>
      </div>
      <pre className="json" data-testid={`settings-snippet-${id}`} aria-labelledby={`snippet-${id}`} tabIndex={0}>
        {text}
      </pre>
    </div>
  );
}
