import { fail, type Pattern } from '../../protocol/index.js';

/**
 * How a set_value is carried: as text (AT-SPI EditableText, UIA ValuePattern, WM_SETTEXT) or as a
 * number (AT-SPI Value, UIA RangeValuePattern).
 */
export type SetValueRoute = { via: 'text'; text: string } | { via: 'number'; number: number };

/** True when the text reads as a finite number. Blank text is not a number (Number('') is 0). */
export function isNumericText(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text));
}

/**
 * The one set_value rule every backend and the read-back follow (docs/tools.md#element_act: `text` is a string and
 * `""` clears). A number goes to a range value when there is one, so a spin button's adjustment
 * itself changes; any other text, `""` included, goes to the text. An element with only a range
 * value cannot be cleared or given words: that is refused, never read as 0.
 * Throws invalid_argument or pattern_unsupported before anything is called.
 */
export function setValueRoute(patterns: readonly Pattern[], text: string | undefined): SetValueRoute {
  if (typeof text !== 'string') throw fail('invalid_argument', 'set_value needs text (a string; "" clears)');
  const numeric = isNumericText(text);
  if (numeric && patterns.includes('range_value')) return { via: 'number', number: Number(text) };
  if (patterns.includes('value')) return { via: 'text', text };
  if (patterns.includes('range_value'))
    throw fail('invalid_argument', `"${text.slice(0, 40)}" is not a number; this element takes a numeric value and cannot be cleared`, {
      supported: [...patterns],
    });
  throw fail('pattern_unsupported', 'the element has neither a value nor a range value', { supported: [...patterns] });
}
