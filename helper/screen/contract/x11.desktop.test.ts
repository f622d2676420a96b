// The screen contract against the X11 backend (in-process) on a private desktop, and what only X11 has.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import { openX11Backend } from '../x11/x11Backend.js';
import { IDLE_RESTORE_MS } from '../x11/x11Keyboard.js';
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

  it('keeps a remapped spare keycode while typing goes on, and sets every one back to NoSymbol once idle and on close', async () => {
    const l = lane();
    assert.ok(l.sparesBefore.length > 0);
    const restored = async (why: string): Promise<void> => {
      const deadline = performance.now() + IDLE_RESTORE_MS + 3000;
      while (performance.now() < deadline && (await l.spareKeycodes()).length !== l.sparesBefore.length) await sleep(100);
      assert.deepEqual(await l.spareKeycodes(), l.sparesBefore, why);
    };
    await restored('the contract typed more characters than there are spares: restored once idle');
    await l.screen.typeText('ø');
    const during = await l.spareKeycodes();
    assert.equal(during.length, l.sparesBefore.length - 1, 'a busy client still finds "ø" on its row after the text was typed');
    await l.screen.typeText('øø');
    assert.deepEqual(await l.spareKeycodes(), during, 'the same row types it again');
    await restored('restored after the keyboard was idle');

    const other = await openX11Backend({ display: l.display });
    await other.typeText('ø');
    assert.notDeepEqual(await l.spareKeycodes(), l.sparesBefore);
    await other.close();
    assert.deepEqual(await l.spareKeycodes(), l.sparesBefore, 'restored on close');
  });
});
