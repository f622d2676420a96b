import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError, type ScreenCaptureResult } from '../../../protocol/index.js';
import { MAX_SCREENSHOTS, ScreenshotStore } from './screenshots.js';

const capture = (n: number): ScreenCaptureResult => ({
  capture: `C${n}`,
  image: { data: 'AAAA', mime: 'image/png', width: 10, height: 5 },
  transform: { scale_x: 2, scale_y: 2, origin: { x: 0, y: 0 } },
  region: { x: 0, y: 0, width: 20, height: 10 },
  capture_path: 'x11:GetImage',
  degradations: [],
  masked: [],
  sha256: 'f'.repeat(64),
  bytes: 3,
  capture_ms: 1,
  encode_ms: 1,
});
const code = (c: string) => (e: unknown) => e instanceof OverseerError && e.code === c;

describe('an agent’s screenshots', () => {
  it('resolves the latest by default and a named one, and says why one cannot be used', () => {
    const store = new ScreenshotStore();
    assert.throws(() => store.resolve(undefined), code('invalid_argument'), 'none taken yet');
    const first = store.add(capture(0));
    const second = store.add(capture(1));
    assert.match(first.id, /^S[A-Za-z0-9_-]+$/);
    assert.equal(store.resolve(undefined).id, second.id);
    assert.equal(store.resolve(first.id).capture, 'C0');
    assert.equal(store.resolve(first.id).picture, 'data:image/png;base64,AAAA');
    for (let i = 2; i < MAX_SCREENSHOTS + 2; i++) store.add(capture(i));
    assert.throws(() => store.resolve(first.id), code('snapshot_evicted'));
    assert.throws(() => store.resolve('Snever'), code('snapshot_unknown'));
  });
});
