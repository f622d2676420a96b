/**
 * What the brake bar says (docs/supervision.md#brakes): each state in words that stay true while
 * it lasts. An emergency stop kills every helper but keeps every agent's session, so the bar says
 * how many agents are still connected — the same count the Agents panel lists — and that their
 * calls are refused until the re-arm, never that they are gone.
 */
import type { BrakeState } from '../../protocol/index.js';

export interface BrakeWords {
  title: string;
  detail: string;
}

/** The in-page keys of the brakes, the same in the browser and the desktop app (where Emergency stop is also global). */
export const BRAKE_KEYS = {
  pause: { aria: 'Control+Alt+Shift+P', shown: 'Ctrl+Alt+Shift+P' },
  emergency: { aria: 'Control+Alt+Shift+Escape', shown: 'Ctrl+Alt+Shift+Esc' },
} as const;

const agentsWord = (n: number) => (n === 1 ? '1 agent stays connected' : `${n} agents stay connected`);

export function brakeWords(state: BrakeState | 'unknown', agents: number): BrakeWords {
  switch (state) {
    case 'running':
      return { title: 'Running', detail: 'Approved actions are dispatched.' };
    case 'paused':
      return { title: 'Paused', detail: 'Nothing new is dispatched; pending items wait.' };
    case 'stopped':
      return { title: 'Stopped', detail: 'Pending items were answered braked; new actions are refused.' };
    case 'emergency':
      return {
        title: 'EMERGENCY STOP',
        detail:
          agents === 0
            ? 'Every helper is stopped; no agent is connected. Re-arm to start the helpers again.'
            : `Every helper is stopped; ${agentsWord(agents)}, every call refused until you re-arm.`,
      };
    case 'unknown':
      return { title: 'Unknown — not connected', detail: 'The brake state cannot be known or changed until the supervisor answers again.' };
  }
}

/** Which brake an in-page key press asks for, if any: the chords above, whatever has focus. */
export function brakeKey(e: {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  metaKey: boolean;
  repeat: boolean;
}): 'pause' | 'emergency_stop' | undefined {
  if (e.repeat || !(e.ctrlKey || e.metaKey) || !e.altKey || !e.shiftKey) return undefined;
  if (e.key === 'Escape') return 'emergency_stop';
  if (e.key.toLowerCase() === 'p') return 'pause';
  return undefined;
}
