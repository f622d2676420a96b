import { useState } from 'react';
import { selectConnectionInfo } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';

/** The MCP client configurations to paste into an agent: stdio (`overseer mcp`) and Streamable HTTP. */
export function ConnectionSnippets() {
  const info = useApp(selectConnectionInfo);
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
      <h3 id="snippets-heading">Connect an agent</h3>
      <Snippet id="stdio" title="Local (stdio: the client launches overseer mcp)" text={stdio} />
      <Snippet id="http" title={`HTTP (${info.mcp_url})`} text={http} />
    </section>
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
