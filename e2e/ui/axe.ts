import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** One rule axe-core found broken, with the elements that break it (bounded, so a failure message stays readable). */
export interface AxeViolation {
  rule: string;
  impact: string | null;
  help: string;
  nodes: { target: string; summary: string }[];
}

/** What an audit checks: the color-contrast rule alone, every WCAG 2 A and AA rule (contrast included), or every rule axe has (best practices too: landmarks, one h1, focusable scrolling regions). */
export type AxeScope = 'contrast' | 'wcag2aa' | 'all';

/**
 * Runs axe-core in the page as it is now and answers its violations. The script is evaluated
 * through the DevTools protocol, not added as a <script>: the UI's CSP (script-src 'self')
 * would refuse an inline tag, and the audit must see the page under its real policy.
 */
export async function audit(page: Page, scope: AxeScope = 'wcag2aa'): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const runOnly =
    scope === 'contrast' ? { type: 'rule', values: ['color-contrast'] } : scope === 'wcag2aa' ? { type: 'tag', values: ['wcag2a', 'wcag2aa'] } : undefined;
  return page.evaluate(async (options) => {
    const w = window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: RawViolation[] }> } };
    interface RawViolation {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: unknown[]; failureSummary?: string }[];
    }
    const result = await w.axe.run(document, { ...(options === undefined ? {} : { runOnly: options }), resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 8).map((n) => ({ target: n.target.map(String).join(' '), summary: (n.failureSummary ?? '').slice(0, 300) })),
    }));
  }, runOnly);
}

/** The color-contrast violations on the page now: every text and control must reach 4.5:1 (3:1 for large text), in either theme. */
export function auditContrast(page: Page): Promise<AxeViolation[]> {
  return audit(page, 'contrast');
}

/** A readable account of violations for an assertion message. */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations.map((v) => `${v.rule} (${v.impact ?? '?'}): ${v.help}\n${v.nodes.map((n) => `  ${n.target}: ${n.summary}`).join('\n')}`).join('\n');
}
