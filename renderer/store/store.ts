import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import { applyDelta, unreachable, type UiSnapshot } from '../../protocol/index.js';
import type { AnyUiEvent } from '../api/api.js';
import { approvalsSlice, type ApprovalsSlice } from './approvalsSlice.js';
import { connectionsSlice, type ConnectionsSlice } from './connectionsSlice.js';
import { screenSlice, type ScreenSlice } from './screenSlice.js';
import {
  agentsSlice,
  connectionSlice,
  receiptsSlice,
  systemSlice,
  windowsSlice,
  type AgentsSlice,
  type ConnectionSlice,
  type ReceiptsSlice,
  type SystemSlice,
  type WindowsSlice,
} from './slices.js';

/** Applies UI channel events: a snapshot replaces everything, the others patch. */
export interface EventsSlice {
  applySnapshot(snapshot: UiSnapshot): void;
  applyEvent(event: AnyUiEvent): void;
}

/** Everything the UI holds. */
export type AppState = ConnectionSlice &
  ConnectionsSlice &
  AgentsSlice &
  WindowsSlice &
  ApprovalsSlice &
  ReceiptsSlice &
  SystemSlice &
  ScreenSlice &
  EventsSlice;

const eventsSlice: StateCreator<AppState, [], [], EventsSlice> = (set, get) => ({
  applySnapshot: (s) => {
    const state = get();
    set({
      ready: true,
      agents: s.agents,
      helper: s.helper,
      windows: s.windows,
      chosenWindow: s.chosen_window,
      brake: s.brake,
      settings: s.settings,
      rules: s.rules,
      grants: s.grants,
      agentConnect: s.connection,
      connections: s.connections,
    });
    state.setTree(s.chosen_window, s.tree, [], s.tree_status.read_at);
    state.setTreeStatus(s.tree_status);
    state.setReceipts(s.receipts);
    state.setPending(s.pending);
    state.noteFinals(s.receipts);
    state.setHeld(s.held);
  },
  applyEvent: (e) => {
    const s = get();
    switch (e.event) {
      case 'snapshot':
        return s.applySnapshot(e.data);
      case 'agents':
        return s.setAgents(e.data);
      case 'windows':
        return s.setWindows(e.data);
      case 'tree':
        // A late answer for a window no longer chosen is ignored.
        if (s.chosenWindow !== undefined && e.data.window !== s.chosenWindow) return;
        set({ chosenWindow: e.data.window });
        // Marks when a tree arrives; the tree view measures from here to its first painted frame.
        globalThis.performance?.mark?.('overseer:tree-received');
        return s.setTree(e.data.window, e.data.elements, e.data.truncated_by, e.data.read_at);
      case 'tree_status':
        if (s.chosenWindow !== undefined && e.data.window !== undefined && e.data.window !== s.chosenWindow) return;
        return s.setTreeStatus(e.data);
      case 'pending_delta':
        return s.setPending(applyDelta(s.pending, e.data));
      case 'held_delta':
        return s.setHeld(applyDelta(s.held, e.data));
      case 'receipt':
        s.addReceipt(e.data);
        return s.noteFinals([e.data]);
      case 'receipts_backfill': {
        // Older receipts than those the snapshot carried: they go before what is held, once each.
        const held = new Set(s.receipts.map((r) => r.seq));
        s.setReceipts([...e.data.filter((r) => !held.has(r.seq)), ...s.receipts].sort((a, b) => a.seq - b.seq));
        return s.noteFinals(e.data);
      }
      case 'brake':
        return s.setBrake(e.data);
      case 'helper':
        return s.setHelper(e.data);
      case 'settings':
        return s.setSettings(e.data);
      case 'rules':
        return s.setRules(e.data);
      case 'connections':
        return s.setConnections(e.data);
      case 'grants':
        return s.setGrants(e.data);
      case 'agent_connect':
        return s.setAgentConnect(e.data);
      default:
        return unreachable(e, 'UI event');
    }
  },
});

/** Makes a store (one per page; tests make their own). */
export function createAppStore(): StoreApi<AppState> {
  return createStore<AppState>()((...a) => ({
    ...connectionSlice(...a),
    ...connectionsSlice(...a),
    ...agentsSlice(...a),
    ...windowsSlice(...a),
    ...approvalsSlice(...a),
    ...receiptsSlice(...a),
    ...systemSlice(...a),
    ...screenSlice(...a),
    ...eventsSlice(...a),
  }));
}
