/** A small seeded PRNG (mulberry32): the same seed makes the same cases, so a failure can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks from a list with the generator. */
export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

const STRINGS = [
  '',
  ' ',
  'x',
  'approve',
  '__proto__',
  'constructor',
  '\u0000',
  '\ud800',
  '😀',
  'Привет',
  '"',
  '\\',
  '\n',
  '%00',
  '../../etc/passwd',
  'x'.repeat(5000),
];
const NUMBERS = [0, -1, 1.5, 2 ** 31, 2 ** 53 + 1, -0, 1e308, Number.MAX_SAFE_INTEGER];

/** A random JSON value: nesting, width, odd strings and numbers; never more than `budget` nodes. */
export function jsonValue(rand: () => number, depth = 0, budget = { left: 200 }): unknown {
  budget.left--;
  const r = rand();
  if (depth > 6 || budget.left <= 0 || r < 0.35) {
    const leaf = rand();
    if (leaf < 0.3) return pick(rand, STRINGS);
    if (leaf < 0.55) return pick(rand, NUMBERS);
    if (leaf < 0.7) return rand() < 0.5;
    return null;
  }
  if (r < 0.65) return Array.from({ length: Math.floor(rand() * 5) }, () => jsonValue(rand, depth + 1, budget));
  const obj: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 5); i > 0; i--)
    obj[
      pick(rand, [
        ...STRINGS.slice(0, 8),
        'type',
        'id',
        'command',
        'params',
        'approval_id',
        'allow',
        'scope',
        'action',
        'method',
        'jsonrpc',
        'name',
        'arguments',
      ])
    ] = jsonValue(rand, depth + 1, budget);
  return obj;
}

/** Raw JSON text nested `n` levels (arrays or objects), which JSON.stringify could not even produce. */
export function deepText(n: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(n)}1${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
}

/** Bytes that are not valid UTF-8. */
export const BAD_UTF8 = [
  Buffer.from([0xff]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xf0, 0x90, 0x28, 0xbc]),
  Buffer.from([0xed, 0xa0, 0x80]),
];

/** Cuts text at a random place (truncated JSON). */
export function truncate(rand: () => number, text: string): string {
  return text.slice(0, Math.max(1, Math.floor(rand() * text.length)));
}
