import type { StateCreator } from 'zustand';
import { LOCAL_CONNECTION_NAME, type ConnectionInfo, type ConnectionsView } from '../../protocol/index.js';
import type { AppState } from './store.js';

/** What the UI knows before the supervisor's snapshot: only this desktop, shown as not yet checked. */
export const LOCAL_ONLY: ConnectionsView = {
  list: [{ name: LOCAL_CONNECTION_NAME, kind: 'local', where: 'this desktop', enabled: true, status: 'unknown' }],
  viewed: LOCAL_CONNECTION_NAME,
};

/**
 * The desktops this supervisor reaches and the one the windows list, tree and Screen view show
 * (docs/supervision.md#where-an-action-lands). The supervisor owns both: the person's choice of view is a command
 * (`view_connection`) whose answer arrives as a `connections` event, never a local guess.
 */
export interface ConnectionsSlice {
  connections: ConnectionsView;
  setConnections(view: ConnectionsView): void;
  /** Replaces one connection's entry (a command's answer), or adds it at the end. */
  putConnection(info: ConnectionInfo): void;
  /** Drops a removed connection from the list (the supervisor's `connections` event follows). */
  dropConnection(name: string): void;
  /** Shows windows listed while `viewed` was the desktop shown; an answer that arrives after a switch is dropped. */
  setWindowsOf(viewed: string, windows: AppState['windows']): void;
}

export const connectionsSlice: StateCreator<AppState, [], [], ConnectionsSlice> = (set, get) => ({
  connections: LOCAL_ONLY,
  setConnections: (connections) => {
    const s = get();
    const moved = connections.viewed !== s.connections.viewed;
    set({ connections });
    if (!moved) return;
    // Another desktop is viewed: nothing of the one before may stay on screen as if it were this
    // one's. The windows, tree and picture empty now; the supervisor sends the new desktop's own.
    set({ windows: [], chosenWindow: undefined, selectedKey: undefined, screen: { window: undefined, request: s.screen.request + 1, capturing: false } });
    s.setTree(undefined, undefined);
    s.setTreeStatus({ state: 'none' });
  },
  putConnection: (info) => {
    const { list, viewed } = get().connections;
    const i = list.findIndex((c) => c.name === info.name);
    set({ connections: { viewed, list: i < 0 ? [...list, info] : list.map((c, j) => (j === i ? info : c)) } });
  },
  setWindowsOf: (viewed, windows) => {
    if (get().connections.viewed === viewed) get().setWindows(windows);
  },
  dropConnection: (name) => {
    const { list, viewed } = get().connections;
    set({ connections: { viewed, list: list.filter((c) => c.name !== name) } });
  },
});
