import { useEffect, useRef, useState } from 'react';
import { selectChosenWindow, selectLive, selectViewedConnection, selectWindows } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useCommand } from '../shell/apiContext.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ConnectionSwitcher } from './ConnectionSwitcher.js';
import './windows.css';

/** Top-level windows of the desktop shown (the switcher picks which); choosing one reads its tree. */
export function WindowsList() {
  const windows = useApp(selectWindows);
  const chosen = useApp(selectChosenWindow);
  // Live, not merely open: a page that is not signed in sees the socket open and then close (4401) before any snapshot.
  const online = useApp(selectLive);
  const command = useCommand();
  const [busy, setBusy] = useState(false);
  const refresh = () => {
    setBusy(true);
    const of = appStore.getState().connections.viewed;
    void command('refresh_windows', {}).then((r) => {
      setBusy(false);
      if (r !== undefined) appStore.getState().setWindowsOf(of, r.windows);
    });
  };
  // List the windows by itself once per connection to the supervisor, and once per desktop shown,
  // when the supervisor has none listed yet (switching desktops starts with an empty list).
  const viewed = useApp(selectViewedConnection);
  const listed = useRef<string | undefined>(undefined);
  const empty = windows.length === 0;
  useEffect(() => {
    if (!online) listed.current = undefined;
    else if (empty && listed.current !== viewed) {
      listed.current = viewed;
      void command('refresh_windows', {}).then((r) => r !== undefined && appStore.getState().setWindowsOf(viewed, r.windows));
    }
  }, [online, empty, command, viewed]);
  return (
    <section className="panel panel-grow" aria-labelledby="windows-heading">
      <div className="panel-head">
        <h2 id="windows-heading">
          Windows <span className="count">{windows.length}</span>
        </h2>
        <button type="button" data-testid="refresh-windows" disabled={!online || busy} onClick={refresh}>
          {busy ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <ConnectionSwitcher />
      {windows.length === 0 ? (
        <p className="muted">No windows listed yet. Refresh to list them.</p>
      ) : (
        <ul className="plain windows">
          {windows.map((w) => (
            <li key={w.window}>
              <button
                type="button"
                className={`window-item${w.window === chosen ? ' chosen' : ''}`}
                data-testid="window-item"
                aria-pressed={w.window === chosen}
                disabled={!online}
                onClick={() => chooseWindow(command, w.window)}
              >
                <span className="window-title">{w.title === '' ? '(untitled)' : <UntrustedText text={w.title} expandable={false} />}</span>
                <span className="muted small">
                  <UntrustedText text={w.app} expandable={false} /> · pid {w.pid}
                  {w.foreground ? ' · foreground' : ''}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Chooses a window: the store follows at once, the tree arrives as a `tree` event. */
export function chooseWindow(command: ReturnType<typeof useCommand>, window: string): void {
  const s = appStore.getState();
  if (s.chosenWindow === window && s.treeWindow === window) return;
  s.setChosenWindow(window);
  void command('choose_window', { window });
}
