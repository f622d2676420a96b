// The demo desktop of `serve --demo`: a private desktop with openbox and three sample apps side by
// side — gnome-calculator (top left), mousepad (below it) and the deterministic fixture (right).

import { fileURLToPath } from 'node:url';
import { startPrivateDesktop, type PrivateDesktop } from './privateDesktop.js';
import { missingPackagesHint } from './systemPackages.js';
import { startWindowManager, type WindowPlacement } from './windowManager.js';

/** The fixture app, next to this module in the sources and next to the bundle in dist/cli (scripts/buildShell.mjs copies it). */
export const FIXTURE_APP = fileURLToPath(new URL('./apps/fixtureApp.py', import.meta.url));

/** Screen of the demo desktop. */
export const DEMO_SCREEN = { width: 1920, height: 1080 };

/** One sample app: how to start it, the window it opens, and where that window goes. */
interface SampleApp {
  command: string;
  args: string[];
  window: string | RegExp;
  place: WindowPlacement;
}

// Frames as placed here: calculator 365x508, mousepad 642x505, fixture 1002x825. gnome-calculator
// is a GTK4 app, and GTK4 tells AT-SPI its window is at 0,0 wherever it is (it knows no screen
// coordinates on X11): it gets the top-left corner, where that report is true.
const SAMPLE_APPS: readonly SampleApp[] = [
  { command: '/usr/bin/python3', args: [FIXTURE_APP, '--rows', '200'], window: 'Overseer Fixture', place: { name: 'fixtureApp.py', x: 652, y: 0 } },
  { command: 'gnome-calculator', args: [], window: 'Calculator', place: { name: 'gnome-calculator', x: 0, y: 0 } },
  { command: 'mousepad', args: [], window: /Mousepad/, place: { name: 'mousepad', x: 0, y: 530 } },
];

/**
 * Start the demo desktop; rejects naming the missing packages and `npx overseer install-deps`
 * when the system lacks them. A sample app that does not start is logged, not fatal; the fixture is.
 */
export async function startDemoDesktop(log: (line: string) => void): Promise<PrivateDesktop> {
  const missing = missingPackagesHint(false);
  if (missing !== undefined) throw new Error(`serve --demo: ${missing}`);
  const desktop = await startPrivateDesktop(DEMO_SCREEN);
  try {
    await startWindowManager(
      desktop,
      SAMPLE_APPS.map((a) => a.place),
    );
    const [fixture, ...others] = SAMPLE_APPS;
    if (fixture !== undefined) await desktop.launch(fixture.command, fixture.args, { waitForWindow: fixture.window });
    for (const app of others) {
      await desktop
        .launch(app.command, app.args, { waitForWindow: app.window })
        .catch((error: unknown) => log(`[demo] ${app.command} did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`));
    }
  } catch (error) {
    await desktop.stop();
    throw error;
  }
  log(`[demo] private desktop ${desktop.display}: openbox with the fixture, gnome-calculator and mousepad side by side`);
  return desktop;
}
