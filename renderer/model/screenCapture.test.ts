import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReceiptEntry } from '../../protocol/index.js';
import { captureFailureText, lastDispatchSeq } from './screenCapture.js';

const entry = (seq: number, receipt?: Partial<NonNullable<ReceiptEntry['receipt']>>): ReceiptEntry => ({
  seq,
  at: new Date(seq).toISOString(),
  session: 's1',
  agent: 'claude',
  tool: receipt === undefined ? 'window_read' : 'click',
  outcome: receipt?.outcome ?? 'completed',
  duration_ms: 1,
  summary: '',
  ...(receipt !== undefined
    ? {
        receipt: {
          receipt_id: `r${seq}`,
          action: 'click',
          outcome: 'completed',
          action_call_made: true,
          verification: 'not_checked',
          after_read: { status: 'unavailable' },
          ...receipt,
        },
      }
    : {}),
});

describe('the Screen view’s captures', () => {
  it('says "capture unavailable" with the reason, naming any other code', () => {
    assert.equal(captureFailureText({ code: 'capture_unavailable', detail: 'Wayland without a portal' }), 'capture unavailable: Wayland without a portal');
    assert.equal(
      captureFailureText({ code: 'disconnected', detail: 'screen_view: not connected' }),
      'capture unavailable: disconnected — screen_view: not connected',
    );
  });

  it('captures again after an action reached an application, not after reads, refusals or pending answers', () => {
    assert.equal(lastDispatchSeq([]), undefined);
    assert.equal(lastDispatchSeq([entry(1), entry(2, { outcome: 'refused', action_call_made: false })]), undefined);
    assert.equal(lastDispatchSeq([entry(1, {}), entry(2), entry(3, { outcome: 'pending', action_call_made: false })]), 1);
    assert.equal(lastDispatchSeq([entry(1, {}), entry(4, { outcome: 'unknown', action_call_made: 'unknown' })]), 4);
  });
});
