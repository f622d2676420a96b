import { useState } from 'react';
import { LOCAL_CONNECTION_NAME, type AgentInfo } from '../../../protocol/index.js';
import { agentConnection, isRemote, kindWords } from '../../model/connectionWords.js';
import { selectAgents, selectConnections, selectHelper, selectLive } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { clock, formatDuration, useNow } from '../shell/time.js';
import { useCommand } from '../shell/apiContext.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { openConnectAgent } from '../settings/connectAgent.js';
import './agents.css';

/**
 * Connected agents: client, transport, the desktop it acts on, since, calls and pending approvals; marked as possibly out of
 * date while not connected. An agent leaves the list when it goes (docs/supervision.md#when-an-agent-has-gone),
 * and the person can disconnect one here, brakes or not (its pending actions are withdrawn).
 */
export function AgentsPanel() {
  const agents = useApp(selectAgents);
  const live = useApp(selectLive);
  const now = useNow(5000);
  return (
    <section className={`panel${live ? '' : ' stale'}`} aria-labelledby="agents-heading" data-testid="agents">
      <h2 id="agents-heading">
        Agents <span className="count">{agents.length}</span>
      </h2>
      {!live && (
        <p className="stale-note small" data-testid="agents-stale">
          Not connected: this list may be out of date.
        </p>
      )}
      {agents.length === 0 ? (
        <p className="muted">
          No agent is connected.{' '}
          <button type="button" className="link" data-testid="agents-connect" onClick={openConnectAgent}>
            Connect an agent…
          </button>
        </p>
      ) : (
        <ul className="plain">
          {agents.map((a) => (
            <li key={a.session} className="agent" data-testid="agent-item">
              <div>
                <strong>
                  <UntrustedText text={a.client} />
                </strong>{' '}
                <span className="tag">{a.transport}</span>
                {a.pending > 0 && <span className="tag tag-alert">{a.pending} pending</span>}
              </div>
              <AgentWhere agent={a} />
              <div className="muted small">
                since {clock(a.since)} ({formatDuration(now - Date.parse(a.since))}) · {a.calls} calls{a.activated ? '' : ' · tools not activated'}
              </div>
              {live && <Disconnect agent={a} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Which desktop an agent's tools act on now: this one quietly, another one by name and host. */
function AgentWhere({ agent }: { agent: AgentInfo }) {
  const list = useApp(selectConnections);
  const c = agentConnection(list, agent.connection);
  if (agent.connection === undefined || (c !== undefined && !isRemote(c)))
    return (
      <div className="small muted" data-testid="agent-connection" data-connection={LOCAL_CONNECTION_NAME}>
        on this desktop
      </div>
    );
  return (
    <div className="small agent-where" data-testid="agent-connection" data-connection={agent.connection}>
      on <strong>{agent.connection}</strong>{' '}
      {c !== undefined ? (
        <>
          ({kindWords(c.kind)}, <UntrustedText text={c.where} limit={80} />)
        </>
      ) : (
        <span className="muted">(no longer in the list)</span>
      )}
    </div>
  );
}

/** Disconnect one agent: a second click names what it does, so a stray click ends nothing. */
function Disconnect({ agent }: { agent: AgentInfo }) {
  const command = useCommand();
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="small" data-testid="agent-disconnect" onClick={() => setAsking(true)}>
        Disconnect…
      </button>
    );
  return (
    <div className="agent-disconnect small" role="group" aria-label="Disconnect this agent">
      <span>End this agent’s session{agent.pending > 0 ? ` and withdraw its ${agent.pending} pending` : ''}?</span>{' '}
      <button
        type="button"
        className="deny"
        data-testid="agent-disconnect-confirm"
        onClick={() => void command('disconnect_agent', { session: agent.session })}
      >
        Disconnect
      </button>{' '}
      <button type="button" data-testid="agent-disconnect-cancel" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}

/** The accessibility helper's health; unknown while the supervisor cannot be reached. */
export function HelperHealthPanel() {
  const helper = useApp(selectHelper);
  const live = useApp(selectLive);
  if (!live)
    return (
      <section className="panel stale" aria-labelledby="helper-heading" data-testid="helper-health">
        <h2 id="helper-heading">Helper</h2>
        <p>
          <span className="health health-unknown" data-testid="helper-state" data-state="unknown">
            unknown
          </span>
          <span className="muted"> · not connected to the supervisor</span>
        </p>
      </section>
    );
  return (
    <section className="panel" aria-labelledby="helper-heading" data-testid="helper-health">
      <h2 id="helper-heading">Helper</h2>
      <p>
        <span className={`health health-${helper.state}`} data-testid="helper-state" data-state={helper.state}>
          {helper.state}
        </span>
        {helper.backend !== undefined && <span className="muted"> · {helper.backend}</span>}
        {helper.pid !== undefined && <span className="muted"> · pid {helper.pid}</span>}
        {helper.restarts > 0 && <span className="muted"> · {helper.restarts} restarts</span>}
      </p>
      {helper.last_error !== undefined && (
        <p className="error small">
          <UntrustedText text={helper.last_error} limit={500} />
        </p>
      )}
    </section>
  );
}
