import { readFile } from 'node:fs/promises';
import {
  app,
  BrowserWindow,
  globalShortcut,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  protocol,
  session,
  Tray,
  type MenuItemConstructorOptions,
} from 'electron';
import { resolveStaticFile } from '../core/server/staticFiles.js';
import { startDesktopCore } from './desktopCore.js';
import { desktopFlags, desktopLayout, type DesktopLayout } from './desktopLayout.js';
import { APP_SCHEME, APP_URL, DESKTOP_CSP, isAllowedNavigation, permissionRequestHandler, webPreferences, windowOpenHandler, withCspMeta } from './security.js';
import { EMERGENCY_SHORTCUT, approvalNotification, followEvent, trayView, type FollowedState, type TrayCommand, type TrayView } from './trayModel.js';
import type { UiClient } from '../core/ui/uiHub.js';
import { eventRelay, registerUiIpc } from './uiIpc.js';

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/**
 * The desktop app: the supervisor core composed inside Electron's main process. One hardened
 * window on the app's own scheme, IPC generated from the UI channel table, the helper as a child
 * process on Electron's own Node, a tray with the brakes, a global emergency-stop shortcut, and
 * notifications while the window is out of view. Closing the window keeps supervising.
 */
export function runDesktopApp(): void {
  // Before ready: the app's page is served on a privileged standard scheme, never file://.
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true } }]);
  app.enableSandbox();
  if (!app.requestSingleInstanceLock()) {
    log('overseer: the desktop app is already running; showing its window');
    app.quit();
    return;
  }
  const flags = desktopFlags(process.argv.slice(app.isPackaged ? 1 : 2));
  hardenAllContents();
  app.on('window-all-closed', () => {
    // Keep supervising with no window: quitting is explicit (tray or menu).
  });
  app
    .whenReady()
    .then(async () => {
      const layout = desktopLayout({ appPath: app.getAppPath(), packaged: app.isPackaged, execPath: process.execPath });
      const dataDir = flags.dataDir ?? app.getPath('userData');
      await start(layout, dataDir, flags.port, flags.hidden);
    })
    .catch((error: unknown) => {
      log(`overseer: the desktop app could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      app.exit(1);
    });
}

/** Session-wide refusals: every permission, every navigation but the app's page, every new window and webview. */
function hardenAllContents(): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url, APP_URL)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAllowedNavigation(url, APP_URL)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(windowOpenHandler);
  });
}

async function start(layout: DesktopLayout, dataDir: string, port: number | undefined, hidden: boolean): Promise<void> {
  session.defaultSession.setPermissionRequestHandler(permissionRequestHandler);
  session.defaultSession.setPermissionCheckHandler(() => false);
  protocol.handle(APP_SCHEME, (request) => serveAppFile(layout.rendererRoot, request.url));

  const core = await startDesktopCore({ layout, dataDir, port, execPath: process.execPath, env: process.env, log });
  const supervisor = core.supervisor;
  process.stdout.write(`MCP: ${core.mcpUrl}\nData: ${dataDir}\n`);

  const window = createWindow(layout, hidden);
  const unregister = registerUiIpc(ipcMain, supervisor.ui, APP_URL, log);
  const detachWindow = await supervisor.ui.attach(eventRelay(() => (window.isDestroyed() ? undefined : window.webContents)));

  const show = (): void => {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  app.on('second-instance', show);
  app.on('activate', show);

  const tray = new Tray(nativeImage.createFromPath(layout.icons.idle));
  tray.on('click', show);
  const shortcut = globalShortcut.register(EMERGENCY_SHORTCUT, () => void supervisor.ui.invoke('brake', { action: 'emergency_stop' }));
  if (!shortcut) log(`[desktop] the emergency-stop shortcut ${EMERGENCY_SHORTCUT} is held by another program; use the tray or the window`);

  let quitting = false;
  const run = (command: TrayCommand): void => {
    if (command === 'show' || command === 'rearm') return show();
    if (command === 'quit') return void quit();
    void supervisor.ui.invoke('brake', { action: command });
  };
  let followed: FollowedState = { pending: [], brake: 'running', helper: 'starting' };
  const render = (): void => {
    const view = trayView({ ...followed, shortcut });
    tray.setImage(nativeImage.createFromPath(layout.icons[view.icon]));
    tray.setToolTip(view.tooltip);
    tray.setContextMenu(Menu.buildFromTemplate(menuTemplate(view, run)));
    app.setBadgeCount(followed.pending.length);
  };
  // The tray follows events but shows no tree: it does not keep the tree follower reading.
  const trayClient: UiClient = {
    send(frame) {
      if (frame.type !== 'event') return;
      const before = followed.pending;
      followed = followEvent(followed, frame.event, frame.data);
      render();
      if (frame.event !== 'pending_delta') return;
      const inView = window.isVisible() && !window.isMinimized() && window.isFocused();
      const note = approvalNotification(before, followed.pending, inView);
      if (note !== undefined && Notification.isSupported()) {
        const n = new Notification({ title: note.title, body: note.body, icon: layout.icons.app });
        n.on('click', show);
        n.show();
      }
    },
  };
  const detachTray = await supervisor.ui.attach(trayClient, { shows: false });

  let toldStillRunning = false;
  window.on('close', (event) => {
    if (quitting) return;
    event.preventDefault();
    window.hide();
    if (!toldStillRunning && Notification.isSupported()) {
      toldStillRunning = true;
      new Notification({
        title: 'Overseer is still supervising',
        body: 'Agents stay connected and approvals still wait for you. Quit from the tray icon.',
        icon: layout.icons.app,
      }).show();
    }
  });

  const quit = async (): Promise<void> => {
    if (quitting) return;
    quitting = true;
    globalShortcut.unregisterAll();
    detachTray();
    detachWindow();
    unregister();
    await core.stop();
    tray.destroy();
    app.exit(0);
  };
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    void quit();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void quit());
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      {
        label: 'Overseer',
        submenu: [
          { label: 'Hide window', accelerator: 'CommandOrControl+W', click: () => window.hide() },
          { label: 'Quit Overseer', accelerator: 'CommandOrControl+Q', click: () => void quit() },
        ],
      },
    ]),
  );
  render();
}

function createWindow(layout: DesktopLayout, hidden: boolean): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Overseer',
    icon: layout.icons.app,
    webPreferences: webPreferences(layout.preload),
  });
  window.once('ready-to-show', () => {
    if (!hidden) window.show();
  });
  void window.loadURL(APP_URL);
  return window;
}

/** Answers the app scheme from the built renderer, with the desktop CSP; nothing outside it. */
async function serveAppFile(root: string, url: string): Promise<Response> {
  const parsed = new URL(url);
  const file = parsed.host === 'app' ? resolveStaticFile(root, parsed.pathname) : undefined;
  const bytes = file === undefined ? undefined : await readFile(file.file).catch(() => undefined);
  if (file === undefined || bytes === undefined) return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain' } });
  const body = file.index ? withCspMeta(bytes.toString('utf8')) : new Uint8Array(bytes);
  return new Response(body, {
    headers: { 'content-type': file.type, 'content-security-policy': DESKTOP_CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
  });
}

/** The tray's menu from its view. */
function menuTemplate(view: TrayView, run: (command: TrayCommand) => void): MenuItemConstructorOptions[] {
  return view.items.map((item): MenuItemConstructorOptions => {
    if (item.kind === 'separator') return { type: 'separator' };
    if (item.kind === 'status') return { label: item.label, enabled: false };
    return {
      label: item.label,
      enabled: item.enabled,
      ...(item.accelerator !== undefined ? { accelerator: item.accelerator, registerAccelerator: false } : {}),
      click: () => run(item.id),
    };
  });
}
