// Real Debian applications on a private test desktop, for tests and benches: each launcher starts
// one app and resolves once its window is registered on AT-SPI (desktop.launch's waitForWindow
// looks for the frame on the a11y bus, in the app's own session) and mapped on X (xdotool), then
// puts it at its place if given one (windows.ts).
//
//   const desktop = await startPrivateDesktop({ width: 1280, height: 800 });
//   await startRealAppsWindowManager(desktop, { width: 1280, height: 800 });
//   const firefox = await launchFirefox(desktop, FORM_PAGE_URL);
//   const entry = await peerFind(desktop, { app: firefox.appName, title: firefox.title, role: 'entry', name: 'First name' });
//
// Everything an app writes (profiles, settings, lock files) goes into the desktop's folder, removed
// with it; only the compiled Swing fixture is kept, by content hash, in .cache/realApps.

import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { type LaunchedApp, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { readStat } from '../../desktop/procs.js';
import { chromiumArgs, writeFirefoxProfile } from './browserProfiles.js';
import { QT6_FORM } from './documents.js';
import { compiledSwingForm, javaPaths } from './swingBuild.js';
import { writeOfficeProfile } from './officeProfile.js';
import { placeWindow, waitForMappedWindow, type MappedWindow, type Place } from './windows.js';

/** How long an app gets to register its window on AT-SPI and map it, unless told otherwise. */
export const REAL_APP_TIMEOUT_MS = 30_000;

/** A real app started on a private desktop. */
export interface LaunchedRealApp {
  /** The process desktop.launch started (stop() ends it and its session). */
  app: LaunchedApp;
  pid: number;
  /** Its window's title: the X title and the name of its AT-SPI frame. */
  title: string;
  /** The application's name on the AT-SPI registry (the peer's --app). */
  appName: string;
  /** X window id (xdotool). */
  windowId: string;
  /** The rectangle the window covers after placement (frame included), when it was placed. */
  rect: Place | null;
  /** From spawn until registered on AT-SPI, mapped and placed. */
  startMs: number;
}

/** Options every launcher takes. */
export interface RealAppOptions {
  /** Move and size the window here (realAppsLayout gives a place per app). */
  place?: Place;
  /** Default REAL_APP_TIMEOUT_MS. */
  timeoutMs?: number;
}

interface Spec {
  label: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** The frame's name on AT-SPI (and the X title). */
  title: string | RegExp;
  appName: string;
  /** What the app needs to show up on AT-SPI: said when it does not. */
  needs: string;
}

/** Start an app, wait for its frame on AT-SPI and its mapped X window, place it. */
async function launchReal(desktop: PrivateDesktop, spec: Spec, options: RealAppOptions): Promise<LaunchedRealApp> {
  const timeoutMs = options.timeoutMs ?? REAL_APP_TIMEOUT_MS;
  const started = performance.now();
  const app = await desktop
    .launch(spec.command, spec.args, { ...(spec.env !== undefined ? { env: spec.env } : {}), waitForWindow: spec.title, timeoutMs })
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`[realApps] ${spec.label}: no frame named ${String(spec.title)} on AT-SPI (it needs ${spec.needs})\n${message}`);
    });
  let mapped: MappedWindow;
  try {
    mapped = await waitForMappedWindow(desktop, spec.title, app.pid, Math.max(1000, timeoutMs - (performance.now() - started)));
  } catch (error) {
    await app.stop();
    throw new Error(`[realApps] ${spec.label}: registered on AT-SPI but ${error instanceof Error ? error.message : String(error)}`);
  }
  const rect = options.place !== undefined ? await placeWindow(desktop, mapped.id, options.place) : null;
  return { app, pid: app.pid, title: mapped.title, appName: spec.appName, windowId: mapped.id, rect, startMs: Math.round(performance.now() - started) };
}

/** A fresh folder for one launch inside the desktop's folder (removed with it). */
const launchDir = (desktop: PrivateDesktop, prefix: string): string => mkdtempSync(path.join(desktop.dir, `${prefix}-`));

/** Firefox ESR on `url` in a fresh profile; `pageTitle` makes the window title exact (else any "… Mozilla Firefox"). */
export function launchFirefox(desktop: PrivateDesktop, url: string, options: RealAppOptions & { pageTitle?: string } = {}): Promise<LaunchedRealApp> {
  const profile = writeFirefoxProfile(path.join(launchDir(desktop, 'firefox'), 'profile'), options.place);
  // Needs: a fresh --profile with --no-remote --new-instance (never the user's Firefox), a user.js for one tab and no network, and GNOME_ACCESSIBILITY=1: without it (and with the bus's IsEnabled false) Firefox never registers on AT-SPI, measured.
  return launchReal(
    desktop,
    {
      label: 'Firefox',
      command: 'firefox-esr',
      args: ['--profile', profile, '--no-remote', '--new-instance', url],
      env: { GNOME_ACCESSIBILITY: '1', MOZ_CRASHREPORTER_DISABLE: '1' },
      title: options.pageTitle !== undefined ? `${options.pageTitle} — Mozilla Firefox` : /Mozilla Firefox$/,
      appName: 'Firefox',
      needs: 'GNOME_ACCESSIBILITY=1 or org.a11y.Status IsEnabled=true on the session bus',
    },
    options,
  );
}

/** Chromium on `url` in a fresh profile; `pageTitle` makes the window title exact (else any "… - Chromium"). */
export function launchChromium(
  desktop: PrivateDesktop,
  url: string,
  options: RealAppOptions & { pageTitle?: string; webContentAccessible?: boolean } = {},
): Promise<LaunchedRealApp> {
  const profile = path.join(launchDir(desktop, 'chromium'), 'profile');
  // As an Electron app or a Chromium started by hand usually runs: without --force-renderer-accessibility, its page shows nothing.
  const args = chromiumArgs(profile).filter((a) => options.webContentAccessible !== false || a !== '--force-renderer-accessibility');
  // Needs: --force-renderer-accessibility for web content on AT-SPI (IsEnabled/ScreenReaderEnabled did not suffice), --no-sandbox as root, a fresh --user-data-dir, no first run or background network (browserProfiles.ts).
  return launchReal(
    desktop,
    {
      label: 'Chromium',
      command: 'chromium',
      args: [...args, url],
      title: options.pageTitle !== undefined ? `${options.pageTitle} - Chromium` : / - Chromium$/,
      appName: 'Chromium',
      needs: '--force-renderer-accessibility',
    },
    options,
  );
}

/** LibreOffice started once with its documents open. */
export interface LaunchedOffice extends Omit<LaunchedRealApp, 'title' | 'windowId' | 'rect'> {
  /** One window per file, in the order given. */
  windows: { file: string; title: string; windowId: string; rect: Place | null }[];
}

/** The window title LibreOffice gives a document: "<file name> - LibreOffice Calc|Writer". */
export function officeTitle(file: string): string {
  const ext = path.extname(file).toLowerCase();
  const kind = ext === '.fods' || ext === '.ods' ? 'Calc' : ext === '.fodt' || ext === '.odt' ? 'Writer' : null;
  if (kind === null) throw new Error(`[realApps] startOffice: ${file}: only spreadsheets (.fods, .ods) and text documents (.fodt, .odt)`);
  return `${path.basename(file)} - LibreOffice ${kind}`;
}

/**
 * One soffice with all `files` open (Calc and Writer in the same process); `places` gives each
 * file's window a place, in the same order. Resolves once every window is on AT-SPI and mapped.
 */
export async function startOffice(
  desktop: PrivateDesktop,
  files: readonly string[],
  options: { places?: readonly (Place | undefined)[]; timeoutMs?: number } = {},
): Promise<LaunchedOffice> {
  const [first, ...rest] = files;
  if (first === undefined) throw new Error('[realApps] startOffice: no file');
  const timeoutMs = options.timeoutMs ?? 45_000;
  const started = performance.now();
  const profileDir = path.join(launchDir(desktop, 'office'), 'lo-profile');
  writeOfficeProfile(profileDir, files, options.places ?? []);
  const profile = `file://${profileDir}`;
  // Needs: SAL_USE_VCLPLUGIN=gtk3 (its AT-SPI bridge is GTK's), a private -env:UserInstallation (never ~/.config), --norestore --nologo; one command opens every file in one instance.
  const firstPlace = options.places?.[0];
  const launched = await launchReal(
    desktop,
    {
      label: 'LibreOffice',
      command: 'soffice',
      args: [`-env:UserInstallation=${profile}`, '--norestore', '--nologo', ...files],
      env: { SAL_USE_VCLPLUGIN: 'gtk3' },
      title: officeTitle(first),
      appName: 'soffice',
      needs: 'SAL_USE_VCLPLUGIN=gtk3 and libreoffice-gtk3',
    },
    { timeoutMs, ...(firstPlace !== undefined ? { place: firstPlace } : {}) },
  );
  const windows: LaunchedOffice['windows'] = [{ file: first, title: launched.title, windowId: launched.windowId, rect: launched.rect }];
  try {
    for (const [i, file] of rest.entries()) {
      const title = officeTitle(file);
      const left = Math.max(1000, timeoutMs - (performance.now() - started));
      // Opened by the same soffice.bin (a child of the launched script): any process of its session.
      const found = await desktop.waitForWindow(title, left);
      if (found.pid !== launched.pid && readStat(found.pid)?.session !== launched.pid)
        throw new Error(`${title} belongs to pid ${found.pid}, not to this soffice`);
      const mapped = await waitForMappedWindow(desktop, title, launched.pid, left);
      const place = options.places?.[i + 1];
      windows.push({ file, title, windowId: mapped.id, rect: place !== undefined ? await placeWindow(desktop, mapped.id, place) : null });
    }
  } catch (error) {
    await launched.app.stop();
    throw new Error(`[realApps] LibreOffice: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { app: launched.app, pid: launched.pid, appName: launched.appName, windows, startMs: Math.round(performance.now() - started) };
}

/** FeatherPad (Qt 5) with `file` open; its window title is the file's absolute path. */
export function launchFeatherPad(desktop: PrivateDesktop, file: string, options: RealAppOptions = {}): Promise<LaunchedRealApp> {
  const absolute = path.resolve(file);
  // Needs: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (the private desktop sets it) or Qt never registers on AT-SPI.
  return launchReal(
    desktop,
    {
      label: 'FeatherPad',
      command: 'featherpad',
      args: [absolute],
      title: absolute,
      appName: 'FeatherPad',
      needs: 'QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1',
    },
    options,
  );
}

/** The PyQt6 form (fixtures/qt6Form.py), window "Qt6 Form". */
export function launchQt6Form(desktop: PrivateDesktop, options: RealAppOptions = {}): Promise<LaunchedRealApp> {
  // Needs: Debian's /usr/bin/python3 (python3-pyqt6) and QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (set by the private desktop).
  return launchReal(
    desktop,
    {
      label: 'Qt6 form',
      command: '/usr/bin/python3',
      args: [QT6_FORM],
      title: 'Qt6 Form',
      appName: 'qt6Form.py',
      needs: 'python3-pyqt6 and QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1',
    },
    options,
  );
}

/** The Swing form (fixtures/SwingForm.java, compiled on first use) over the ATK wrapper, frame "Swing Form". */
export async function launchSwingForm(desktop: PrivateDesktop, options: RealAppOptions = {}): Promise<LaunchedRealApp> {
  const { bin, jni } = javaPaths();
  const classes = await compiledSwingForm(path.join(bin, 'javac'));
  // Needs: the ATK wrapper as assistive technology, its JNI library on java.library.path and its jar on the class path; the non-headless JRE (AWT's X11 toolkit).
  return launchReal(
    desktop,
    {
      label: 'Swing form',
      command: path.join(bin, 'java'),
      args: [
        '-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper',
        `-Djava.library.path=${jni}`,
        '-cp',
        `/usr/share/java/java-atk-wrapper.jar:${classes}`,
        'SwingForm',
      ],
      title: 'Swing Form',
      appName: 'Swing Form',
      needs: 'libatk-wrapper-java, libatk-wrapper-java-jni and openjdk-17-jre',
    },
    options,
  );
}

/** gnome-calculator (GTK 4), window "Calculator". */
export function launchCalculator(desktop: PrivateDesktop, options: RealAppOptions = {}): Promise<LaunchedRealApp> {
  // The private desktop's settings already tell it not to fetch exchange rates (desktop/privateDesktop.ts).
  // Needs: nothing more for AT-SPI: GTK 4 registers on its own (unless GTK_A11Y=none, which the desktop removes).
  return launchReal(
    desktop,
    {
      label: 'Calculator',
      command: 'gnome-calculator',
      args: [],
      title: 'Calculator',
      appName: 'gnome-calculator',
      needs: 'GTK_A11Y unset',
    },
    options,
  );
}
