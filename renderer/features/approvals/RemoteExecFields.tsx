import type { PendingApproval } from '../../../protocol/index.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/**
 * A remote_exec card's body: the exact command, in a monospace block where hidden and
 * direction-changing characters and every line break are marked (what the person reads is what
 * runs), and how long it may run. Where it runs is on the card's head (CardWhere).
 */
export function RemoteExecFields({ card }: { card: PendingApproval }) {
  const exec = card.remote_exec;
  if (exec === undefined) return null;
  return (
    <div className="remote-exec" data-testid="remote-exec">
      <div className="muted small">Runs this shell command there, as the connection’s user:</div>
      <div className="command-box">
        <UntrustedText text={exec.command} block testId="remote-exec-command" />
      </div>
      <div className="small">
        Ended after <span data-testid="remote-exec-timeout">{formatDuration(exec.timeout_ms)}</span> if still running; its output returns to the agent.
      </div>
    </div>
  );
}
