// What the person's UI commands (supervisorUi.ts) act on, declared here where it is used: the
// composition root (main/core/supervisor.ts) implements it, so ui/ never imports the class that
// composes it.
import type { AgentConnectInfo, AgentGrant, ConnectionsView, ReceiptEntry, UiSnapshot, WindowInfo } from '../../../protocol/index.js';
import type { ConnectionManager } from '../connections/manager.js';
import type { HelperCaller, HelperSupervisor } from '../helperLink/helperSupervisor.js';
import type { Journal } from '../journal/index.js';
import type { Clock } from '../runtime/clock.js';
import type { AgentRegistry } from '../session/agentRegistry.js';
import type { ReceiptPictures } from '../session/receiptPictures.js';
import type { SettingsStore } from '../settings/settingsStore.js';
import type { ApprovalQueue } from '../supervision/approvals.js';
import type { Brakes } from '../supervision/brakes.js';
import type { HoldList } from '../supervision/holds.js';
import type { Policy } from '../supervision/policy.js';
import type { TreeFollower } from './treeFollower.js';
import type { UiHub } from './uiHub.js';

/** The supervisor as the person's UI commands reach it. */
export interface UiHost {
  /** The approval queue the person decides. */
  readonly approvals: ApprovalQueue;
  /** Actions held by a pause. */
  readonly holds: HoldList;
  /** Deny rules and session rules. */
  readonly policy: Policy;
  readonly brakes: Brakes;
  /** Settles once the latest brake change is journaled and, for an emergency stop, has taken effect (bounded). */
  brakeRecorded(): Promise<void>;
  /** The connected agents. */
  readonly agents: Pick<AgentRegistry, 'get'>;
  /** Ends an agent's session: what it left pending is withdrawn. */
  endSession(id: string, reason: string): void;
  /** The connected agents as the UI lists them. */
  agentInfos(): UiSnapshot['agents'];
  /** Tells the UI who is connected. */
  emitAgents(): void;
  /** A person used a UI (`visible`: its page is shown). */
  notePresence(visible: boolean): void;
  /** The chosen window's live tree. */
  readonly tree: TreeFollower;
  /** The viewed connection's windows, as last listed for the person. */
  windows: WindowInfo[];
  /** The connection whose windows, tree and screen the person views. */
  readonly viewed: string;
  /** The viewed connection's helper. */
  readonly viewedHelper: HelperCaller;
  /** The person views another connection. */
  view(name: string): Promise<void>;
  /** The UI channel's events. */
  readonly ui: Pick<UiHub, 'emit'>;
  /** The newest receipts, as the timeline shows them. */
  readonly receipts: readonly ReceiptEntry[];
  /** The timeline's pictures. */
  readonly pictures: Pick<ReceiptPictures, 'read'>;
  /** The person's settings and deny rules, saved. */
  readonly settings: SettingsStore;
  /** The local helper: its health, and what it never reads. */
  readonly helper: Pick<HelperSupervisor, 'health' | 'setExclusions'>;
  /** What the helper never reads or acts on for anyone. */
  exclusions(): Parameters<HelperSupervisor['setExclusions']>[0];
  /** Every connection (docs/connections.md#registry-and-tools). */
  readonly connections: ConnectionManager;
  /** The desktops this supervisor reaches, as the person sees them. */
  connectionsView(): ConnectionsView;
  /** The receipts journal. */
  readonly journal: Pick<Journal, 'append'>;
  readonly clock: Pick<Clock, 'now'>;
  /** Makes a one-time link that signs another browser in (browser mode only). */
  readonly pairLink: (() => { url: string; expires_at: string }) | undefined;
  /** The granted agents, as Settings → Agents lists them. */
  grantInfos(): AgentGrant[];
  /** Revokes a grant: its credential is refused from now on and its sessions end; false when there is none. */
  revokeGrant(id: string): boolean;
  /** Gives an `overseer mcp` agent its own credential, shown once; undefined when no more grants may be made. */
  grantStdioAgent(name: string): { grant: AgentGrant; credential: string } | undefined;
  /** How agents connect, for the UI's connection snippet. */
  readonly options: { readonly connection: AgentConnectInfo };
}
