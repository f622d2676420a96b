// The window manager of a private desktop: openbox, with a config file that puts each known
// window at a fixed place, so windows sit side by side instead of stacked at 0,0 (Xvfb alone has
// no window manager).
//
// Measured on Debian 12 under Xvfb 1920x1080 with the fixture, mousepad and gnome-calculator:
// openbox (1.3 MB installed, ~20 MB RSS, takes the screen in ~0.2 s) places every window exactly
// by per-application rules read from a file; dwm (6 MB RSS) tiles by a compiled-in layout and
// pushed the fixture (min width 1000) partly off screen; matchbox-window-manager maximizes every
// window (one at a time, by design); evilwm never took the screen here. Openbox also runs its
// --startup command once it manages the screen: a readiness signal without any X client tool.

import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LaunchedApp, type PrivateDesktop } from './privateDesktop.js';
import { logTail } from './spawnLogged.js';

/** Where one window goes, its frame's top-left corner; matched by its X resource name (WM_CLASS's first part). */
export interface WindowPlacement {
  name: string;
  x: number;
  y: number;
}

const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Openbox's rc.xml: the listed windows at their places, any other where it covers the fewest ("Smart"). */
export function openboxConfig(placements: readonly WindowPlacement[]): string {
  const apps = placements.map(
    (p) => `    <application name="${xml(p.name)}"><position force="yes"><x>${p.x}</x><y>${p.y}</y></position><desktop>1</desktop></application>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<openbox_config xmlns="http://openbox.org/3.4/rc">',
    '  <placement><policy>Smart</policy></placement>',
    '  <desktops><number>1</number></desktops>',
    '  <margins><top>0</top><bottom>0</bottom><left>0</left><right>0</right></margins>',
    '  <applications>',
    ...apps,
    '  </applications>',
    '</openbox_config>',
    '',
  ].join('\n');
}

/** How long openbox gets to take the screen. */
const WM_TIMEOUT_MS = 10_000;

/**
 * Start openbox on `desktop` with `placements`; resolves once it manages the screen, so windows
 * mapped afterwards are placed (openbox runs its --startup command only then). Stopped with the desktop.
 */
export async function startWindowManager(desktop: PrivateDesktop, placements: readonly WindowPlacement[]): Promise<LaunchedApp> {
  const config = path.join(desktop.dir, 'openbox-rc.xml');
  const ready = path.join(desktop.dir, 'openbox-ready');
  writeFileSync(config, openboxConfig(placements));
  // openbox splits --startup like a shell; the desktop's folder name has no quote in it.
  const wm = await desktop.launch('openbox', ['--sm-disable', '--config-file', config, '--startup', `touch '${ready}'`]);
  const deadline = Date.now() + WM_TIMEOUT_MS;
  let exited = false;
  void wm.exited.then(() => (exited = true));
  while (!existsSync(ready)) {
    if (exited) {
      const logs = path.join(desktop.dir, 'logs');
      throw new Error(
        `openbox exited before it managed the screen: ${logTail(
          readdirSync(logs)
            .filter((f) => f.includes('-openbox.'))
            .map((f) => path.join(logs, f)),
        )}`,
      );
    }
    if (Date.now() > deadline) {
      await wm.stop();
      throw new Error(`openbox did not manage the screen within ${WM_TIMEOUT_MS} ms`);
    }
    await sleep(10);
  }
  return wm;
}
