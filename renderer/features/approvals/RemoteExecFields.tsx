import { useState } from 'react';
import type { RemoteExecApproval } from '../../../protocol/index.js';
import { selectEndSeen } from '../../store/selectors.js';
import { lineCount, segments } from '../../model/untrustedText.js';
import { useApp } from '../../store/useApp.js';
import { formatDuration } from '../shell/time.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/**
 * A remote_exec card's body: the exact command, in a monospace block where hidden and
 * direction-changing characters, runs of spaces and every line break are marked (what the person
 * reads is what runs), and how long it may run. Where it runs is on the card's head (CardWhere).
 *
 * A command can hide its payload on a line behind "show all": the card says plainly when not all of
 * it is shown, and Approve waits until the end of the command has been on screen
 * (docs/supervision.md#arming-and-decisions). Its status line keeps its height, so reading the
 * command to its end moves nothing on the card.
 */
export function RemoteExecFields({ card }: { card: RemoteExecApproval }) {
  const exec = card.remote_exec;
  const seen = useApp(selectEndSeen(card.approval_id));
  const [whole, setWhole] = useState(true);
  const lines = lineCount(segments(exec.command));
  const size = `${lines} ${lines === 1 ? 'line' : 'lines'}, ${[...exec.command].length} characters`;
  return (
    <div className="remote-exec" data-testid="remote-exec">
      <div className="muted small">Runs this shell command there, as the connection’s user ({size}):</div>
      <div className="command-box">
        <UntrustedText text={exec.command} block testId="remote-exec-command" endOf={card.approval_id} onWhole={setWhole} />
      </div>
      <p className={`remote-exec-status small${seen ? '' : ' unread'}`} data-testid="remote-exec-status" data-whole={String(whole)} data-seen={String(seen)}>
        {!whole
          ? `⚠ Not all of it is shown (${size}): Approve waits until you read to its end.`
          : !seen
            ? '⚠ Scroll to the end of this command: Approve waits until you have seen it.'
            : 'You have seen this command to its end.'}
      </p>
      <div className="small">
        Ended after <span data-testid="remote-exec-timeout">{formatDuration(exec.timeout_ms)}</span> if still running; its output returns to the agent.
      </div>
    </div>
  );
}
