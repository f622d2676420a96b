import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium; never a downloaded browser. */
export const CHROMIUM = process.env['OVERSEER_CHROMIUM'] ?? '/usr/bin/chromium';
/** Where UI tests leave screenshots for a reviewer. */
export const SCREENSHOTS = join(fileURLToPath(new URL('../../', import.meta.url)), '.artifacts', 'screenshots');

/** Launches headless Chromium with the flags this machine needs (root, no GPU, closed network). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/**
 * A page at 1280×800 (the size the UI must be readable at). `url` is a sign-in link (it works
 * once) or, with `cookie` (`name=value` of an earlier sign-in), the UI's own address.
 */
export async function openUi(browser: Browser, url: string, colorScheme: 'light' | 'dark' = 'light', cookie?: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme });
  if (cookie !== undefined) {
    const eq = cookie.indexOf('=');
    await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: new URL(url).origin, httpOnly: true, sameSite: 'Strict' }]);
  }
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

/** The UI cookie a page's browser context holds (`name=value`). */
export async function pageCookie(page: Page): Promise<string> {
  const found = (await page.context().cookies()).find((c) => c.name.startsWith('overseer_ui_'));
  if (found === undefined) throw new Error('the page is not signed in');
  return `${found.name}=${found.value}`;
}

/** Saves a screenshot artifact named for what it shows. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
