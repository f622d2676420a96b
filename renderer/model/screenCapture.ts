// What the Screen view makes of the supervisor's answers: when to capture again, and how a failed
// capture reads.
import type { ReceiptEntry } from '../../protocol/index.js';

/** Why a capture failed: an error code of docs/tools.md#errors (capture_unavailable…), or `disconnected`, and the reason. */
export interface CaptureFailure {
  code: string;
  detail: string;
}

/**
 * The sequence number of the latest receipt of an action that reached the application (dispatched,
 * or perhaps dispatched): the Screen view captures again after each. Undefined when there is none.
 */
export function lastDispatchSeq(receipts: readonly ReceiptEntry[]): number | undefined {
  for (let i = receipts.length - 1; i >= 0; i--) {
    const r = receipts[i] as ReceiptEntry;
    if (r.receipt !== undefined && r.receipt.outcome !== 'pending' && r.receipt.action_call_made !== false) return r.seq;
  }
  return undefined;
}

/** What the view says when a capture fails: always "capture unavailable", with the supervisor's reason. */
export function captureFailureText(error: CaptureFailure): string {
  return error.code === 'capture_unavailable' ? `capture unavailable: ${error.detail}` : `capture unavailable: ${error.code} — ${error.detail}`;
}
