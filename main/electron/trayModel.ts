import {
  applyDelta,
  cardSubject,
  escapeHiddenPlain,
  unreachable,
  type BrakeState,
  type HelperHealth,
  type PendingApproval,
  type PendingDelta,
} from '../../protocol/index.js';

/** The global shortcut that engages the emergency stop from anywhere. */
export const EMERGENCY_SHORTCUT = 'CommandOrControl+Alt+Shift+Escape';

/** What the tray shows: computed from the supervisor's state, so it is tested as data. */
export interface TrayState {
  pending: readonly PendingApproval[];
  brake: BrakeState;
  helper: HelperHealth['state'];
  /** False when another program holds the emergency shortcut. */
  shortcut: boolean;
}

/** A tray menu entry: a command the tray runs, a line of status, or a separator. */
export type TrayItem =
  { kind: 'command'; id: TrayCommand; label: string; enabled: boolean; accelerator?: string } | { kind: 'status'; label: string } | { kind: 'separator' };

/** What a tray entry does. Re-arm opens the window: ending an emergency stop is done in full view. */
export type TrayCommand = 'show' | 'pause' | 'resume' | 'stop' | 'emergency_stop' | 'rearm' | 'quit';

export interface TrayView {
  icon: 'idle' | 'pending' | 'braked';
  tooltip: string;
  items: TrayItem[];
}

const BRAKE_LABEL: Record<BrakeState, string> = {
  running: 'Running',
  paused: 'Paused: nothing new is dispatched',
  stopped: 'Stopped: pending actions were refused',
  emergency: 'EMERGENCY STOP: agents and helper are down until re-armed',
};

/** The tray's icon, tooltip and menu for a state. */
export function trayView(state: TrayState): TrayView {
  const n = state.pending.length;
  const waiting = n === 0 ? 'No approvals waiting' : n === 1 ? '1 approval waiting' : `${n} approvals waiting`;
  const braked = state.brake !== 'running';
  const items: TrayItem[] = [
    { kind: 'status', label: BRAKE_LABEL[state.brake] },
    { kind: 'status', label: waiting },
    ...(state.helper === 'ready' ? [] : [{ kind: 'status' as const, label: `Accessibility helper: ${state.helper}` }]),
    { kind: 'separator' },
    { kind: 'command', id: 'show', label: n > 0 ? 'Review approvals…' : 'Open Overseer', enabled: true },
    { kind: 'separator' },
    state.brake === 'paused'
      ? { kind: 'command', id: 'resume', label: 'Resume', enabled: true }
      : { kind: 'command', id: 'pause', label: 'Pause', enabled: state.brake === 'running' },
    state.brake === 'stopped'
      ? { kind: 'command', id: 'resume', label: 'Resume after stop', enabled: true }
      : { kind: 'command', id: 'stop', label: 'Stop (refuse pending actions)', enabled: state.brake === 'running' || state.brake === 'paused' },
    state.brake === 'emergency'
      ? { kind: 'command', id: 'rearm', label: 'Re-arm…', enabled: true }
      : { kind: 'command', id: 'emergency_stop', label: 'Emergency stop', enabled: true, ...(state.shortcut ? { accelerator: EMERGENCY_SHORTCUT } : {}) },
    { kind: 'separator' },
    { kind: 'command', id: 'quit', label: 'Quit Overseer (stops supervising)', enabled: true },
  ];
  const tooltip = `Overseer: ${braked ? BRAKE_LABEL[state.brake] : waiting}${braked && n > 0 ? ` · ${waiting}` : ''}`;
  return { icon: braked ? 'braked' : n > 0 ? 'pending' : 'idle', tooltip, items };
}

/** What a notification names a card by: an element's name (else its role), or the card's subject label. */
function notifiedName(card: PendingApproval, label: string): string {
  switch (card.kind) {
    case 'element':
      return card.target.name ?? card.target.role;
    case 'screen':
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
      return label;
    case 'agent_grant':
      return card.agent_grant.grant_name;
    default:
      return unreachable(card);
  }
}

/**
 * The OS notification for approvals that arrived while the window is not in view: one for the
 * newest arrival, none when nothing new arrived or the person is already looking.
 */
export function approvalNotification(
  before: readonly PendingApproval[],
  after: readonly PendingApproval[],
  windowInView: boolean,
): { title: string; body: string; approval_id: string } | undefined {
  if (windowInView) return undefined;
  const known = new Set(before.map((p) => p.approval_id));
  const fresh = after.filter((p) => !known.has(p.approval_id));
  const newest = fresh.at(-1);
  if (newest === undefined) return undefined;
  const subject = cardSubject(newest);
  const name = newest.password ? 'a password field' : `“${notifiedName(newest, subject.label).slice(0, 60)}”`;
  const more = after.length > 1 ? ` (${after.length} waiting)` : '';
  const risk = newest.risk_hints.length > 0 ? ` ⚠ ${newest.risk_hints.join(', ')}` : '';
  return {
    title: `Approval needed${more}`,
    // Plain text: hidden and direction characters of the agent's and the application's words are written as escapes.
    body: escapeHiddenPlain(`${newest.agent} wants to ${newest.action.replace('_', ' ')} ${name} in ${subject.app}${risk}`),
    approval_id: newest.approval_id,
  };
}

/** The part of the supervisor's state the tray follows. */
export interface FollowedState {
  pending: PendingApproval[];
  brake: BrakeState;
  helper: HelperHealth['state'];
}

/** Folds one UI event into the followed state (the tray is one more client of the UI channel). */
export function followEvent(state: FollowedState, event: string, data: unknown): FollowedState {
  switch (event) {
    case 'snapshot': {
      const s = data as { pending: PendingApproval[]; brake: BrakeState; helper: HelperHealth };
      return { pending: s.pending, brake: s.brake, helper: s.helper.state };
    }
    case 'pending_delta':
      return { ...state, pending: applyDelta(state.pending, data as PendingDelta) };
    case 'brake':
      return { ...state, brake: data as BrakeState };
    case 'helper':
      return { ...state, helper: (data as HelperHealth).state };
    default:
      return state;
  }
}
