import { useState } from 'react';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import { kindWords, isRemote } from '../../model/connectionWords.js';
import { selectConnections, selectLive, selectViewedConnection } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/**
 * Which desktop the windows list, the tree and the Screen view show (docs/supervision.md#where-an-action-lands): the
 * person's view only, agents are unaffected. What it shows follows the supervisor's answer (a
 * `connections` event), never the choice alone, so it cannot claim a desktop it does not show.
 */
export function ConnectionSwitcher() {
  const list = useApp(selectConnections);
  const viewed = useApp(selectViewedConnection);
  const live = useApp(selectLive);
  const command = useCommand();
  const [asking, setAsking] = useState<string | undefined>();
  if (list.length <= 1) return null;
  const choose = (name: string) => {
    if (name === viewed) return;
    setAsking(name);
    void command('view_connection', { name }).finally(() => setAsking(undefined));
  };
  return (
    <label className="field connection-switcher small">
      <span>Desktop shown</span>
      <select data-testid="connection-switcher" value={viewed} disabled={!live || asking !== undefined} onChange={(e) => choose(e.target.value)}>
        {list.map((c) => (
          <option key={c.name} value={c.name} disabled={!c.enabled}>
            {/* An option holds plain text only: the host is escaped so no hidden character can reorder it. */}
            {c.kind === 'local'
              ? `${c.name} (this desktop)`
              : escapeHiddenPlain(`${c.name} (${kindWords(c.kind)}, ${c.where})${c.enabled ? '' : ' — disabled'}`)}
          </option>
        ))}
      </select>
      {asking !== undefined && <span className="muted">Switching to {asking}…</span>}
    </label>
  );
}

/** The desktop a view shows, named beside its title when it is not this one. */
export function ViewedDesktop() {
  const list = useApp(selectConnections);
  const viewed = useApp(selectViewedConnection);
  const c = list.find((x) => x.name === viewed);
  if (c === undefined || !isRemote(c)) return null;
  return (
    <span className="tag viewed-desktop" data-testid="viewed-desktop" data-connection={c.name}>
      on {c.name} · <UntrustedText text={c.where} limit={60} expandable={false} />
    </span>
  );
}
