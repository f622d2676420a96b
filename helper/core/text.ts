/**
 * Case folding for selectors: upper then lower approximates Unicode full case folding
 * (ß→ss, final sigma, Cyrillic) without changing normalization of the original string.
 */
export function fold(text: string): string {
  return text.normalize('NFC').toUpperCase().toLowerCase();
}

/** Cuts text to maxChars code points; returns undefined when nothing was cut. */
export function cutText(text: string, maxChars: number): string | undefined {
  if (text.length <= maxChars) return undefined;
  const points = Array.from(text);
  if (points.length <= maxChars) return undefined;
  return `${points.slice(0, maxChars).join('')}…`;
}

/** Approximate tokens of a JSON value (≈ 4 characters a token). */
export function approxTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}
