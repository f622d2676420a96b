import { lastDispatchSeq } from '../model/screenCapture.js';
import type { AppState } from './store.js';

// One selector per value read, so a component re-renders only when that value changes.
export const selectConnection = (s: AppState) => s.connection;
export const selectReady = (s: AppState) => s.ready;
/** Whether what the UI shows is live: connected, and the supervisor's snapshot arrived since. */
export const selectLive = (s: AppState) => s.connection.state === 'open' && s.ready;
export const selectNotice = (s: AppState) => s.notice;
export const selectView = (s: AppState) => s.view;
export const selectAgents = (s: AppState) => s.agents;
export const selectHelper = (s: AppState) => s.helper;
export const selectWindows = (s: AppState) => s.windows;
export const selectChosenWindow = (s: AppState) => s.chosenWindow;
export const selectNodes = (s: AppState) => s.nodes;
export const selectByKey = (s: AppState) => s.byKey;
export const selectTruncatedBy = (s: AppState) => s.truncatedBy;
export const selectTreeReadAt = (s: AppState) => s.treeReadAt;
export const selectTreeStatus = (s: AppState) => s.treeStatus;
export const selectCollapsed = (s: AppState) => s.collapsed;
export const selectSelectedKey = (s: AppState) => s.selectedKey;
export const selectSelectedNode = (s: AppState) => (s.selectedKey === undefined ? undefined : s.byKey.get(s.selectedKey));
export const selectSearch = (s: AppState) => s.search;
export const selectMatches = (s: AppState) => s.matches;
export const selectMatchIndex = (s: AppState) => s.matchIndex;
export const selectPending = (s: AppState) => s.pending;
export const selectPendingCount = (s: AppState) => s.pending.length;
export const selectHeld = (s: AppState) => s.held;
export const selectSlots = (s: AppState) => s.slots;
export const selectRecords = (s: AppState) => s.records;
export const selectSelectedApproval = (s: AppState) => s.selectedApproval;
export const selectSelectedSince = (s: AppState) => s.selectedSince;
export const selectSettled = (s: AppState) => s.settled;
export const selectDenying = (s: AppState) => s.denying;
export const selectAllowing = (s: AppState) => s.allowing;
/** Where one control that decides was seen, for its arming. */
export const selectSeen = (key: string) => (s: AppState) => s.seen[key];
/** Whether the end of a card's text has been on screen (a remote_exec command is approved only then). */
export const selectEndSeen = (id: string) => (s: AppState) => s.endsSeen[id] === true;
/** The "Not decided" note aimed at one card, held row, or the queue. */
export const selectRefusal = (target: string) => (s: AppState) => s.refusals[target];
/** The decision record of a card that left the queue. */
export const selectRecord = (id: string) => (s: AppState) => s.records.find((r) => r.approval_id === id);
/** Whether an action is held by the pause now. */
export const selectIsHeld = (id: string) => (s: AppState) => s.held.some((h) => h.approval_id === id);
export const selectReceipts = (s: AppState) => s.receipts;
export const selectReceiptFilters = (s: AppState) => s.receiptFilters;
export const selectSelectedReceipt = (s: AppState) => s.selectedReceipt;
export const selectBrake = (s: AppState) => s.brake;
export const selectSettings = (s: AppState) => s.settings;
export const selectRules = (s: AppState) => s.rules;
export const selectGrants = (s: AppState) => s.grants;
export const selectAgentConnect = (s: AppState) => s.agentConnect;
/** The desktops this supervisor reaches (docs/supervision.md#where-an-action-lands). */
export const selectConnections = (s: AppState) => s.connections.list;
/** The connection the windows list, tree and Screen view show. */
export const selectViewedConnection = (s: AppState) => s.connections.viewed;
export const selectTreeAside = (s: AppState) => s.treeAside;
export const selectScreen = (s: AppState) => s.screen;
/** The latest receipt of an action that reached an application: the Screen view captures again after it. */
export const selectLastDispatch = (s: AppState) => lastDispatchSeq(s.receipts);
