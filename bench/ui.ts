// npm run bench (third part): how fast a person sees what an agent asks, and how fast a big tree renders.
import { mkdir, writeFile } from 'node:fs/promises';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { launchBrowser, openUi, pageCookie } from '../e2e/ui/browser.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import type { PendingApproval } from '../protocol/index.js';
import { UiClient, httpClient, removeDataDir, serve } from '../main/testing/serveHarness.js';

const ROUNDS = 20;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const out: Record<string, unknown> = { created_at: new Date().toISOString() };
const desktop = await startPrivateDesktop();
try {
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--big', '5000'], { waitForWindow: 'Overseer Big' });
  const s = await serve(desktop.env);
  const browser = await launchBrowser();
  const agent = await httpClient(s, 'bench-agent');
  try {
    const page = await openUi(browser, s.uiUrl);
    await page.getByTestId('brake-state').waitFor();
    // The person's channel, signed in with the page's cookie, answers each card (the UI's own buttons arm first; this measures how fast a card is seen).
    const cookie = await pageCookie(page);
    const person = await UiClient.connect({ origin: s.origin, uiCookie: () => Promise.resolve(cookie) });
    const windows = (
      JSON.parse(((await agent.callTool({ name: 'window_list', arguments: { output: 'json' } })).content as { text: string }[])[0]?.text ?? '{}') as {
        windows: { window: string; title: string }[];
      }
    ).windows;
    const fixture = windows.find((w) => w.title === 'Overseer Fixture')?.window;
    const cardMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      const call = agent.callTool(
        { name: 'element_act', arguments: { window: fixture, selector: { automation_id: 'counter' }, action: 'invoke' } },
        undefined,
        { timeout: 60_000 },
      );
      await page.getByTestId('pending-card').first().waitFor();
      cardMs.push(performance.now() - t0);
      const pending = await person.command<{ pending: PendingApproval[] }>('snapshot');
      for (const p of pending.pending) await person.command('deny', { approval_id: p.approval_id, reason: 'bench' });
      await call;
      await page.getByTestId('pending-card').first().waitFor({ state: 'detached', timeout: 10_000 });
    }
    out['act_to_card_ms'] = { p50: median(cardMs), all: cardMs, pass: median(cardMs) < 100 };
    console.log(
      `element_act → card visible in the browser: p50 ${median(cardMs).toFixed(1)} ms over ${ROUNDS} (goal < 100 ms: ${median(cardMs) < 100 ? 'PASS' : 'MISS'})`,
    );
    await page.getByTestId('window-item').filter({ hasText: 'Overseer Big' }).first().click();
    await page
      .getByTestId('tree-row')
      .filter({ hasText: /\bCell \d+\b/ })
      .first()
      .waitFor({ timeout: 30_000 });
    const renderMs = await page.evaluate(() => {
      const m = performance.getEntriesByName('overseer:tree-render');
      return m.length > 0 ? (m[m.length - 1]?.duration ?? NaN) : NaN;
    });
    out['tree_5000'] = { render_ms: renderMs, pass: Number.isFinite(renderMs) ? renderMs < 300 : undefined };
    console.log(
      `5,000-node window: first render of the tree, from its arrival to the first painted frame, ${Number.isFinite(renderMs) ? `${renderMs.toFixed(1)} ms (goal < 300 ms: ${renderMs < 300 ? 'PASS' : 'MISS'})` : 'not measured (the renderer sets no overseer:tree-render measure)'}`,
    );
    person.close();
  } finally {
    await agent.close();
    await browser.close();
    await s.kill();
    await removeDataDir(s.dataDir);
  }
} finally {
  await desktop.stop();
}
await mkdir(`${REPO_ROOT}.artifacts`, { recursive: true });
await writeFile(`${REPO_ROOT}.artifacts/bench-ui.json`, JSON.stringify(out, null, 2));
