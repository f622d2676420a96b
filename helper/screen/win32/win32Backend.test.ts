import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { openWin32ScreenBackend } from './win32Backend.js';

describe('openWin32ScreenBackend', () => {
  it('answers capture_unavailable off Windows, and importing it never loaded koffi', { skip: process.platform === 'win32' && 'this is Windows' }, () => {
    assert.throws(
      () => openWin32ScreenBackend(),
      (e: unknown) => e instanceof OverseerError && e.code === 'capture_unavailable' && e.info.data?.['reason'] === 'not_windows',
    );
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('koffi'));
    assert.deepEqual(loaded, []);
  });
});
