// A card whose payload can sit anywhere in a long text is approved only once the person has had
// its end on screen (docs/supervision.md#arming-and-decisions): a shell command can put
// `curl … | sh` on its ninth line, behind "show all", or after thousands of spaces, and text typed
// into a terminal or set into a field can do the same.
import { cardText, unreachable, type PendingApproval } from '../../protocol/index.js';
import { lineCount, segments } from './untrustedText.js';

/** Code points of typed text or a new value past which it could push a payload out of sight (one line fits a card). */
const LONG_TEXT = 160;

/** Whether the card's typed text or new value is masked (a password field): the person never sees it, so there is no end to read. */
export function textMasked(card: PendingApproval): boolean {
  const t = card.kind === 'element' ? card.target : undefined;
  return card.password || t?.redacted === true || t?.state.password === true;
}

/** Whether a card's text is long, by card: cards are immutable, and every render of a card asks (a typed text may be 100,000 characters). */
const longCards = new WeakMap<PendingApproval, boolean>();

/** Whether a type_text or set_value card's text is long enough to hide a part (more than one line, or past LONG_TEXT). */
function hasLongText(card: PendingApproval): boolean {
  let long = longCards.get(card);
  if (long === undefined) longCards.set(card, (long = textIsLong(card)));
  return long;
}

function textIsLong(card: PendingApproval): boolean {
  const text = cardText(card);
  if ((card.action !== 'type_text' && card.action !== 'set_value') || text === undefined || textMasked(card)) return false;
  return lineCount(segments(text)) > 1 || [...text].length > LONG_TEXT;
}

/** Whether Approve waits until the end of what the card shows has been on screen: a remote_exec command, a long typed text or new value. */
export function mustReadToEnd(card: PendingApproval): boolean {
  switch (card.kind) {
    case 'remote_exec':
      return true;
    case 'element':
    case 'screen':
      return hasLongText(card);
    case 'question':
    case 'handoff':
    case 'add_connection':
    case 'agent_grant':
      return false;
    default:
      return unreachable(card);
  }
}

/** What the card asks the person to read to its end, in their words (only the kinds mustReadToEnd names ever ask). */
function what(card: PendingApproval): string {
  switch (card.kind) {
    case 'remote_exec':
      return 'command';
    case 'screen':
      return card.action === 'type_text' ? 'text' : 'new value';
    case 'element':
      return 'new value';
    case 'question':
    case 'handoff':
    case 'add_connection':
    case 'agent_grant':
      return 'card';
    default:
      return unreachable(card);
  }
}

/** Why Approve refused while the end of the text was never on screen. */
export function unreadWhy(card: PendingApproval): string {
  return `Not approved: the end of this ${what(card)} has not been on screen — show all of it and read it to its end first.`;
}

/** What the Approve button says while it waits for that (its tooltip and, for screen readers, its name). */
export function unreadWait(card: PendingApproval): string {
  return `waits until you have seen the whole ${what(card)}`;
}
