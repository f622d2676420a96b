import { selectConnection, selectNotice } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { formatDuration, useNow } from './time.js';
import './shell.css';

/** Says plainly when the supervisor is unreachable, and that the UI reconnects by itself. */
export function ConnectionBanner() {
  const connection = useApp(selectConnection);
  const now = useNow(500);
  if (connection.state === 'open') return null;
  if (connection.state === 'unauthorized')
    return (
      <div className="banner banner-offline" role="alert" data-testid="connection-banner" data-reason="unauthorized">
        <strong>This browser is not signed in to the supervisor.</strong> Open the sign-in link <code>overseer serve</code> printed (each link works once), or
        make a new one in a browser that is signed in: Settings → “Link another browser”. Until then nothing here is live, and no approval or brake can be sent
        from this page.
      </div>
    );
  const retry = connection.retry_at === undefined ? undefined : connection.retry_at - now;
  return (
    <div className="banner banner-offline" role="alert" data-testid="connection-banner">
      <strong>Not connected to the supervisor.</strong>{' '}
      {connection.state === 'connecting' ? 'Connecting…' : `Reconnecting by itself${retry !== undefined && retry > 0 ? ` in ${formatDuration(retry)}` : ''}.`}
      {connection.why !== undefined && <span className="muted"> ({connection.why})</span>} Approvals and brakes need the connection; what you see may be out of
      date.
    </div>
  );
}

/** The last failed command, until dismissed. */
export function NoticeLine() {
  const notice = useApp(selectNotice);
  if (notice === undefined) return null;
  return (
    <div className="banner banner-notice" role="status" data-testid="notice">
      {notice.text}{' '}
      <button type="button" className="link" onClick={() => appStore.getState().setNotice(undefined)}>
        Dismiss
      </button>
    </div>
  );
}
