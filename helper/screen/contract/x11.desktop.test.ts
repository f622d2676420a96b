// The screen contract against the X11 backend (in-process) on a private desktop, and what only X11 has.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openX11Backend } from '../x11/x11Backend.js';
import { screenContract } from './screenContract.js';
import { p50 } from './screenLane.js';
import { x11Setup } from './x11Lane.js';

screenContract('screen contract: X11 (GTK canvas on a private desktop)', x11Setup, (lane) => {
  it('answers the same region bytes through core GetImage, the path where MIT-SHM is unusable', async (t) => {
    const { canvas: c, display, screen } = lane();
    const region = await screen.capture({ x: c.x, y: c.y, width: c.width, height: c.height });
    const core = await openX11Backend({ display, shm: false });
    try {
      assert.equal((await core.capabilities()).capture.path, 'x11:GetImage');
      assert.equal((await core.capture()).capturePath, 'x11:GetImage');
      const coreRegion = await core.capture({ x: c.x, y: c.y, width: c.width, height: c.height });
      assert.ok(coreRegion.data.equals(region.data), `core and ${region.capturePath} region bytes differ`);
      const ms: number[] = [];
      for (let i = 0; i < 10; i++) ms.push((await core.capture()).captureMs);
      t.diagnostic(`# full-screen capture via x11:GetImage: p50 ${p50(ms).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)} ms`);
    } finally {
      await core.close();
    }
  });

  it('restores every spare keycode it remapped for typing to NoSymbol', async () => {
    const l = lane();
    assert.ok(l.sparesBefore.length > 0);
    assert.deepEqual(await l.spareKeycodes(), l.sparesBefore);
  });
});
