import type { StateCreator } from 'zustand';
import {
  type AgentGrant,
  MAX_RECEIPTS,
  type AgentInfo,
  type BrakeState,
  type Element,
  type HelperHealth,
  type PolicyRule,
  type ReceiptEntry,
  type Settings,
  type TreeStatus,
  type AgentConnectInfo,
  type WindowInfo,
} from '../../protocol/index.js';
import type { LinkStatus } from '../api/api.js';
import { ancestorsOf, flattenTree, searchTree, type TreeNode } from '../model/tree.js';
import type { AppState } from './store.js';
import type { ReceiptFilters } from '../model/receiptFilter.js';

/** The center view. */
export type View = 'tree' | 'receipts' | 'settings';

/** Connection to the supervisor, plus the last notice for the person. */
export interface ConnectionSlice {
  connection: LinkStatus;
  /** Whether a snapshot arrived since the connection last opened: only then is what the UI shows current. */
  ready: boolean;
  notice: { text: string; at: number } | undefined;
  view: View;
  setConnection(status: LinkStatus): void;
  setNotice(text: string | undefined): void;
  setView(view: View): void;
}

export const connectionSlice: StateCreator<AppState, [], [], ConnectionSlice> = (set) => ({
  connection: { state: 'connecting', attempt: 0 },
  ready: false,
  notice: undefined,
  view: 'tree',
  setConnection: (connection) => set({ connection, ...(connection.state !== 'open' ? { ready: false } : {}) }),
  setNotice: (text) => set({ notice: text === undefined ? undefined : { text, at: Date.now() } }),
  setView: (view) => set({ view }),
});

/** Connected agents and the helper's health. */
export interface AgentsSlice {
  agents: AgentInfo[];
  helper: HelperHealth;
  setAgents(agents: AgentInfo[]): void;
  setHelper(helper: HelperHealth): void;
}

export const agentsSlice: StateCreator<AppState, [], [], AgentsSlice> = (set) => ({
  agents: [],
  helper: { state: 'starting', restarts: 0 },
  setAgents: (agents) => set({ agents }),
  setHelper: (helper) => set({ helper }),
});

/** Windows, the chosen window's tree, the selected element and the tree search. */
export interface WindowsSlice {
  windows: WindowInfo[];
  chosenWindow: string | undefined;
  nodes: TreeNode[];
  byKey: Map<string, TreeNode>;
  treeWindow: string | undefined;
  truncatedBy: string[];
  /** When the shown tree was read (the last time it changed). */
  treeReadAt: string | undefined;
  /** Whether the shown tree follows the application, and since when. */
  treeStatus: TreeStatus;
  collapsed: Set<string>;
  selectedKey: string | undefined;
  search: string;
  matches: string[];
  matchIndex: number;
  setWindows(windows: WindowInfo[]): void;
  setChosenWindow(window: string | undefined): void;
  /** Shows a new tree; the selection, the collapsed rows and the search follow it by element key. */
  setTree(window: string | undefined, elements: Element[] | undefined, truncatedBy?: string[], readAt?: string): void;
  setTreeStatus(status: TreeStatus): void;
  toggleCollapsed(key: string): void;
  /** Selects an element and expands its ancestors so it is visible. */
  selectKey(key: string | undefined): void;
  setSearch(query: string): void;
  /** Moves to the next (1) or previous (-1) search match and selects it. */
  stepMatch(delta: 1 | -1): void;
}

const expandTo = (s: AppState, key: string): Set<string> => {
  const up = ancestorsOf(s.byKey, key).filter((k) => s.collapsed.has(k));
  if (up.length === 0) return s.collapsed;
  const next = new Set(s.collapsed);
  for (const k of up) next.delete(k);
  return next;
};

export const windowsSlice: StateCreator<AppState, [], [], WindowsSlice> = (set, get) => ({
  windows: [],
  chosenWindow: undefined,
  nodes: [],
  byKey: new Map(),
  treeWindow: undefined,
  truncatedBy: [],
  treeReadAt: undefined,
  treeStatus: { state: 'none' },
  collapsed: new Set(),
  selectedKey: undefined,
  search: '',
  matches: [],
  matchIndex: -1,
  setWindows: (windows) => set({ windows }),
  setChosenWindow: (chosenWindow) => set({ chosenWindow }),
  setTree: (window, elements, truncatedBy = [], readAt) => {
    const nodes = elements === undefined ? [] : flattenTree(elements);
    const byKey = new Map(nodes.map((n) => [n.key, n]));
    const s = get();
    const sameWindow = window === s.treeWindow;
    const collapsed = sameWindow ? new Set([...s.collapsed].filter((k) => byKey.has(k))) : new Set<string>();
    const matches = searchTree(nodes, s.search);
    // A tree that follows the application arrives often: the search keeps its place in it.
    const kept = sameWindow && s.selectedKey !== undefined ? matches.indexOf(s.selectedKey) : -1;
    set({ nodes, byKey, treeWindow: window, truncatedBy, treeReadAt: readAt, collapsed, matches, matchIndex: kept >= 0 ? kept : matches.length > 0 ? 0 : -1 });
    const selected = get().selectedKey;
    if (selected !== undefined && byKey.has(selected)) set({ collapsed: expandTo(get(), selected) });
    // A search typed before this tree arrived jumps to its first match here.
    else if (matches[0] !== undefined) get().selectKey(matches[0]);
  },
  setTreeStatus: (treeStatus) => set({ treeStatus }),
  toggleCollapsed: (key) => {
    const collapsed = new Set(get().collapsed);
    if (!collapsed.delete(key)) collapsed.add(key);
    set({ collapsed });
  },
  selectKey: (key) => set(key === undefined ? { selectedKey: undefined } : { selectedKey: key, collapsed: expandTo(get(), key) }),
  setSearch: (search) => {
    const matches = searchTree(get().nodes, search);
    const first = matches[0];
    set({ search, matches, matchIndex: first === undefined ? -1 : 0 });
    if (first !== undefined) get().selectKey(first);
  },
  stepMatch: (delta) => {
    const { matches, matchIndex } = get();
    if (matches.length === 0) return;
    const i = (matchIndex + delta + matches.length) % matches.length;
    set({ matchIndex: i });
    get().selectKey(matches[i]);
  },
});

/** The receipts timeline. */
export interface ReceiptsSlice {
  receipts: ReceiptEntry[];
  receiptFilters: ReceiptFilters;
  selectedReceipt: number | undefined;
  setReceipts(receipts: ReceiptEntry[]): void;
  addReceipt(receipt: ReceiptEntry): void;
  setReceiptFilter(key: keyof ReceiptFilters, value: string | undefined): void;
  clearReceiptFilters(): void;
  selectReceipt(seq: number | undefined): void;
}

export const receiptsSlice: StateCreator<AppState, [], [], ReceiptsSlice> = (set, get) => ({
  receipts: [],
  receiptFilters: {},
  selectedReceipt: undefined,
  setReceipts: (receipts) => set({ receipts: receipts.slice(-MAX_RECEIPTS) }),
  addReceipt: (receipt) => {
    const receipts = get().receipts.filter((r) => r.seq !== receipt.seq);
    receipts.push(receipt);
    if (receipts.length > MAX_RECEIPTS) receipts.splice(0, receipts.length - MAX_RECEIPTS);
    set({ receipts });
  },
  setReceiptFilter: (key, value) => {
    const receiptFilters: ReceiptFilters = { ...get().receiptFilters };
    if (value === undefined || value === '') delete receiptFilters[key];
    else receiptFilters[key] = value;
    set({ receiptFilters });
  },
  clearReceiptFilters: () => set({ receiptFilters: {} }),
  selectReceipt: (selectedReceipt) => set({ selectedReceipt }),
});

/** Brake, settings, rules and how agents connect. */
export interface SystemSlice {
  brake: BrakeState;
  settings: Settings | undefined;
  rules: PolicyRule[];
  /** The agents granted their own credential (Settings → Agents). */
  grants: AgentGrant[];
  agentConnect: AgentConnectInfo | undefined;
  setBrake(brake: BrakeState): void;
  setSettings(settings: Settings): void;
  setRules(rules: PolicyRule[]): void;
  setGrants(grants: AgentGrant[]): void;
  setAgentConnect(info: AgentConnectInfo): void;
  addRule(rule: PolicyRule): void;
  removeRule(id: string): void;
}

export const systemSlice: StateCreator<AppState, [], [], SystemSlice> = (set, get) => ({
  brake: 'running',
  settings: undefined,
  rules: [],
  grants: [],
  agentConnect: undefined,
  setBrake: (brake) => set({ brake }),
  setSettings: (settings) => set({ settings }),
  setRules: (rules) => set({ rules }),
  setGrants: (grants) => set({ grants }),
  setAgentConnect: (agentConnect) => set({ agentConnect }),
  addRule: (rule) => set({ rules: [...get().rules.filter((r) => r.id !== rule.id), rule] }),
  removeRule: (id) => set({ rules: get().rules.filter((r) => r.id !== id) }),
});
