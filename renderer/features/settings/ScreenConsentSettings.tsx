import { useEffect, useState } from 'react';
import type { ScreenConsent } from '../../../protocol/index.js';
import { selectConnection } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { useApi, useCommand } from '../shell/apiContext.js';

const WORDS: Record<string, string> = {
  given: 'allowed',
  not_yet_given: 'not asked yet (the desktop asks on first use)',
  refused: 'refused',
  view_only: 'shared without “Allow remote interaction”',
  stopped: 'stopped from the desktop',
};

/**
 * Settings → Screen (docs/wayland.md#consent): where the desktop itself asks the person before a
 * program may take screenshots or send input (Wayland's portals), what they answered, and a way to
 * forget those answers so it asks again. Shown only on such desktops.
 */
export function ScreenConsentSettings() {
  const online = useApp(selectConnection).state === 'open';
  const api = useApi();
  const command = useCommand();
  const [consent, setConsent] = useState<ScreenConsent | undefined>(undefined);
  useEffect(() => {
    if (!online) return;
    let live = true;
    // Quietly: a desktop without a screen tier has nothing to show here.
    api.command('screen_consent', {}).then(
      (c) => live && setConsent(c),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, online]);
  if (consent === undefined || (consent.asks !== true && consent.windows_unknown !== true)) return null;
  if (consent.asks !== true) return <WindowsUnknown />;
  const forget = () => void command('screen_consent', { forget: true }).then((c) => c !== undefined && setConsent(c));
  return (
    <section className="panel" aria-labelledby="screen-consent-heading" data-testid="settings-screen-consent">
      <h3 id="screen-consent-heading">Screen: what this desktop allowed</h3>
      {consent.windows_unknown === true && <WindowsUnknown inline />}
      <p className="muted small">This desktop asks you itself before any program takes screenshots or moves the pointer and types.</p>
      <dl className="fields">
        <div>
          <dt>Screenshots</dt>
          <dd data-testid="screen-consent-screenshots">{WORDS[consent.screenshots ?? ''] ?? consent.screenshots}</dd>
        </div>
        <div>
          <dt>Pointer and keyboard</dt>
          <dd data-testid="screen-consent-input">
            {WORDS[consent.input ?? ''] ?? consent.input}
            {consent.input_per_session === true && (
              <span className="muted"> · asked again each time Overseer’s helper starts: this desktop cannot remember it</span>
            )}
          </dd>
        </div>
      </dl>
      <div className="row">
        <button type="button" data-testid="screen-consent-forget" disabled={!online} onClick={forget}>
          Forget these answers
        </button>
        {consent.forgotten === true && (
          <span className="muted" role="status">
            Forgotten: the desktop asks again on next use.
          </span>
        )}
      </div>
    </section>
  );
}

/** What Overseer cannot do where no program is told where windows are (docs/security.md#screen-input-where-windows-are-unknown). */
function WindowsUnknown({ inline = false }: { inline?: boolean }) {
  const words = (
    <p className="warning small" data-testid="screen-windows-unknown">
      This desktop tells no program where windows are. So agents’ screenshots show Overseer’s own window whenever it is on screen (its cards, and a pairing link
      while one is shown), and a click you approve could land on it. Overseer does not take your decisions while an agent’s input is being sent, nor for a
      second after. To keep Overseer out of agents’ sight, keep it on another workspace while they work, or supervise from another device.
    </p>
  );
  if (inline) return words;
  return (
    <section className="panel" aria-labelledby="screen-windows-heading" data-testid="settings-screen-consent">
      <h3 id="screen-windows-heading">Screen: where windows are</h3>
      {words}
    </section>
  );
}
