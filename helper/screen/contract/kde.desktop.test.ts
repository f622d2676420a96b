// The screen contract against the Wayland portal backend (in-process) on a private headless KDE
// Plasma 5.27 session, and what only KDE's portals do: no dialog for a program outside a sandbox,
// the pointer in every screenshot, and two screenshots in one second that must not share a file.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { it } from 'node:test';
import { pixel } from './screenLane.js';
import { screenContract } from './screenContract.js';
import { kdeSetup, type KdeScreenLane } from './kdeLane.js';

screenContract('screen contract: Wayland portals (GTK canvas on a headless KDE Plasma 5.27 session)', kdeSetup, (lane: () => KdeScreenLane) => {
  it('captures and sends input with no consent dialog: none is on the accessibility bus, and capabilities say no one is asked', async () => {
    const { desktop, screen } = lane();
    const windows = await desktop.a11yWindows();
    assert.deepEqual(windows, ['canvasApp.py: Overseer Canvas'], 'only the canvas has a window: xdg-desktop-portal-kde showed none');
    const caps = await screen.capabilities();
    for (const d of ['no_consent_asked', 'consent_per_session', 'text_limited_to_layout']) assert.ok(caps.input.degradations.includes(d), d);
    assert.ok(caps.capture.degradations.includes('no_consent_asked'));
    for (const d of ['desktop_not_verified', 'consent_not_yet_given', 'keymap_unknown'])
      assert.ok(![...caps.capture.degradations, ...caps.input.degradations].includes(d), `does not name ${d}`);
  });

  it('shows the pointer in its screenshots, and none where it moved away', async () => {
    const { screen, canvas: c } = lane();
    const red = { x: c.x + 20, y: c.y + 20, width: 60, height: 60 };
    const notRed = async (): Promise<number> => {
      const img = await screen.capture(red);
      let n = 0;
      for (let y = red.y; y < red.y + red.height; y++) for (let x = red.x; x < red.x + red.width; x++) if (pixel(img, x, y).join() !== '255,0,0') n++;
      return n;
    };
    await screen.move(red.x + 10, red.y + 10);
    assert.ok((await notRed()) > 0, 'the pointer is drawn over the red quadrant');
    await screen.move(c.x + c.width + 100 < 1280 ? c.x + c.width + 100 : 5, 5);
    assert.equal(await notRed(), 0);
  });

  it('takes concurrent screenshots one at a time: each reads its own whole file, and none is left in Pictures', async () => {
    const { screen, desktop } = lane();
    const shots = await Promise.all([screen.capture(), screen.capture(), screen.capture()]);
    for (const s of shots) assert.deepEqual([s.width, s.height], [1280, 800]);
    assert.deepEqual(readdirSync(desktop.pictures), []);
  });
});
