import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScreenView } from '../../protocol/index.js';
import { createAppStore } from './store.js';

const view = (captured_at: string): ScreenView => ({
  picture: 'data:image/jpeg;base64,',
  width: 640,
  height: 400,
  transform: { scale_x: 2, scale_y: 2, origin: { x: 0, y: 0 } },
  masked: [],
  captured_at,
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
});
