// The GNOME Wayland lane of the screen contract: the portal lane (portalLane.ts) against a private
// headless GNOME session (desktop/gnomeDesktop.ts). The desktop's two consent dialogs are answered
// once, as the person would, when the lane opens.

import { answerRemoteDesktop, answerScreenshotQuestion } from '../../../desktop/gnomeDialogs.js';
import { startGnomeDesktop, type GnomeDesktop } from '../../../desktop/gnomeDesktop.js';
import { openPortalLane, PORTAL_LACKS, PORTAL_SCREEN, type PortalLane } from './portalLane.js';
import { gtkCanvasEvents } from './x11Lane.js';

export type GnomeScreenLane = PortalLane<GnomeDesktop>;

/** Starts the GNOME session with the canvas, opens the portal backend and lets the person consent once. */
export async function gnomeSetup(): Promise<GnomeScreenLane> {
  const desktop = await startGnomeDesktop(PORTAL_SCREEN);
  return openPortalLane(desktop, {
    canvasArgs: [],
    events: gtkCanvasEvents,
    // The first screenshot asks the person; they allow it.
    firstCapture: async (screen) => (await Promise.all([screen.capture(), answerScreenshotQuestion(desktop, 'Allow')]))[0],
    // The first input asks the person; they share the screen and allow remote interaction.
    found: async (screen, canvas) => {
      await Promise.all([screen.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2), answerRemoteDesktop(desktop, 'share')]);
    },
    quirks: {
      doublePressAfterPress: "GTK reports a double click's second press, then its own 2BUTTON_PRESS",
      horizontalWheelReversed: 'GTK 3 on Wayland turns a horizontal wheel detent around (gdkdevice-wayland.c: a positive discrete x is GDK_SCROLL_LEFT)',
    },
    lacks: PORTAL_LACKS,
  });
}
