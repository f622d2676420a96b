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

/**
 * Characters of a value's JSON text, counted without building it (escapes inside strings are not
 * counted). Shaping counts every element of every answer: stringifying each was a large part of a
 * repeated read.
 */
export function jsonChars(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 1 + Math.max(1, value.length);
        for (const item of value) n += item === undefined ? 4 : jsonChars(item);
        return n;
      }
      let n = 1;
      let fields = 0;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function') continue;
        n += key.length + 3 + jsonChars(item);
        fields++;
      }
      return n + Math.max(1, fields);
    }
    default:
      return 0;
  }
}

/** Approximate tokens of a JSON value (≈ 4 characters a token). */
export function approxTokens(value: unknown): number {
  return Math.ceil(jsonChars(value) / 4);
}
