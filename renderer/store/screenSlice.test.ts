import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReceiptEntry, ScreenView } from '../../protocol/index.js';
import { captureFailureText, lastDispatchSeq } from './screenSlice.js';
import { createAppStore } from './store.js';

const view = (captured_at: string): ScreenView => ({
  picture: 'data:image/jpeg;base64,',
  width: 640,
  height: 400,
  transform: { scale_x: 2, scale_y: 2, origin: { x: 0, y: 0 } },
  masked: [],
  captured_at,
});

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

describe('the Screen view state', () => {
  it('shows the answer to the latest capture and drops an earlier one that arrives late', () => {
    const store = createAppStore();
    const first = store.getState().screenRequested('w1');
    const second = store.getState().screenRequested('w2');
    store.getState().screenAnswered(second, { view: view('b') });
    store.getState().screenAnswered(first, { view: view('a') });
    assert.equal(store.getState().screen.shown?.view.captured_at, 'b');
    assert.equal(store.getState().screen.shown?.window, 'w2');
    assert.equal(store.getState().screen.capturing, false);
  });

  it('keeps a failure typed beside the last picture, and the next picture clears it', () => {
    const store = createAppStore();
    store.getState().screenAnswered(store.getState().screenRequested(undefined), { view: view('a') });
    store.getState().screenAnswered(store.getState().screenRequested(undefined), { error: { code: 'capture_unavailable', detail: 'the window is covered' } });
    assert.equal(store.getState().screen.error?.code, 'capture_unavailable');
    assert.equal(store.getState().screen.shown?.view.captured_at, 'a', 'the older picture stays, said to be older by the view');
    store.getState().screenAnswered(store.getState().screenRequested(undefined), { view: view('c') });
    assert.equal(store.getState().screen.error, undefined);
  });

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
