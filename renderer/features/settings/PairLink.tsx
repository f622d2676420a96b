import { useState } from 'react';
import { selectConnection } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { clock, formatDuration, useNow } from '../shell/time.js';

/**
 * "Link another browser": a one-time link that signs a second browser in to this UI (browser mode).
 * It is the person's credential, so it is shown only here, on demand, with its expiry.
 */
export function PairLink() {
  const online = useApp(selectConnection).state === 'open';
  const command = useCommand();
  const now = useNow(1000);
  const [link, setLink] = useState<{ url: string; expires_at: string } | undefined>(undefined);
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>(undefined);
  const make = () => {
    setCopied(undefined);
    void command('pair_link', {}).then((r) => r !== undefined && setLink(r));
  };
  const copy = (url: string) => {
    navigator.clipboard.writeText(url).then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  };
  const left = link === undefined ? 0 : Date.parse(link.expires_at) - now;
  return (
    <section className="panel" aria-labelledby="pair-heading" data-testid="settings-pair">
      <h3 id="pair-heading">Link another browser</h3>
      <p className="muted small">
        Makes a link that signs one more browser in to this supervisor. It works once, for a few minutes. Anyone who opens it can approve actions and use the
        brakes: give it only to yourself.
      </p>
      <div className="row">
        <button type="button" data-testid="pair-make" disabled={!online} onClick={make}>
          {link === undefined ? 'Make a sign-in link' : 'Make a new link'}
        </button>
      </div>
      {link !== undefined && (
        <div className="pair-link">
          <div className="row">
            <input
              className="grow"
              readOnly
              aria-label="One-time sign-in link"
              data-testid="pair-url"
              value={link.url}
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" data-testid="pair-copy" aria-label="Copy the sign-in link" onClick={() => copy(link.url)}>
              Copy
            </button>
          </div>
          <p className="small" data-testid="pair-expiry">
            {left > 0 ? `Works once, until ${clock(link.expires_at)} (${formatDuration(left)} left).` : `Expired at ${clock(link.expires_at)}: make a new one.`}{' '}
            <span role="status">{copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copy failed: select the text instead.' : ''}</span>
          </p>
        </div>
      )}
    </section>
  );
}
