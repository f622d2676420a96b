// The Debian/Ubuntu packages the private desktop needs, and finding which are missing.
//
// This is the one list: `overseer install-deps` installs from it, `.ci/run` runs that command,
// and `serve --demo`, `doctor` and the test runner name what is missing from it.

import { spawnSync } from 'node:child_process';

/** A Debian package and why Overseer needs it (printed when it is missing). */
export interface SystemPackage {
  name: string;
  why: string;
}

/** What `serve --demo` runs: the virtual desktop, its buses, its window manager and the sample apps. */
export const DEMO_PACKAGES: readonly SystemPackage[] = [
  { name: 'xvfb', why: 'the virtual X server' },
  { name: 'dbus', why: 'the private session bus' },
  { name: 'at-spi2-core', why: 'the accessibility bus and registry' },
  { name: 'openbox', why: "the window manager that puts the demo's windows side by side" },
  { name: 'python3', why: 'runs the fixture app' },
  { name: 'python3-gi', why: 'GTK bindings of the fixture app' },
  { name: 'gir1.2-gtk-3.0', why: 'GTK3 for the fixture app' },
  { name: 'mousepad', why: 'sample app: a text editor' },
  { name: 'gnome-calculator', why: 'sample app: a calculator' },
];

/** What the test suite adds: real apps and tools the tests drive, the benchmark peers, the UI browser, the Windows lane. */
export const TEST_PACKAGES: readonly SystemPackage[] = [
  ...DEMO_PACKAGES,
  { name: 'dbus-x11', why: 'dbus-launch for tools that start their own bus' },
  { name: 'xdotool', why: "X input and window tools for tests; the screen bench's click peer" },
  { name: 'imagemagick', why: "import and convert: the screen bench's screenshot peers" },
  { name: 'scrot', why: "the screen bench's other screenshot peer" },
  { name: 'x11-utils', why: 'xprop, xwininfo for tests' },
  { name: 'gir1.2-atspi-2.0', why: 'libatspi for pyatspi' },
  { name: 'python3-pyatspi', why: "the benchmark's reference reader" },
  { name: 'gtk-3-examples', why: 'gtk3-widget-factory, a real app the backend is tested against' },
  { name: 'chromium', why: 'the browser the UI tests drive; the read bench reads a page of ARIA widgets in it' },
  { name: 'firefox-esr', why: 'the real-applications kit (e2e/realApps): a Gecko page over AT-SPI' },
  { name: 'libreoffice-calc', why: 'the real-applications kit: a spreadsheet whose sheet claims 2^31 cells' },
  { name: 'libreoffice-writer', why: 'the real-applications kit: a text document' },
  { name: 'libreoffice-gtk3', why: "the real-applications kit: LibreOffice's GTK3 plugin, whose AT-SPI bridge it reads through (SAL_USE_VCLPLUGIN=gtk3)" },
  { name: 'featherpad', why: 'the real-applications kit: a Qt 5 editor' },
  { name: 'python3-pyqt6', why: "the real-applications kit: the Qt 6 form (Qt 6's X11 plugin comes with libqt6gui6, not qt6-qpa-plugins)" },
  { name: 'openjdk-17-jdk-headless', why: 'the real-applications kit: javac for the Swing form' },
  { name: 'openjdk-17-jre', why: "the real-applications kit: runs the Swing form (AWT's X11 toolkit is not in the headless JRE)" },
  { name: 'libatk-wrapper-java', why: 'the real-applications kit: the ATK wrapper that puts Swing on AT-SPI (java-atk-wrapper.jar)' },
  { name: 'libatk-wrapper-java-jni', why: "the real-applications kit: the ATK wrapper's native library" },
  { name: 'gnumeric', why: 'the read bench: a large GTK3 tree the helper was never tuned for' },
  { name: 'gnome-font-viewer', why: 'the read bench: a GTK4 app the helper was never tuned for' },
  { name: 'gucharmap', why: 'the read bench: a GTK3 app the helper was never tuned for' },
  { name: 'galculator', why: 'the read bench: a small GTK3 app the helper was never tuned for' },
  { name: 'zenity', why: 'the read bench: a small GTK3 form (zenity --forms)' },
  { name: 'yad', why: 'the read bench: a small GTK3 form (yad --form)' },
  { name: 'wine', why: 'the Windows backend lane' },
  { name: 'wine64', why: 'the Windows backend lane (64-bit)' },
  { name: 'gcc-mingw-w64-x86-64', why: 'builds the Win32 fixture' },
  { name: 'openssh-server', why: 'the ssh connection tests run a private sshd on 127.0.0.1 (never the system one)' },
  { name: 'gnome-shell', why: 'the Wayland lane: a headless GNOME session on a virtual monitor' },
  { name: 'xwayland', why: "the Wayland lane: GNOME's X11 compatibility, whose shared clipboard types text beyond the keyboard layout" },
  { name: 'xdg-desktop-portal', why: 'the Wayland lane: the desktop portals the screen tier goes through' },
  { name: 'xdg-desktop-portal-gnome', why: "the Wayland lane: GNOME's Screenshot and RemoteDesktop portals" },
  { name: 'pipewire', why: "the Wayland lane: screen sharing, which GNOME's RemoteDesktop portal needs" },
  { name: 'wireplumber', why: 'the Wayland lane: the PipeWire session manager' },
  { name: 'libglib2.0-bin', why: "the Wayland lane: gsettings, which reads the keyboard layouts and the test session's settings" },
  { name: 'kwin-wayland', why: 'the KDE Wayland lane: kwin_wayland on a virtual output' },
  { name: 'xdg-desktop-portal-kde', why: "the KDE Wayland lane: KDE's Screenshot and RemoteDesktop portals" },
  { name: 'qtwayland5', why: 'the KDE Wayland lane: xdg-desktop-portal-kde aborts on every start without it (Debian does not declare it)' },
  {
    name: 'plasma-workspace',
    why: 'the KDE Wayland lane: the QML modules xdg-desktop-portal-kde loads even for a screenshot without a dialog (Debian does not declare them)',
  },
];

/** The package set of `install-deps` (`--test`: the test suite's). */
export function packageSet(test: boolean): readonly SystemPackage[] {
  return test ? TEST_PACKAGES : DEMO_PACKAGES;
}

/** Runs a command to its end: stdout captured, or stdio inherited (apt-get talks to the person). */
export type Runner = (command: string, args: readonly string[], options?: { inherit?: boolean }) => { status: number | null; stdout: string; error?: string };

/** The real runner (spawnSync). */
export const runCommand: Runner = (command, args, options = {}) => {
  const r = spawnSync(command, [...args], { encoding: 'utf8', stdio: options.inherit === true ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  return { status: r.status, stdout: r.stdout ?? '', ...(r.error !== undefined ? { error: r.error.message } : {}) };
};

/**
 * The packages of `names` that dpkg does not show installed; undefined when dpkg-query cannot
 * be run (not a Debian-like system: nothing can be told by package name there).
 */
export function missingPackages(names: readonly string[], run: Runner = runCommand): string[] | undefined {
  // One call for all: dpkg-query prints the ones it knows (and exits 1 if any is unknown).
  const r = run('dpkg-query', ['-W', '-f=${Package}\\t${db:Status-Status}\\n', ...names]);
  if (r.error !== undefined || r.status === null) return undefined;
  const installed = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    const [name, status] = line.split('\t');
    if (name !== undefined && status === 'installed') installed.add(name.replace(/:.*$/, ''));
  }
  return names.filter((n) => !installed.has(n));
}

/** The command that installs what is missing, as a person would type it. */
export function installDepsCommand(test: boolean): string {
  return `npx overseer install-deps${test ? ' --test' : ''}`;
}

/**
 * One sentence naming the missing packages of a set and the command that installs them, or
 * undefined when none is missing (or the system is not Debian-like and cannot be asked).
 */
export function missingPackagesHint(test: boolean, run: Runner = runCommand): string | undefined {
  const missing = missingPackages(
    packageSet(test).map((p) => p.name),
    run,
  );
  if (missing === undefined || missing.length === 0) return undefined;
  return `missing system packages ${test ? 'for the tests' : 'for the demo desktop'}: ${missing.join(' ')} — install them with: ${installDepsCommand(test)}`;
}
