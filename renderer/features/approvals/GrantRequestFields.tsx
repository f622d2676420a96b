import type { AgentGrantApproval } from '../../../protocol/index.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** Scheme and host of a URI as people check it (`http://127.0.0.1:53121`, `cursor:`), or the text itself when it is not one. */
function hostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host !== '' ? `${url.protocol}//${url.host}` : url.protocol;
  } catch {
    return uri;
  }
}

/**
 * An agent_grant card's body (docs/agents.md#consent): the name the client gives itself, its
 * client_id and where the authorization goes back to — all its own claims, shown as untrusted
 * text — what it asks for, and the name it is known by once approved.
 */
export function GrantRequestFields({ card }: { card: AgentGrantApproval }) {
  const g = card.agent_grant;
  return (
    <dl className="card-fields" data-testid="grant-request">
      <div>
        <dt>Calls itself</dt>
        <dd data-testid="grant-claimed-name">
          “<UntrustedText text={g.claimed_name} />” <span className="muted">(its own claim)</span>
        </dd>
      </div>
      <div>
        <dt>{g.kind === 'oauth' ? 'Client ID' : 'Connects'}</dt>
        <dd data-testid="grant-client-id">
          {g.kind === 'oauth' ? (
            <UntrustedText text={g.client_id} limit={200} />
          ) : (
            <>
              through <code>overseer mcp</code>
              {g.host_pid !== undefined ? ` (agent process ${g.host_pid})` : ''}
            </>
          )}
        </dd>
      </div>
      {g.kind === 'oauth' && (
        <div>
          <dt>Returns to</dt>
          <dd data-testid="grant-redirect">
            <strong>
              <UntrustedText text={hostOf(g.redirect_uri)} limit={200} />
            </strong>{' '}
            <span className="muted">
              (<UntrustedText text={g.redirect_uri} limit={200} />)
            </span>
          </dd>
        </div>
      )}
      {g.client_uri !== undefined && (
        <div>
          <dt>Says its site is</dt>
          <dd>
            <UntrustedText text={g.client_uri} limit={200} />
          </dd>
        </div>
      )}
      <div>
        <dt>Asks for</dt>
        <dd>{g.asks}</dd>
      </div>
      <div>
        <dt>Known as</dt>
        <dd data-testid="grant-name">
          “<UntrustedText text={g.grant_name} />” on its cards, receipts and rules once you approve
        </dd>
      </div>
    </dl>
  );
}
