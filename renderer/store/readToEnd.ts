// A card whose payload can sit anywhere in a long text is approved only once the person has had
// its end on screen (docs/supervision.md#arming-and-decisions): a shell command can put
// `curl … | sh` on its ninth line, behind "show all", or after thousands of spaces.
import type { PendingApproval } from '../../protocol/index.js';

/** Whether Approve waits until the end of what the card shows has been on screen: a remote_exec command. */
export function mustReadToEnd(card: PendingApproval): boolean {
  return card.remote_exec !== undefined;
}

/** Why Approve refused while the end of the command was never on screen. */
export const UNREAD_WHY = 'Not approved: the end of this command has not been on screen — show all of it and read it to its end first.';

/** What the Approve button says while it waits for that (its tooltip and, for screen readers, its name). */
export const UNREAD_WAIT = 'waits until you have seen the whole command';
