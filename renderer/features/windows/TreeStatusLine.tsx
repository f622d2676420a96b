import { useState } from 'react';
import { selectChosenWindow, selectLive, selectTreeReadAt, selectTreeStatus } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { clock } from '../shell/time.js';

/**
 * Whether the tree the person judges against is the application's current state: "Live · last
 * change 12:03:04", "Reading…", or "Out of date since 12:03:04 — why"; and a Reload that reads the
 * window again now.
 */
export function TreeStatusLine() {
  const status = useApp(selectTreeStatus);
  const readAt = useApp(selectTreeReadAt);
  const chosen = useApp(selectChosenWindow);
  const live = useApp(selectLive);
  const command = useCommand();
  const [reloading, setReloading] = useState(false);
  if (chosen === undefined) return null;
  const since = readAt ?? status.read_at;
  const state = !live ? 'out_of_date' : status.state;
  const text = !live
    ? `Out of date${since !== undefined ? ` since ${clock(since)}` : ''} — not connected to the supervisor`
    : status.state === 'current'
      ? `Live${since !== undefined ? ` · last change ${clock(since)}` : ''}`
      : status.state === 'reading'
        ? 'Reading…'
        : status.state === 'out_of_date'
          ? `Out of date${since !== undefined ? ` since ${clock(since)}` : ''}${status.why !== undefined ? ` — ${status.why}` : ''}`
          : 'Not followed';
  const reload = () => {
    setReloading(true);
    void command('reload_tree', {}).finally(() => setReloading(false));
  };
  return (
    <span className="tree-status">
      <span className={`tag tree-state-${state}`} data-testid="tree-status" data-state={state} role="status">
        {text}
      </span>
      <button type="button" data-testid="tree-reload" disabled={!live || reloading} onClick={reload}>
        {reloading ? 'Reloading…' : 'Reload'}
      </button>
    </span>
  );
}
