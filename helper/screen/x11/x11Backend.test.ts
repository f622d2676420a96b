import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { openX11Backend } from './x11Backend.js';

describe('openX11Backend', () => {
  it('answers capture_unavailable when there is no display to connect to', async () => {
    await assert.rejects(
      openX11Backend({ display: ':987' }),
      (e: unknown) => e instanceof OverseerError && e.code === 'capture_unavailable' && e.info.data?.['reason'] === 'connect_failed',
    );
    await assert.rejects(openX11Backend({ display: '' }), (e: unknown) => e instanceof OverseerError && e.info.data?.['reason'] === 'no_display');
  });
});
