// The screen contract against the Windows backend: under Wine here (inside the Windows build of Node,
// over helper/testing/win32ScreenDriver.ts), on a Windows desktop in CI (.github/workflows/windows.yml);
// and what only Windows has: its DPI awareness.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wineUnavailable } from '../../../e2e/windows/lanes.js';
import { screenContract } from './screenContract.js';
import { windowsSetup } from './windowsLane.js';

const native = process.platform === 'win32';
const title = native ? 'screen contract: Windows (Win32 canvas)' : 'screen contract: Windows under Wine (Win32 canvas on a private desktop)';
const why = native ? undefined : wineUnavailable();
if (why === undefined)
  screenContract(title, windowsSetup, (lane) => {
    it('names the DPI awareness it obtained, a refused Per-Monitor-V2 as a degradation of capture and input', async (t) => {
      const l = lane();
      const caps = await l.screen.capabilities();
      const dpi = await l.dpi();
      if (l.native) assert.equal(dpi.degradation, null, `Per-Monitor-V2 on Windows: ${dpi.detail}`);
      else {
        // Wine 8 refuses Per-Monitor-V2 (err 87): the awareness the process has is named, never silent.
        assert.match(dpi.detail, /PER_MONITOR_AWARE_V2\) refused/);
        assert.ok(dpi.degradation !== null && caps.input.degradations.includes(dpi.degradation), JSON.stringify(caps.input));
        assert.ok(caps.capture.degradations.includes(dpi.degradation));
      }
      t.diagnostic(`# DPI: ${dpi.detail}`);
    });
  });
else
  describe(title, () => {
    it('runs the screen contract in the Wine lane', { skip: why }, () => {});
  });
