import type { HandlerDetails, WebPreferences } from 'electron';
import { UI_COMMANDS, uiCommandChannel, type UiCommand } from '../../protocol/index.js';

/** The scheme the app's own page is served on (a privileged, standard scheme: never file://). */
export const APP_SCHEME = 'overseer';
/** The app's own page. */
export const APP_URL = `${APP_SCHEME}://app/index.html`;

/**
 * The window's webPreferences, per Electron's security checklist: isolated, sandboxed, no Node in
 * the page, no webviews, no insecure content. The preload is the only bridge.
 */
export function webPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    devTools: false,
  };
}

/** The renderer's Content-Security-Policy in the desktop app: its own files only, no network at all (IPC carries the UI channel). */
export const DESKTOP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";

/** True only for the app's own page: every other navigation is denied (will-navigate, will-redirect). */
export function isAllowedNavigation(url: string, appUrl: string): boolean {
  try {
    const target = new URL(url);
    const app = new URL(appUrl);
    return target.protocol === app.protocol && target.host === app.host && target.pathname === app.pathname;
  } catch {
    return false;
  }
}

/** window.open and target=_blank never open anything. */
export function windowOpenHandler(_details: HandlerDetails): { action: 'deny' } {
  return { action: 'deny' };
}

/** Every permission request (camera, notifications from the page, geolocation…) is denied. */
export function permissionRequestHandler(_webContents: unknown, _permission: string, callback: (granted: boolean) => void): void {
  callback(false);
}

/** The shape of an IPC sender frame that matters for trust. */
export interface SenderFrame {
  url: string;
  /** True for the top-level frame of the window. */
  top: boolean;
}

/** An IPC message is accepted only from the top frame of the app's own page. */
export function isTrustedSender(frame: SenderFrame | null | undefined, appUrl: string): boolean {
  return frame !== null && frame !== undefined && frame.top && isAllowedNavigation(frame.url, appUrl);
}

/** The IPC channel of each UI command: derived from the one table, never listed by hand. */
export const IPC_CHANNELS: Readonly<Record<UiCommand, string>> = Object.fromEntries(
  (Object.keys(UI_COMMANDS) as UiCommand[]).map((c) => [c, uiCommandChannel(c)]),
) as Record<UiCommand, string>;

/**
 * The page with the desktop CSP also as a meta tag (the response header carries it too): the
 * policy holds even if a protocol handler's headers were ever dropped.
 */
export function withCspMeta(html: string, csp: string = DESKTOP_CSP): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/"/g, '&quot;')}" />`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => `${head}\n    ${meta}`) : `${meta}\n${html}`;
}
