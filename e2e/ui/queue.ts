import type { Locator, Page } from 'playwright-core';

/**
 * Waits until a control that decides has armed (its card sat still on screen for the arming
 * time), then returns it: a click sooner is refused on purpose (docs/supervision.md#arming-and-decisions).
 */
export async function armed(control: Locator, timeout = 5000): Promise<Locator> {
  // Scrolled into view first: scrolling moves the card, which arms it again, so the click after this needs no scroll.
  await control.scrollIntoViewIfNeeded({ timeout });
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
