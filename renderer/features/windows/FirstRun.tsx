import { selectAgents } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { openConnectAgent } from '../settings/connectAgent.js';

/**
 * What the tree's place says before any agent has connected and no window is chosen
 * (docs/supervision.md#first-run): what to do first — connect an agent, one click from its
 * snippets — and that a window can be read meanwhile. Once an agent is connected it is the
 * plain "choose a window" line.
 */
export function FirstRun() {
  const agents = useApp(selectAgents);
  if (agents.length > 0) return <p className="muted tree-empty">Choose a window to read its tree.</p>;
  return (
    <section className="first-run tree-empty" aria-labelledby="first-run-heading" data-testid="first-run">
      <h3 id="first-run-heading">Connect an agent to begin</h3>
      <p>
        An agent reads and acts on this desktop through Overseer over MCP. Reads run at once; every action that changes an application waits for you in the
        approval queue on the right, and the brakes at the top stop everything.
      </p>
      <p>
        <button type="button" className="primary" data-testid="first-run-connect" onClick={openConnectAgent}>
          Connect an agent…
        </button>{' '}
        <span className="muted small">the ready configurations, and a check that your agent connected</span>
      </p>
      <p className="muted small">Meanwhile, choose a window on the left to read its tree yourself.</p>
    </section>
  );
}
