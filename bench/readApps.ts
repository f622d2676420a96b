// The apps of the read bench (bench/run.ts): the project's fixtures and the sample apps it is
// tested against ("seen"), and real Debian apps the helper was never tuned for ("unseen").
//
// Every unseen app was checked on the private desktop (openbox running): it appears on the a11y
// bus and pyatspi walks it without read errors. Measured there (pyatspi walk, all fields, cold):
//   chromium page (bench/ariaPage.ts)   2,613 nodes  4.2 s
//   gnumeric (empty book)                 575 nodes  0.54 s
//   gnome-font-viewer (GTK4)              549 nodes  2.3 s
//   gucharmap                             239 nodes  0.51 s
//   galculator                             80 nodes  83 ms
//   zenity --forms (GTK3 form)             20 nodes  23 ms
//   yad --form (GTK3 form)                 17 nodes  21 ms
// None was dropped: each one listed here appeared and walked.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LaunchedApp, PrivateDesktop } from '../desktop/privateDesktop.js';
import { FORM_PAGE_TITLE, FORM_PAGE_URL, writeSpreadsheet, writeTextDocument, writeTextFile } from '../e2e/realApps/documents.js';
import {
  launchChromium,
  launchFeatherPad,
  launchFirefox,
  launchQt6Form,
  launchSwingForm,
  officeTitle,
  startOffice,
  type LaunchedOffice,
} from '../e2e/realApps/realApps.js';
import { ARIA_PAGE_TITLE, ariaPageHtml } from './ariaPage.js';

const PYTHON = '/usr/bin/python3';

/** One app the bench launches and reads. */
export interface AppSpec {
  label: string;
  command: string;
  /** Arguments; given the desktop's private folder for apps that need files there. */
  args: (dir: string) => string[];
  /** What launch() waits for on the a11y bus. */
  waitForWindow: string | RegExp;
  /** Accessible name of the frame (the peer finds it by name); null: it has none or a generated one, find it by pid. */
  frameName: string | null;
  /** Fewer pyatspi walks: one takes seconds. */
  large: boolean;
  /** The 10,000-node window of the max_nodes goal. */
  big: boolean;
  /** False for the apps the helper was never tuned for (the goal holds on those too). */
  seen: boolean;
  /** Starts the app itself (the real applications of e2e/realApps, with their profiles and flags) instead of `command`. */
  launch?: (desktop: PrivateDesktop) => Promise<LaunchedApp>;
  /** More arguments for the pyatspi peer (bench/pyatspiWalk.py). */
  peerArgs?: readonly string[];
}

/** One LibreOffice for the Calc and the Writer lines: the second asks for the one the first started. */
const offices = new WeakMap<PrivateDesktop, Promise<LaunchedOffice>>();
function office(desktop: PrivateDesktop): Promise<LaunchedOffice> {
  let started = offices.get(desktop);
  if (started === undefined) {
    const sheet = writeSpreadsheet(desktop.dir, { rows: 500 });
    const doc = writeTextDocument(desktop.dir, [
      'Shopping list',
      'Please remember the milk.',
      ...Array.from({ length: 60 }, (_, i) => `Line ${i + 1}: lorem ipsum dolor sit amet.`),
    ]);
    started = startOffice(desktop, [sheet, doc]);
    offices.set(desktop, started);
  }
  return started;
}
const SHEET_TITLE = officeTitle('sheet.fods');
const DOC_TITLE = officeTitle('doc.fodt');
/** Never enter a sheet's 2^31 cells: the peer skips what manages its descendants, as Orca does (the helper reads the visible cells). */
const SKIP_MANAGED = ['--skip-managed'] as const;

const fixed =
  (...args: string[]): ((dir: string) => string[]) =>
  () =>
    args;

/** Chromium as root under Xvfb, its web content on AT-SPI, a fresh profile in the desktop's folder. */
function chromiumArgs(dir: string): string[] {
  const page = path.join(dir, 'aria-bench.html');
  writeFileSync(page, ariaPageHtml());
  return [
    '--force-renderer-accessibility',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    `--user-data-dir=${path.join(dir, 'chromium-profile')}`,
    `file://${page}`,
  ];
}

/** The apps in launch (and table) order. */
export const APPS: readonly AppSpec[] = [
  {
    label: 'fixture (--rows 3000)',
    command: PYTHON,
    args: fixed('desktop/apps/fixtureApp.py', '--rows', '3000'),
    waitForWindow: 'Overseer Fixture',
    frameName: 'Overseer Fixture',
    large: true,
    big: false,
    seen: true,
  },
  // Its header-bar frame has no accessible name.
  { label: 'gtk3-widget-factory', command: 'gtk3-widget-factory', args: fixed(), waitForWindow: /.*/, frameName: null, large: false, big: false, seen: true },
  {
    label: 'mousepad',
    command: 'mousepad',
    args: fixed(),
    waitForWindow: 'Untitled 1 - Mousepad',
    frameName: 'Untitled 1 - Mousepad',
    large: false,
    big: false,
    seen: true,
  },
  {
    label: 'gnome-calculator (GTK4)',
    command: 'gnome-calculator',
    args: fixed(),
    waitForWindow: 'Calculator',
    frameName: 'Calculator',
    large: false,
    big: false,
    seen: true,
  },
  {
    label: 'big fixture (--big 10000)',
    command: PYTHON,
    args: fixed('desktop/apps/fixtureApp.py', '--big', '10000'),
    waitForWindow: 'Overseer Big',
    frameName: 'Overseer Big',
    large: true,
    big: true,
    seen: true,
  },
  {
    label: 'chromium ARIA page',
    command: '/usr/bin/chromium',
    args: chromiumArgs,
    waitForWindow: new RegExp(`^${ARIA_PAGE_TITLE}`),
    frameName: null,
    large: true,
    big: false,
    seen: false,
  },
  { label: 'gnumeric', command: 'gnumeric', args: fixed(), waitForWindow: /Gnumeric/, frameName: null, large: false, big: false, seen: false },
  // GTK4; its frame's accessible name is the class name "GtkApplicationWindow".
  {
    label: 'gnome-font-viewer (GTK4)',
    command: 'gnome-font-viewer',
    args: fixed(),
    waitForWindow: /.*/,
    frameName: null,
    large: true,
    big: false,
    seen: false,
  },
  {
    label: 'gucharmap',
    command: 'gucharmap',
    args: fixed(),
    waitForWindow: 'Character Map',
    frameName: 'Character Map',
    large: false,
    big: false,
    seen: false,
  },
  { label: 'galculator', command: 'galculator', args: fixed(), waitForWindow: 'galculator', frameName: 'galculator', large: false, big: false, seen: false },
  // The small GTK3 forms; their dialogs have no accessible name.
  {
    label: 'zenity --forms',
    command: 'zenity',
    args: fixed('--forms', '--add-entry=Name', '--add-entry=Email', '--add-password=Pass', '--add-combo=Pick', '--combo-values=a|b'),
    waitForWindow: /.*/,
    frameName: null,
    large: false,
    big: false,
    seen: false,
  },
  {
    label: 'Firefox ESR form (Gecko)',
    command: 'firefox-esr',
    args: fixed(),
    launch: async (d) => (await launchFirefox(d, FORM_PAGE_URL, { pageTitle: FORM_PAGE_TITLE })).app,
    waitForWindow: /Mozilla Firefox$/,
    frameName: `${FORM_PAGE_TITLE} — Mozilla Firefox`,
    large: false,
    big: false,
    seen: false,
  },
  {
    label: 'Chromium form',
    command: 'chromium',
    args: fixed(),
    launch: async (d) => (await launchChromium(d, FORM_PAGE_URL, { pageTitle: FORM_PAGE_TITLE })).app,
    waitForWindow: / - Chromium$/,
    frameName: `${FORM_PAGE_TITLE} - Chromium`,
    large: false,
    big: false,
    seen: false,
  },
  {
    label: 'LibreOffice Calc',
    command: 'soffice',
    args: fixed(),
    launch: async (d) => (await office(d)).app,
    waitForWindow: SHEET_TITLE,
    frameName: SHEET_TITLE,
    large: true,
    big: false,
    seen: false,
    peerArgs: SKIP_MANAGED,
  },
  {
    label: 'LibreOffice Writer',
    command: 'soffice',
    args: fixed(),
    launch: async (d) => (await office(d)).app,
    waitForWindow: DOC_TITLE,
    frameName: DOC_TITLE,
    large: true,
    big: false,
    seen: false,
    peerArgs: SKIP_MANAGED,
  },
  {
    label: 'FeatherPad (Qt 5)',
    command: 'featherpad',
    args: fixed(),
    launch: async (d) => (await launchFeatherPad(d, writeTextFile(d.dir, 'notes.txt', 'Dear diary,\nremember the milk.\n'))).app,
    waitForWindow: /notes\.txt$/,
    frameName: null,
    large: false,
    big: false,
    seen: false,
  },
  {
    label: 'Qt 6 form (PyQt6)',
    command: 'python3',
    args: fixed(),
    launch: async (d) => (await launchQt6Form(d)).app,
    waitForWindow: 'Qt6 Form',
    frameName: 'Qt6 Form',
    large: false,
    big: false,
    seen: false,
  },
  {
    label: 'Swing form (ATK wrapper)',
    command: 'java',
    args: fixed(),
    launch: async (d) => (await launchSwingForm(d)).app,
    waitForWindow: 'Swing Form',
    frameName: 'Swing Form',
    large: false,
    big: false,
    seen: false,
  },
  {
    label: 'yad --form',
    command: 'yad',
    args: fixed('--form', '--field=Name', '--field=Email', '--field=Pass:H', '--field=Pick:CB', '', '', '', 'a!b'),
    waitForWindow: /.*/,
    frameName: null,
    large: false,
    big: false,
    seen: false,
  },
];
