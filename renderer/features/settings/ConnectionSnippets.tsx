import { useEffect, useState } from 'react';
import { selectAgents, selectConnectionInfo } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { CONNECT_AGENT_ID, showConnectAgent } from './connectAgent.js';

/**
 * The MCP client configurations to paste into an agent: stdio (`overseer mcp`) and Streamable HTTP,
 * and whether an agent has connected (docs/supervision.md#first-run), updated as it happens.
 */
export function ConnectionSnippets() {
  const info = useApp(selectConnectionInfo);
  useEffect(() => {
    if (info !== undefined) showConnectAgent();
  }, [info]);
  if (info === undefined) return null;
  const [cmd = '', ...args] = info.stdio_command;
  const stdio = JSON.stringify({ mcpServers: { overseer: { command: cmd, args, ...(info.stdio_env ? { env: info.stdio_env } : {}) } } }, null, 2);
  const http = JSON.stringify(
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
      <Snippet id="stdio" title="Local (stdio: the client launches overseer mcp)" text={stdio} />
      <Snippet id="http" title={`HTTP (${info.mcp_url})`} text={http} />
    </section>
  );
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

function Snippet({ id, title, text }: { id: string; title: string; text: string }) {
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
