// Which desktop's portals the backend talks to, and what that changes (docs/wayland.md#kde). The
// same portal calls behave differently behind GNOME's and KDE's backends: how far one wheel step
// scrolls, where a keysym is looked up, whether anyone is asked. Only the desktops the suite runs
// on are verified; elsewhere capabilities say `desktop_not_verified`.

/** What the backend knows about the session's desktop from its environment. */
export interface PortalDesktop {
  /** gnome, kde (Plasma 5: xdg-desktop-portal-kde 5.27 measured), or other. */
  kind: 'gnome' | 'kde' | 'other';
  /** Whether the suite runs this desktop's portals (gnome.desktop.test.ts, kde.desktop.test.ts). */
  verified: boolean;
  /**
   * The `steps` of one NotifyPointerAxisDiscrete call that reach an app as one wheel detent. GNOME:
   * 1. xdg-desktop-portal-kde 5.27 forwards the steps to KWin as a raw axis value (a smooth scroll
   * of 0.1 per step, no discrete event): 10 make the distance of one detent.
   */
  stepsPerDetent: number;
  /** Whether the desktop asks no one before an unsandboxed program captures or sends input (KDE 5.27). */
  asksNoConsent: boolean;
  /**
   * Whether Wayland apps paste what an X11 client puts on Xwayland's clipboard, with no X11 window
   * focused: mutter does (GNOME 43, measured); KWin 5.27 takes an X11 clipboard only from the
   * active X11 window.
   */
  sharesXwaylandClipboard: boolean;
}

/** The desktop named by XDG_CURRENT_DESKTOP (and KDE_SESSION_VERSION: Plasma 6's portal was not measured). */
export function portalDesktop(env: NodeJS.ProcessEnv): PortalDesktop {
  const names = (env['XDG_CURRENT_DESKTOP'] ?? '').split(':').map((d) => d.toUpperCase());
  if (names.includes('GNOME')) return { kind: 'gnome', verified: true, stepsPerDetent: 1, asksNoConsent: false, sharesXwaylandClipboard: true };
  if (names.includes('KDE')) {
    // Plasma 5 sessions set KDE_SESSION_VERSION=5; the lane's session sets it too.
    const plasma5 = (env['KDE_SESSION_VERSION'] ?? '5') === '5';
    return { kind: 'kde', verified: plasma5, stepsPerDetent: plasma5 ? 10 : 1, asksNoConsent: plasma5, sharesXwaylandClipboard: false };
  }
  return { kind: 'other', verified: false, stepsPerDetent: 1, asksNoConsent: false, sharesXwaylandClipboard: false };
}
