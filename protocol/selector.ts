import { z } from 'zod';
import { MAX_SELECTOR_CHARS } from './limits.js';

/** A text field of a selector: a non-blank string, matched as given (whitespace kept). */
function selectorText(describe: string): z.ZodOptional<z.ZodString> {
  return z
    .string({
      // A schema's error map also speaks for its checks: only the wrong type is said here, the checks say their own.
      error: (issue) =>
        issue.code !== 'invalid_type'
          ? undefined
          : issue.input === undefined
            ? 'required'
            : `must be a string, got ${issue.input === null ? 'null' : typeof issue.input}`,
    })
    .max(MAX_SELECTOR_CHARS, {
      error: (issue) => `must be at most ${MAX_SELECTOR_CHARS} characters, got ${typeof issue.input === 'string' ? issue.input.length : 'more'}`,
    })
    .refine((s) => s.trim().length > 0, 'must not be blank')
    .describe(describe)
    .optional();
}

/** Fields of a selector that match text. */
export const SELECTOR_TEXT_FIELDS = ['automation_id', 'role', 'name', 'name_contains', 'value_contains'] as const;
export type SelectorTextField = (typeof SELECTOR_TEXT_FIELDS)[number];

/** Picks elements of one window. All given fields must match (AND). */
export const Selector = z
  .strictObject({
    automation_id: selectorText('Exact, case-sensitive automation id (UIA AutomationId, AT-SPI accessible id).'),
    role: selectorText('Role from the shared vocabulary (button, edit, check_box, combo_box, list_item, menu_item, …); case-insensitive.'),
    name: selectorText('Whole accessible name; case-insensitive (Unicode case folding), whitespace kept.'),
    name_contains: selectorText('Substring of the accessible name; case-insensitive.'),
    value_contains: selectorText('Substring of the current value; case-insensitive. Never matches password fields.'),
    nth: z.number().int().min(0).max(100_000).describe('0-based index to pick one of several matches, in document order.').optional(),
  })
  .refine(
    (s) => SELECTOR_TEXT_FIELDS.some((f) => s[f] !== undefined),
    'a selector needs at least one of automation_id, role, name, name_contains, value_contains',
  )
  .describe('Which element: every given field must match.');
export type Selector = z.infer<typeof Selector>;
