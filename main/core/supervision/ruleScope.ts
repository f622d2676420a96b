// What a session rule can cover of keys and text (docs/supervision.md#rules-and-keys). A rule
// names one element or one application; keys and text are covered only when their whole effect
// provably stays there. What can move the focus, submit or reach the system never is, and what is
// covered is sent one key at a time with the focus read again before each (the helper's `stay`).
import type { KeyCombo } from '../../../protocol/index.js';

/** Keys that move the focus, submit, cancel or open another part of the application. */
const LEAVE_ELEMENT = new Set(['Tab', 'Return', 'Escape', 'Menu', 'F6', 'F10']);
/** Text characters that act like those keys (tab, line breaks, other controls). */
const LEAVING_TEXT = /[\p{Cc}\u2028\u2029]/u;

/** Why a rule of this scope cannot cover these keys, or undefined when it can. */
export function keysOutOfScope(scope: 'element' | 'app', combos: readonly KeyCombo[], hold: boolean): string | undefined {
  if (hold) return 'a held key repeats until it is let go: no rule covers it';
  for (const c of combos) {
    const named = `${[...c.modifiers, ...(c.key === null ? [] : [c.key])].join('+')}`;
    if (c.modifiers.includes('super') || c.modifiers.includes('alt')) return `${named} can reach other applications or the system: no rule covers it`;
    if (scope === 'app') continue;
    if (c.modifiers.some((m) => m !== 'shift')) return `${named} is a shortcut that can act anywhere in the application: an element rule does not cover it`;
    if (c.key !== null && LEAVE_ELEMENT.has(c.key)) return `${named} can move the focus off the element or submit: an element rule does not cover it`;
    if (c.key === null) return `${named} alone is no key an element rule covers`;
  }
  return undefined;
}

/** Why a rule of this scope cannot cover this text, or undefined when it can. */
export function textOutOfScope(scope: 'element' | 'app', text: string): string | undefined {
  if (scope === 'element' && LEAVING_TEXT.test(text))
    return 'the text holds a tab, a line break or another control character, which can move the focus off the element or submit: an element rule does not cover it';
  return undefined;
}
