import { useEffect, useRef } from 'react';
import { uiTitle } from '../protocol/index.js';
import { AgentsPanel, HelperHealthPanel } from './features/agents/AgentsPanel.js';
import { ApprovalQueue } from './features/approvals/ApprovalQueue.js';
import { BrakeBar } from './features/brake/BrakeBar.js';
import { HandoffBanner } from './features/brake/HandoffBanner.js';
import { usePresence } from './features/shell/usePresence.js';
import { ReceiptsTimeline } from './features/receipts/ReceiptsTimeline.js';
import { SettingsPanel } from './features/settings/SettingsPanel.js';
import { ConnectionBanner, NoticeLine } from './features/shell/ConnectionBanner.js';
import { paneChosen, usePaneWidths, useSize } from './features/shell/paneWidths.js';
import { Splitter } from './features/shell/Splitter.js';
import { TreeView } from './features/windows/ElementTree.js';
import { WindowsList } from './features/windows/WindowsList.js';
import { selectConnection, selectLive, selectPendingCount, selectView } from './store/selectors.js';
import { CENTER_MIN, SPLITTER_WIDTH, defaultQueueWidth, fitWidths, maxWidth } from './model/paneLayout.js';
import type { View } from './store/slices.js';
import { appStore, useApp } from './store/useApp.js';

const VIEWS: { view: View; label: string }[] = [
  { view: 'tree', label: 'Element tree' },
  { view: 'receipts', label: 'Receipts' },
  { view: 'settings', label: 'Settings' },
];

/**
 * The supervisor UI: brakes and pending count on top, windows on the left, the chosen view, the
 * approval queue on the right; the side columns are resizable and give way, sidebar first, so the
 * tree keeps its minimum (docs/supervision.md#both-themes-and-small-screens).
 */
export function App() {
  const pendingCount = useApp(selectPendingCount);
  const view = useApp(selectView);
  const connection = useApp(selectConnection);
  const live = useApp(selectLive);
  usePresence();
  const columnsRef = useRef<HTMLDivElement>(null);
  const total = useSize(columnsRef, { width: document.documentElement.clientWidth, height: 0 }).width;
  // The centre keeps room for the tree at its minimum; the sidebar gives way first, then the queue.
  const rest = CENTER_MIN + 2 * SPLITTER_WIDTH;
  const preferred = usePaneWidths();
  // Until the person resizes it, the queue takes its share of the window (docs/supervision.md#both-themes-and-small-screens).
  const { sidebar, queue } = fitWidths(total, rest, paneChosen('queue') ? preferred : { ...preferred, queue: defaultQueueWidth(total) }, ['sidebar', 'queue']);

  useEffect(() => {
    document.title = uiTitle(pendingCount);
  }, [pendingCount]);

  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◉
          </span>
          <h1 className="brand-name">Overseer</h1>
          <span
            className={`pending-badge${pendingCount > 0 ? ' alert' : ''}`}
            data-testid="pending-badge"
            aria-live="polite"
            aria-label={`${pendingCount} pending approvals`}
          >
            {pendingCount}
          </span>
          <span className={`conn conn-${live ? 'open' : connection.state === 'open' ? 'connecting' : connection.state}`} data-testid="connection-state">
            {live
              ? 'connected'
              : connection.state === 'unauthorized'
                ? 'not signed in'
                : connection.state === 'connecting' || connection.state === 'open'
                  ? 'connecting…'
                  : 'disconnected'}
          </span>
        </div>
        <BrakeBar />
      </header>
      <ConnectionBanner />
      <NoticeLine />
      <div
        ref={columnsRef}
        className="columns"
        style={{ gridTemplateColumns: `${sidebar}px ${SPLITTER_WIDTH}px minmax(0, 1fr) ${SPLITTER_WIDTH}px ${queue}px` }}
      >
        {/* Each landmark holds its pane and the separator that resizes it (display: contents keeps the grid's columns). */}
        <nav className="pane-landmark" aria-label="Agents and windows">
          <div id="pane-sidebar" className="sidebar">
            <AgentsPanel />
            <HelperHealthPanel />
            <WindowsList />
          </div>
          <Splitter
            pane="sidebar"
            label="Agents and windows"
            controls="pane-sidebar"
            width={sidebar}
            max={maxWidth('sidebar', total, rest, queue)}
            grows="ArrowRight"
            others={{ queue }}
            testId="splitter-sidebar"
          />
        </nav>
        <main className="center">
          {/* In the center column: its coming and going never moves the queue's cards (docs/supervision.md#arming-and-decisions). */}
          <HandoffBanner />
          <div className="tabs" role="tablist" aria-label="Views">
            {VIEWS.map((v) => (
              <button
                key={v.view}
                type="button"
                role="tab"
                id={`tab-${v.view}`}
                aria-selected={view === v.view}
                aria-controls="view-panel"
                data-testid={`tab-${v.view}`}
                onClick={() => appStore.getState().setView(v.view)}
              >
                {v.label}
              </button>
            ))}
          </div>
          <div id="view-panel" className="view" role="tabpanel" aria-labelledby={`tab-${view}`}>
            {view === 'tree' ? <TreeView /> : view === 'receipts' ? <ReceiptsTimeline /> : <SettingsPanel />}
          </div>
        </main>
        <aside className="pane-landmark" aria-label="Approval queue">
          <Splitter
            pane="queue"
            label="Approval queue"
            controls="pane-queue"
            width={queue}
            max={maxWidth('queue', total, rest, sidebar)}
            grows="ArrowLeft"
            others={{ sidebar }}
            testId="splitter-queue"
          />
          {/* Focusable: it scrolls (the held list and recent decisions below the places), and a keyboard must reach that too. */}
          <div id="pane-queue" className="queue-column" tabIndex={0}>
            <ApprovalQueue />
          </div>
        </aside>
      </div>
    </div>
  );
}
