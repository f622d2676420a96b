// Where the screen tier cannot know where windows are (Wayland: no client is told), an approved
// click or key could land on the supervisor's own window — on an Approve button, on Re-arm, in
// Settings — and nothing before dispatch can refuse it `excluded_target` as on X11. So the
// supervisor refuses the person's decisions and changes that arrive while such an input is being
// sent, and for a moment after, when they could be its echo (docs/security.md#screen-input-where-windows-are-unknown).
// Stopping is never refused: a brake that an agent's input pressed stops only more of the agent.
//
//   const end = guard.begin();   // around the dispatch of an input whose card said windows_unknown
//   try { await dispatch(); } finally { end(); }
//   guard.refusal('approve', {}) // an ErrorInfo while it may be the input's echo, else undefined

import { errorInfo, type ErrorInfo } from '../../../protocol/index.js';
import type { Clock } from '../runtime/clock.js';

/**
 * How long after such an input ended a decision may still be its echo: the click reaches the
 * browser, which sends the command over its WebSocket. Longer than a busy browser takes, and
 * shorter than the 0.7 s a new card needs to arm plus reading it.
 */
export const LANDING_GRACE_MS = 1000;

/** UI commands that decide for the person or change what agents may do; reads, views and brakes that stop are not here. */
const GUARDED = new Set([
  'approve',
  'deny',
  'cancel_held',
  'answer_question',
  'resume_handoff',
  'update_settings',
  'add_rule',
  'remove_rule',
  'pair_link',
  'disconnect_agent',
  'connection_add',
  'connection_set_enabled',
  'connection_remove',
]);
/** Brake actions that let agents go on again. */
const RELEASING_BRAKES = new Set(['resume', 'rearm']);

export class LandingGuard {
  private inFlight = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  /** Marks an input being sent where windows have no known places; the function returned ends it (once). */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastEnd = this.clock.now();
    };
  }

  /** Whether a UI command now could be such an input's echo: the refusal to answer it with, or undefined. */
  refusal(command: string, params: unknown): ErrorInfo | undefined {
    const p = params as { action?: string; forget?: boolean } | undefined;
    const releasing = command === 'brake' && RELEASING_BRAKES.has(p?.action ?? '');
    // Forgetting the desktop's consent makes it ask again: a change, where reading it is not.
    const forgetting = command === 'screen_consent' && p?.forget === true;
    if (!GUARDED.has(command) && !releasing && !forgetting) return undefined;
    const since = this.clock.now() - this.lastEnd;
    if (this.inFlight === 0 && since >= LANDING_GRACE_MS) return undefined;
    const wait = this.inFlight > 0 ? LANDING_GRACE_MS : Math.ceil(LANDING_GRACE_MS - since);
    return errorInfo(
      'excluded_target',
      "an agent's click or keys were landing on this desktop, where Overseer cannot tell which window they hit: this could have been them. Do it again in a moment.",
      { reason: 'agent_input_landing', retry_after_ms: wait },
    );
  }
}
