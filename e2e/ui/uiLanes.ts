import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type Browser, type ElectronApplication, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { removeDataDir, serve, type Served, type ServeOptions } from '../../main/testing/serveHarness.js';
import { electronBinary } from '../../scripts/electronBinary.mjs';
import { launchBrowser, openUi, pageCookie, screenshot } from './browser.js';

/** A running supervisor with its UI open, as the UI specs see it in either lane. */
export interface UiSession {
  /** Where agents connect over HTTP. */
  mcp: { mcpUrl: string; token: string };
  page: Page;
  /** The same UI in a dark system theme; close() when done. */
  darkPage: () => Promise<{ page: Page; close: () => Promise<void> }>;
  /** The supervisor's own address (browser mode only). */
  origin?: string;
  /** A page in a fresh browser context that never signed in, at `url` (browser mode only); close() when done. */
  freshPage?: (url: string) => Promise<{ page: Page; close: () => Promise<void> }>;
  /** Stops the supervisor, runs `whileDown` (if given) while it is gone, and starts it again on the same port and data (browser mode only). */
  restart?: (whileDown?: () => Promise<void>) => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * A theme's page at 1280×720 with the brake shown running: the session's own page in the light
 * theme, a fresh dark one otherwise. `close` closes only the dark one (the light page is the session's).
 */
export async function themePage(ui: UiSession, theme: 'light' | 'dark'): Promise<{ page: Page; close: () => Promise<void> }> {
  const { page, close } = theme === 'light' ? { page: ui.page, close: () => Promise.resolve() } : await ui.darkPage();
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
  return { page, close };
}

/**
 * Where the UI specs run: `browser` (overseer serve + Debian's Chromium) and `electron` (the
 * desktop app through Playwright's _electron.launch). A lane that cannot run on a machine says why.
 */
export interface UiLane {
  name: 'browser' | 'electron';
  unavailable(): string | undefined;
  /**
   * `serve` (browser lane only): how the supervisor is started, e.g. with a test's stand-in targets
   * (main/testing/standInTarget.ts), or on a data folder the test made (to add connections with the CLI there).
   */
  start(env: Record<string, string | undefined>, serveOptions?: Pick<ServeOptions, 'nodeArgs' | 'dataDir' | 'targets'>): Promise<UiSession>;
}

const browserLane: UiLane = {
  name: 'browser',
  unavailable: () => undefined,
  async start(env, serveOptions = {}) {
    let s: Served = await serve(env, serveOptions);
    const browser: Browser = await launchBrowser();
    const page = await openUi(browser, s.uiUrl);
    const cookie = await pageCookie(page);
    const session: UiSession = {
      get mcp() {
        return { mcpUrl: s.mcpUrl, token: s.token };
      },
      page,
      get origin() {
        return s.origin;
      },
      async darkPage() {
        const dark = await openUi(browser, `${s.origin}/`, 'dark', cookie);
        return { page: dark, close: () => dark.context().close() };
      },
      async freshPage(url) {
        const fresh = await openUi(browser, url);
        return { page: fresh, close: () => fresh.context().close() };
      },
      async restart(whileDown) {
        const port = new URL(s.origin).port;
        await s.kill();
        await page.getByTestId('connection-banner').waitFor({ timeout: 10_000 });
        await screenshot(page, 'disconnected');
        try {
          await whileDown?.();
        } finally {
          s = await serve(env, { ...serveOptions, dataDir: s.dataDir, token: s.token, extra: ['--port', port] });
        }
      },
      async stop() {
        await browser.close();
        await s.kill();
        await removeDataDir(s.dataDir);
      },
    };
    return session;
  },
};

const electronLane: UiLane = {
  name: 'electron',
  unavailable: () => {
    const found = electronBinary(REPO_ROOT);
    return found.why !== undefined ? `Electron is unavailable here: ${found.why}. The browser lane runs the same specs.` : undefined;
  },
  async start(env) {
    const { binary } = electronBinary(REPO_ROOT);
    const dataDir = await mkdtemp(join(tmpdir(), 'overseer-electron-'));
    const app: ElectronApplication = await _electron.launch({
      ...(binary !== undefined ? { executablePath: binary } : {}),
      args: [REPO_ROOT, '--data-dir', dataDir, '--port', '0', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    });
    let out = '';
    app.process().stdout?.on('data', (b: Buffer) => (out += b.toString('utf8')));
    for (let i = 0; i < 300 && !/MCP: \S+/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    const mcpUrl = /MCP: (\S+)/.exec(out)?.[1];
    if (mcpUrl === undefined) throw new Error(`the desktop app did not report its MCP endpoint: ${out}`);
    const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
    const page = await app.firstWindow();
    await page.setViewportSize({ width: 1280, height: 800 });
    return {
      mcp: { mcpUrl, token },
      page,
      async darkPage() {
        await page.emulateMedia({ colorScheme: 'dark' });
        return { page, close: () => page.emulateMedia({ colorScheme: 'light' }) };
      },
      async stop() {
        await app.evaluate(({ app: a }) => a.quit());
        await app.close().catch(() => {});
        await removeDataDir(dataDir);
      },
    };
  },
};

/** Every lane, in the order they run. */
export const UI_LANES: readonly UiLane[] = [browserLane, electronLane];
