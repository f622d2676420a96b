import type { ApprovalQueue } from './approvals.js';
import { allowCovers, type AllowShape } from './policy.js';

/**
 * Why a session rule of this shape would not decide a queued card, or undefined when it would
 * (docs/supervision.md#allow-for-the-session): the card must still be pending, made by an action
 * policy decides, matched by the same matcher policy uses (`allowCovers`), and within what a rule
 * can cover of its keys or text (ruleScope.ts). Nothing here is a second matcher.
 */
export function whyNotCovered(queue: ApprovalQueue, rule: AllowShape, approvalId: string): string | undefined {
  const item = queue.get(approvalId);
  if (item === undefined) return 'it is no longer pending (decided, expired, braked or withdrawn)';
  const subject = queue.subject(approvalId);
  if (subject === undefined) return 'it is not an action a session rule decides';
  if (!allowCovers(rule, { session: item.session, connection: subject.connection, action: subject.action, app: subject.app, element: subject.element }))
    return 'the new rule does not cover it (another agent session, desktop, action, application or element)';
  return subject.outOfRule?.(rule.scope);
}

/** The pending cards other than `except` that a rule of this shape would decide, oldest first. */
export function coveredCards(queue: ApprovalQueue, rule: AllowShape, except: string): string[] {
  return queue
    .list()
    .map((item) => item.approval_id)
    .filter((id) => id !== except && whyNotCovered(queue, rule, id) === undefined);
}
