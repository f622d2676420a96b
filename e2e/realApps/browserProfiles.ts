// Fresh browser profiles for the real-applications kit: only the given page opens, in one tab, and
// nothing leaves 127.0.0.0/8.
//
// Measured with Firefox ESR 153: a fresh `--profile DIR --no-remote --new-instance` opened a
// welcome ("Problem loading page" offline) tab and a New Tab beside the URL; with this user.js it
// opens the URL alone. Every proxy points at 127.0.0.1:9 (discard, nothing listens), so a request
// a pref below misses still cannot reach the network; loopback itself is never proxied.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A proxy nobody answers: what any outgoing request the prefs miss runs into. */
const DEAD_PROXY = { host: '127.0.0.1', port: 9 };

const FIREFOX_PREFS: Record<string, string | number | boolean> = {
  // First run, welcome, what's new, default browser: only the URL given.
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'startup.homepage_welcome_url': '',
  'startup.homepage_welcome_url.additional': '',
  'startup.homepage_override_url': '',
  'browser.aboutwelcome.enabled': false,
  'browser.startup.firstrunSkipsHomepage': true,
  'browser.startup.page': 0,
  'browser.startup.homepage': 'about:blank',
  'browser.newtabpage.enabled': false,
  'browser.tabs.warnOnClose': false,
  'browser.warnOnQuit': false,
  // Session restore.
  'browser.sessionstore.resume_from_crash': false,
  'browser.sessionstore.max_resumed_crashes': 0,
  // Telemetry and data reporting.
  'datareporting.policy.dataSubmissionEnabled': false,
  'datareporting.policy.firstRunURL': '',
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.usage.uploadEnabled': false,
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'browser.ping-centre.telemetry': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  // Updates.
  'app.update.auto': false,
  'app.update.enabled': false,
  'extensions.update.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'extensions.getAddons.cache.enabled': false,
  'browser.search.update': false,
  // Background network.
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'captivedetect.canonicalURL': '',
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.http.speculative-parallel-limit': 0,
  'network.trr.mode': 5,
  // Remote settings still looked firefox.settings.services.mozilla.com up with the system resolver
  // (strace): every name resolves to loopback instead, without asking any resolver.
  'network.dns.native-is-localhost': true,
  'network.dns.forceResolve': '127.0.0.1',
  'network.dns.upgrade_with_https_rr': false,
  'network.dns.use_https_rr_as_altsvc': false,
  'network.dns.echconfig.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.region.network.url': '',
  'geo.provider.network.url': '',
  'media.gmp-manager.url': '',
  'services.settings.server': `http://${DEAD_PROXY.host}:${DEAD_PROXY.port}/`,
  'identity.fxaccounts.enabled': false,
  'dom.push.enabled': false,
  'network.proxy.type': 1,
  'network.proxy.http': DEAD_PROXY.host,
  'network.proxy.http_port': DEAD_PROXY.port,
  'network.proxy.ssl': DEAD_PROXY.host,
  'network.proxy.ssl_port': DEAD_PROXY.port,
  'network.proxy.socks': DEAD_PROXY.host,
  'network.proxy.socks_port': DEAD_PROXY.port,
  'network.proxy.socks_remote_dns': true,
};

/**
 * Make a fresh Firefox profile folder at `dir` with the user.js above; returns `dir`. With `place`,
 * its xulstore.json also opens the window there, not maximized: a fresh profile maximized itself
 * on a 1280x800 screen (measured), and openbox then ignores every resize.
 */
export function writeFirefoxProfile(dir: string, place?: { x: number; y: number; width: number; height: number }): string {
  mkdirSync(dir, { recursive: true });
  const lines = Object.entries(FIREFOX_PREFS).map(([name, value]) => `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});`);
  writeFileSync(path.join(dir, 'user.js'), `${lines.join('\n')}\n`);
  if (place !== undefined) {
    const mainWindow = { screenX: `${place.x}`, screenY: `${place.y}`, width: `${place.width}`, height: `${place.height}`, sizemode: 'normal' };
    writeFileSync(path.join(dir, 'xulstore.json'), JSON.stringify({ 'chrome://browser/content/browser.xhtml': { 'main-window': mainWindow } }));
  }
  return dir;
}

/**
 * Chromium's flags as root under Xvfb with its web content on AT-SPI, as measured:
 * --force-renderer-accessibility (the bus's IsEnabled/ScreenReaderEnabled did not suffice), no
 * sandbox, GPU, first run, background networking, component updates, sync or keyring; and the
 * dead proxy for anything else (loopback is never proxied).
 */
export function chromiumArgs(profileDir: string): string[] {
  return [
    '--force-renderer-accessibility',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    '--password-store=basic',
    `--proxy-server=${DEAD_PROXY.host}:${DEAD_PROXY.port}`,
    `--user-data-dir=${profileDir}`,
  ];
}
