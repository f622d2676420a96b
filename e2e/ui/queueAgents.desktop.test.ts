import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Locator, Page } from 'playwright-core';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { httpClient, removeDataDir, serve, toolJson, UiClient, type Served } from '../../main/testing/serveHarness.js';
import { launchBrowser, openUi, pageCookie, screenshot } from './browser.js';
import { approvalId, cardTimes, installQueueProbe, pointAndClick, queueCounts, settleQueue, type CardTimes } from './queue.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
/** What the person waits after a card appears before deciding it. */
const CALM_MS = 900;
/** The bound on a decided card's frame: GUARD_MS (0.5 s) while the pointer rests on it, and a frame or two for the page. */
const COLLAPSE_MS = 700;
/** Buttons of the fixture that can be invoked again and again. */
const TARGETS = ['counter', 'dup_a', 'dup_b', 'save_ru', 'hello_ru'];
/** Cards each agent sends, one after another as its answers come. */
const ROUNDS = 4;
const LANES = [
  { agents: 2, width: 1280, height: 720, theme: 'light' },
  { agents: 2, width: 1280, height: 720, theme: 'dark' },
  { agents: 2, width: 1024, height: 700, theme: 'light' },
  { agents: 2, width: 1024, height: 700, theme: 'dark' },
  { agents: 2, width: 1920, height: 1080, theme: 'light' },
  { agents: 3, width: 1280, height: 720, theme: 'dark' },
  { agents: 3, width: 1024, height: 700, theme: 'light' },
] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sleepUntil = (t: number) => sleep(Math.max(0, t - Date.now()));

/** The p-th percentile (0–100) of some figures, nearest rank. */
function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/** Every card the person may decide: actions, questions and handoffs. */
const LIVE = '[data-testid="pending-card"], [data-testid="question-card"]';

/**
 * docs/supervision.md#where-the-next-card-appears and #cards-that-fit with several agents at once:
 * the real supervisor, helper and GTK fixture, two and three real MCP SDK agents each sending its
 * next card as soon as its last is answered, and a person in Debian's Chromium who waits 0.9 s after
 * each card appears, then decides it with the pointer — approving, denying with a reason, answering
 * a question. Cards arrive while others are read and decided: none moves, none is refused, the
 * queue never scrolls, each is whole where it appears, and each decided card becomes its outcome
 * line within its bound. Figures (call → decidable card, collapse times) are printed.
 */
describe('two and three agents at once, decided calmly', () => {
  let desktop: PrivateDesktop;
  let served: Served;
  let browser: Browser;
  let cookie: string;
  let person: UiClient;
  let agents: Client[];
  let win: string;
  const decidable: number[] = [];

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
    served = await serve(desktop.env);
    browser = await launchBrowser();
    const first = await openUi(browser, served.uiUrl);
    cookie = await pageCookie(first);
    await first.context().close();
    person = await UiClient.connect({ origin: served.origin, uiCookie: async () => cookie });
    agents = [await httpClient(served, 'agent-one'), await httpClient(served, 'agent-two'), await httpClient(served, 'agent-three')];
    const listed = await toolJson<{ windows: { window: string; title: string }[] }>(agents[0] as Client, 'window_list');
    win = listed.windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
    assert.notEqual(win, '', 'the fixture window is listed');
  });
  after(async () => {
    if (decidable.length > 0)
      console.log(
        `# call → decidable (armed) card, all lanes: p50 ${percentile(decidable, 50)} ms, p95 ${percentile(decidable, 95)} ms (n = ${decidable.length})`,
      );
    person?.close();
    for (const a of agents ?? []) await a.close().catch(() => {});
    await browser?.close();
    await served?.kill();
    if (served !== undefined) await removeDataDir(served.dataDir);
    await desktop?.stop();
  });
  afterEach(async () => {
    for (const p of person.pending) await person.command('deny', { approval_id: p.approval_id }).catch(() => {});
  });

  for (const lane of LANES) {
    const name = `${lane.agents}-agents-${lane.width}x${lane.height}-${lane.theme}`;
    it(`${lane.agents} agents at ${lane.width}×${lane.height}, ${lane.theme}: no refusal, no scroll, every card whole where it appears`, async () => {
      const page = await openUi(browser, `${served.origin}/`, lane.theme, cookie);
      let stop = false;
      try {
        await page.setViewportSize({ width: lane.width, height: lane.height });
        await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
        await settleQueue(page).catch(() => {});
        await installQueueProbe(page);
        const before = await queueCounts(page);
        const calls = new Map<string, number>();
        const sent: Promise<unknown>[] = [];
        let running = lane.agents;
        // Each agent sends its next card as soon as its last is answered; the third asks questions.
        const agentLoop = async (i: number) => {
          const agent = agents[i] as Client;
          for (let r = 0; r < ROUNDS && !stop; r++) {
            const t0 = Date.now();
            const call =
              i === 2
                ? toolJson(
                    agent,
                    'computer_ask',
                    { question: `Round ${r}: which file should agent three open?`, choices: ['report.ods', 'notes.txt'] },
                    { timeout: 120_000 },
                  )
                : toolJson(
                    agent,
                    'element_act',
                    { window: win, selector: { automation_id: TARGETS[(i * 2 + r) % TARGETS.length] }, action: 'invoke' },
                    { timeout: 120_000 },
                  );
            // The card's approval id is known once the supervisor lists it: the newest pending item of this agent.
            const mark = person.mark();
            void person
              .waitFor<{ approval_id: string; agent: string }[]>(
                'pending',
                (list) => list.some((p) => p.agent === `agent-${['one', 'two', 'three'][i]}` && !calls.has(p.approval_id)),
                30_000,
                mark,
              )
              .then((list) => {
                for (const p of list) if (p.agent === `agent-${['one', 'two', 'three'][i]}` && !calls.has(p.approval_id)) calls.set(p.approval_id, t0);
              })
              .catch(() => {});
            sent.push(call);
            await call;
          }
          running--;
        };
        const loops = Array.from({ length: lane.agents }, (_, i) => agentLoop(i));
        const decided: { id: string; how: string }[] = [];
        let shot = false;
        const total = lane.agents * ROUNDS;
        while (decided.length < total) {
          const card = await nextCard(page, new Set(decided.map((d) => d.id)));
          const id = await approvalId(card);
          const seen = await cardTimes(page, id);
          assert.ok(seen.shownAt !== undefined, `the probe saw ${id} shown`);
          if (!shot && (await page.locator(LIVE).count()) >= Math.min(2, lane.agents)) {
            await screenshot(page, `queue-${name}`);
            shot = true;
          }
          await sleepUntil(seen.shownAt + CALM_MS);
          const how = await decideAsAPerson(page, card, decided.length);
          decided.push({ id, how });
        }
        await Promise.all(loops);
        assert.equal(running, 0);
        for (const a of await Promise.allSettled(sent)) assert.equal(a.status, 'fulfilled', String(a.status === 'rejected' ? a.reason : ''));
        await sleep(COLLAPSE_MS);
        const after = await queueCounts(page);
        const refusals = after.refusals.slice(before.refusals.length);
        const times = new Map<string, CardTimes>();
        for (const d of decided) times.set(d.id, await cardTimes(page, d.id));
        const notWhole = decided.filter((d) => times.get(d.id)?.shownWhole !== true);
        const collapse = decided.map((d) => {
          const t = times.get(d.id);
          return t?.leftAt !== undefined && t.lineAt !== undefined ? t.lineAt - t.leftAt : Number.POSITIVE_INFINITY;
        });
        const armed = decided.flatMap((d) => {
          const t0 = calls.get(d.id);
          const t = times.get(d.id);
          return t0 !== undefined && t?.armedAt !== undefined ? [t.armedAt - t0] : [];
        });
        decidable.push(...armed);
        console.log(
          `# ${name}: ${decided.length} cards (${decided.map((d) => d.how).join(', ')}); refusals ${refusals.length}, scroll events ${after.scrolls - before.scrolls}, not whole on arrival ${notWhole.length}; frame → outcome line p50 ${percentile(collapse, 50)} ms, max ${Math.max(...collapse)} ms; call → decidable p50 ${percentile(armed, 50)} ms, p95 ${percentile(armed, 95)} ms`,
        );
        assert.deepEqual(refusals, [], 'a person who waits 0.9 s is never refused');
        assert.equal(after.scrolls - before.scrolls, 0, 'nothing scrolled');
        assert.deepEqual(notWhole, [], 'every card was whole where it appeared');
        for (const [i, ms] of collapse.entries()) assert.ok(ms <= COLLAPSE_MS, `card ${i + 1} (${decided[i]?.how}) became its outcome line after ${ms} ms`);
      } finally {
        stop = true;
        await page.context().close();
      }
    });
  }
});

/**
 * The card a person decides next: the selected one when it is shown and not yet decided, else the
 * first shown. Waits for one to be shown.
 */
async function nextCard(page: Page, decided: ReadonlySet<string>): Promise<Locator> {
  const handle = await page
    .waitForFunction(
      ({ done, live }) => {
        const cards = [...document.querySelectorAll(live)].filter((el) => !done.includes(el.getAttribute('data-approval-id') ?? ''));
        const chosen = cards.find((el) => el.getAttribute('aria-current') === 'true') ?? cards[0];
        return chosen?.getAttribute('data-approval-id') ?? undefined;
      },
      { done: [...decided], live: LIVE },
      { timeout: 30_000, polling: 50 },
    )
    .catch(async (e: Error) => {
      throw new Error(`${e.message}: no undecided card shown; the queue says: ${await page.getByTestId('approval-queue').innerText()}`);
    });
  const id = (await handle.jsonValue()) as string;
  return page.locator(`[data-approval-id="${id}"]`).and(page.locator(LIVE));
}

/** Decides a card the way a person does: the pointer moves to a control and clicks; every third action is denied with a reason read back whole. */
async function decideAsAPerson(page: Page, card: Locator, n: number): Promise<string> {
  if ((await card.getAttribute('data-testid')) === 'question-card') {
    await pointAndClick(page, card.getByTestId('choice-button').first());
    return 'answered';
  }
  if (n % 3 === 2) {
    await pointAndClick(page, card.getByTestId('deny-button'));
    const reason = card.getByTestId('deny-reason');
    await reason.waitFor();
    await reason.type('Not now: the report is not ready, and the counter must stay where it is until Friday.', { delay: 5 });
    const fits = await reason.evaluate((el) => {
      const t = el as HTMLTextAreaElement;
      const c = t.closest('[data-approval-id]')?.getBoundingClientRect();
      return { whole: t.scrollHeight <= t.clientHeight + 1, width: t.getBoundingClientRect().width, card: c?.width ?? 0 };
    });
    assert.ok(fits.whole, 'the whole reason is visible while typed');
    assert.ok(fits.width >= fits.card * 0.8, `the reason field is as wide as the card (${Math.round(fits.width)} of ${Math.round(fits.card)} px)`);
    await pointAndClick(page, card.getByTestId('deny-confirm'));
    return 'denied';
  }
  await pointAndClick(page, card.getByTestId('approve-button'));
  return 'approved';
}
