// Receipts as the UI gets them, for the tests of the receipts timeline: the model's rows and
// filters, and the store that gathers them from the snapshot and its backfill.
import type { Decision, Receipt, ReceiptEntry } from '../../protocol/index.js';

/** When the first record was journaled. */
export const T0 = Date.parse('2025-03-04T10:00:00Z');
/** The window every act aims at. */
export const WINDOW = { window: 'w1', title: 'Overseer Fixture', app: 'fixtureApp.py', pid: 4242, process_start: '1', foreground: true };

/** A completed invoke of the Counter button, with these fields changed. */
export const receipt = (id: string, extra: Partial<Receipt> = {}): Receipt => ({
  receipt_id: id,
  action: 'invoke',
  window: WINDOW,
  target: { key: `k-${id}`, role: 'button', name: 'Counter', automation_id: 'counter', state: {}, patterns: [] },
  outcome: 'completed',
  action_call_made: true,
  verification: 'not_checked',
  after_read: { status: 'full' },
  ...extra,
});

/** One journal record as the UI gets it, `atS` seconds after T0. */
export const entry = (seq: number, atS: number, tool: string, r?: Receipt, extra: Partial<ReceiptEntry> = {}): ReceiptEntry => ({
  seq,
  at: new Date(T0 + atS * 1000).toISOString(),
  session: 'session-1234abcd',
  agent: 'claude',
  tool,
  outcome: r?.outcome ?? 'ok',
  duration_ms: 200,
  summary: r !== undefined ? `${r.action} ${r.target?.role ?? ''} "${r.target?.name ?? ''}" → ${r.outcome}` : `${tool} ok`,
  ...(r !== undefined ? { receipt: r, receipt_id: r.receipt_id } : {}),
  ...extra,
});

/** A decision by `who`, made at T0. */
export const by = (verdict: Decision['verdict'], who: Decision['by'], note?: string): Decision => ({
  verdict,
  by: who,
  at: new Date(T0).toISOString(),
  ...(note !== undefined ? { note } : {}),
});
/** The person approved it. */
export const person = by('approved', 'human');

/** An act first answered pending, then its final receipt journaled on its own, then the agent's action_wait: three records. */
export function pendingThenFinal(seq: number, atS: number, id: string, final: Partial<Receipt>): ReceiptEntry[] {
  const pending = receipt(id, { outcome: 'pending', action_call_made: false, ...(final.action !== undefined ? { action: final.action } : {}) });
  const done = receipt(id, { decision: person, ...final });
  return [
    entry(seq, atS, 'element_act', pending, { duration_ms: 1000 }),
    entry(seq + 1, atS + 4, 'element_act', done, { duration_ms: 0, summary: `invoke "Counter" → ${done.outcome} (after the agent was answered)` }),
    entry(seq + 2, atS + 5, 'action_wait', done, { duration_ms: 20 }),
  ];
}

/** The records nine acts and one read leave, 14 in all: pending answers, finals, action_waits, refusals. */
export function nineActs(): ReceiptEntry[] {
  return [
    entry(1, 0, 'window_list'),
    entry(2, 1, 'element_act', receipt('A1', { decision: person })),
    entry(3, 2, 'element_act', receipt('A2', { decision: by('auto', 'policy', 'rule R7') })),
    ...pendingThenFinal(4, 3, 'A3', { action: 'set_value', text: 'Rita', verification: 'verified' }),
    entry(
      7,
      10,
      'element_act',
      receipt('A4', {
        action: 'toggle',
        outcome: 'refused',
        action_call_made: false,
        decision: by('denied', 'human', 'wrong checkbox'),
        refusal: { code: 'denied', detail: 'wrong checkbox' },
      }),
    ),
    entry(
      8,
      11,
      'element_act',
      receipt('A5', { outcome: 'refused', action_call_made: false, refusal: { code: 'not_found', detail: 'nothing matched {"automation_id":"nope"}' } }),
    ),
    entry(9, 12, 'element_act', receipt('A6', { action: 'focus', decision: by('auto', 'policy') })),
    entry(
      10,
      13,
      'type_text',
      receipt('A7', {
        action: 'type_text',
        target: undefined,
        text: 'hello',
        decision: person,
        screen: { element: { role: 'edit', name: 'Name', password: false } },
      }),
    ),
    ...pendingThenFinal(11, 14, 'A8', { outcome: 'failed', error: { code: 'stale_window', detail: 'the window closed' } }),
    entry(
      14,
      20,
      'type_text',
      receipt('A9', {
        action: 'type_text',
        target: undefined,
        text: 'sesame',
        decision: person,
        screen: { element: { role: 'password_text', name: 'Password', password: true } },
      }),
    ),
  ];
}
