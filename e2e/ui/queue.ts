import type { Locator, Page } from 'playwright-core';

/**
 * Waits until a control that decides has armed (its card sat still on screen for the arming
 * time), then returns it: a click sooner is refused on purpose (docs/supervision.md#arming-and-decisions).
 */
export async function armed(control: Locator, timeout = 5000): Promise<Locator> {
  // Scrolled into view first: scrolling moves the card, which arms it again, so the click after this needs no scroll.
  // The whole card, not just the button: a card arms only while 90% of it is on screen, as a person would scroll to read it.
  await control.scrollIntoViewIfNeeded({ timeout });
  await control.evaluate((el) => el.parentElement?.closest('[data-arm-key]')?.scrollIntoView({ block: 'nearest' }));
  await control.and(control.page().locator('[data-armed="true"]')).waitFor({ timeout });
  return control;
}

/** The live card (not a placeholder) whose target carries this automation id. */
export function cardFor(page: Page, automationId: string): Locator {
  return page.getByTestId('pending-card').filter({ hasText: `#${automationId}` });
}

/** The approval id a card or placeholder stands for. */
export async function approvalId(el: Locator): Promise<string> {
  const id = await el.getAttribute('data-approval-id');
  if (id === null) throw new Error('not a card');
  return id;
}

/**
 * Moves the pointer off the queue and waits until the placeholders of earlier decisions have
 * collapsed, so that a spec starts from a queue holding only what it creates.
 */
export async function settleQueue(page: Page): Promise<void> {
  await page.mouse.move(5, 5);
  await page.getByTestId('placeholder').first().waitFor({ state: 'detached', timeout: 15_000 });
}

/** Waits until the queue has placed what changed (after a decision it holds still while the pointer rests on the decided card). */
export async function queueSettled(page: Page, timeout = 5000): Promise<void> {
  await page.locator('[data-testid="approval-queue"][data-settled="true"]').waitFor({ timeout });
}

/** Where an element is against what the person can see of the queue (its column, below its sticky head, inside the window). */
export interface InView {
  top: number;
  bottom: number;
  viewTop: number;
  viewBottom: number;
  /** The share of the element inside that view, 0–1. */
  share: number;
  /** Entirely inside the view. */
  whole: boolean;
}

/** Measures an element against the queue's visible area, in the page. */
export async function inView(el: Locator): Promise<InView> {
  return el.evaluate((node) => {
    const r = node.getBoundingClientRect();
    const col = node.closest('.queue-column');
    const head = document.querySelector('[data-sticky-head]');
    if (col === null || head === null) throw new Error('not in the queue');
    const c = col.getBoundingClientRect();
    const viewTop = Math.max(c.top + col.clientTop, head.getBoundingClientRect().bottom, 0);
    const viewBottom = Math.min(c.top + col.clientTop + col.clientHeight, window.innerHeight);
    const seen = Math.max(0, Math.min(r.bottom, viewBottom) - Math.max(r.top, viewTop));
    return {
      top: r.top,
      bottom: r.bottom,
      viewTop,
      viewBottom,
      share: r.height > 0 ? seen / r.height : 0,
      whole: r.top >= viewTop - 0.5 && r.bottom <= viewBottom + 0.5,
    };
  });
}

/** What a queue probe counted since it was installed. */
export interface QueueCounts {
  /** Scroll events of the page or of the queue's column (the tree following a card's target is not counted). */
  scrolls: number;
  /** The queue column's scrollTop when read. */
  scrollTop: number;
  /** Every "Not decided…" or "Already decided…" note that appeared, in order. */
  refusals: string[];
}

/**
 * Counts, in the page, what a calm person must never meet: scrolling and refusals. Refusals are
 * read from the notes the UI shows (card notes, the queue's line, outcome lines' notes) as they
 * change.
 */
export async function installQueueProbe(page: Page): Promise<void> {
  // A string, not a function: the test's TypeScript loader would wrap inner functions with a helper the page lacks.
  await page.evaluate(`(() => {
    const probe = { scrolls: 0, refusals: [], presentAt: {}, shownAt: {}, armedAt: {}, shownWhole: {}, leftAt: {}, lineAt: {} };
    window.__queueProbe = probe;
    const whole = (el) => {
      const r = el.getBoundingClientRect();
      const col = el.closest('.queue-column');
      const head = document.querySelector('[data-sticky-head]');
      if (col === null) return false;
      const c = col.getBoundingClientRect();
      const top = Math.max(c.top + col.clientTop, head === null ? 0 : head.getBoundingClientRect().bottom, 0);
      const bottom = Math.min(c.top + col.clientTop + col.clientHeight, window.innerHeight);
      return r.top >= top - 0.5 && r.bottom <= bottom + 0.5;
    };
    const look = () => {
      const now = Date.now();
      for (const card of document.querySelectorAll('[data-testid="pending-card"], [data-testid="question-card"], [data-testid="handoff-card"]')) {
        const id = card.getAttribute('data-approval-id');
        probe.presentAt[id] ??= now;
        if (probe.shownAt[id] === undefined) {
          probe.shownAt[id] = now;
          probe.shownWhole[id] = whole(card);
        }
        if (card.querySelector('[data-armed="true"]') !== null) probe.armedAt[id] ??= now;
      }
      const frames = new Set();
      for (const p of document.querySelectorAll('[data-testid="placeholder"]')) {
        const id = p.getAttribute('data-approval-id');
        frames.add(id);
        probe.leftAt[id] ??= now;
        if (p.getAttribute('data-line') === 'true') probe.lineAt[id] ??= now;
      }
      // A card that left while the pointer was elsewhere may become its outcome line within one layout, its frame never seen:
      // it left, and its place was free, when it was last seen gone.
      const live = new Set([...document.querySelectorAll('[data-testid="pending-card"], [data-testid="question-card"], [data-testid="handoff-card"]')].map((c) => c.getAttribute('data-approval-id')));
      for (const id of Object.keys(probe.shownAt)) if (!live.has(id) && !frames.has(id)) probe.leftAt[id] ??= now;
      // A frame whose place went straight to the next card is gone as soon as its outcome line would have come.
      for (const id of Object.keys(probe.leftAt)) if (!frames.has(id)) probe.lineAt[id] ??= now;
    };
    look();
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-armed', 'data-line'] });
    document.addEventListener('scroll', (e) => {
      // The page or the queue's column and what is in it — not what scrolls inside a dialog drawn above them (a reason field).
      if (e.target === document || (e.target instanceof Element && e.target.closest('.queue-column') !== null && e.target.closest('dialog') === null)) probe.scrolls++;
    }, true);
    const last = new WeakMap();
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid="card-note"], [data-testid="queue-note"], [data-testid="placeholder-note"]')) {
        const text = el.textContent ?? '';
        if (last.get(el) === text) continue;
        last.set(el, text);
        if (/^(Not decided|Already decided)/.test(text)) probe.refusals.push(text);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}

/** The approval ids of the live cards shown now. */
export async function shownIds(page: Page): Promise<string[]> {
  return page.getByTestId('pending-card').evaluateAll((els) => els.map((el) => el.getAttribute('data-approval-id') ?? ''));
}

/** Waits for a live card that is not among `known` to be shown, and returns it. */
export async function newCard(page: Page, known: readonly string[], timeout = 15_000): Promise<Locator> {
  const handle = await page.waitForFunction(
    (ids) =>
      [...document.querySelectorAll('[data-testid="pending-card"]')]
        .map((el) => el.getAttribute('data-approval-id'))
        .find((id) => id !== null && !ids.includes(id)),
    [...known],
    { timeout },
  );
  const id = (await handle.jsonValue()) as string;
  const card = page.locator(`[data-testid="pending-card"][data-approval-id="${id}"]`);
  await card.waitFor({ state: 'visible', timeout });
  return card;
}

/** What the probe counted so far. */
export async function queueCounts(page: Page): Promise<QueueCounts> {
  return page.evaluate(() => {
    const w = window as unknown as { __queueProbe?: { scrolls: number; refusals: string[] } };
    const p = w.__queueProbe ?? { scrolls: 0, refusals: [] };
    return { scrolls: p.scrolls, refusals: [...p.refusals], scrollTop: document.querySelector('.queue-column')?.scrollTop ?? 0 };
  });
}

/**
 * When the probe saw a card first in the page, first shown (and whether whole then), first armed,
 * and, once it left, its frame and its outcome line (epoch ms, the page's clock: the same machine's).
 */
export async function cardTimes(page: Page, approvalId: string): Promise<CardTimes> {
  return page.evaluate((id) => {
    const w = window as unknown as {
      __queueProbe?: Record<'presentAt' | 'shownAt' | 'armedAt' | 'leftAt' | 'lineAt', Record<string, number>> & { shownWhole: Record<string, boolean> };
    };
    const p = w.__queueProbe;
    const out: CardTimes = {};
    for (const k of ['presentAt', 'shownAt', 'armedAt', 'leftAt', 'lineAt'] as const) if (p?.[k][id] !== undefined) out[k] = p[k][id];
    if (p?.shownWhole[id] !== undefined) out.shownWhole = p.shownWhole[id];
    return out;
  }, approvalId);
}

/** What the probe saw of one card (epoch ms of the page's clock; `shownWhole`: whole in the queue's view when first shown). */
export interface CardTimes {
  presentAt?: number;
  shownAt?: number;
  armedAt?: number;
  shownWhole?: boolean;
  /** When its place first showed its frame after it left, and when that became the one-line outcome (or the next card). */
  leftAt?: number;
  lineAt?: number;
}

/** Moves the real pointer to the middle of a control in a few steps, as a hand would, and clicks it there. */
export async function pointAndClick(page: Page, control: Locator): Promise<void> {
  const box = await control.boundingBox();
  if (box === null) throw new Error('the control is not on the page');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 6 });
  await page.mouse.down();
  await page.mouse.up();
}
