/** What replaces a withheld value. */
export const REDACTED = '[redacted]';

/** Fields that carry the typed or current text of an element. */
const TEXT_FIELDS = ['text', 'value', 'current_value'] as const;

/**
 * True when an object describes a password field: its own `password: true` / `redacted: true`
 * (PendingApproval, Element), or those flags on the element it targets (a Receipt's `target`).
 */
function isSecretBearer(obj: Readonly<Record<string, unknown>>): boolean {
  if (obj['password'] === true || obj['redacted'] === true) return true;
  for (const key of ['target', 'element']) {
    const inner = obj[key];
    if (inner === null || typeof inner !== 'object') continue;
    const el = inner as Record<string, unknown>;
    const state = el['state'];
    if (el['redacted'] === true || el['password'] === true) return true;
    if (state !== null && typeof state === 'object' && (state as Record<string, unknown>)['password'] === true) return true;
  }
  return false;
}

/**
 * A copy of `value` that is safe to journal: in every object that describes a password field its
 * `text`/`value`/`current_value` become "[redacted]", and any non-boolean field named `password`
 * does too (a boolean `password` is the flag itself and is kept). Defence in depth: the supervisor
 * redacts before it journals, and this catches what it missed.
 */
export function redactForJournal(value: unknown): unknown {
  return redact(value, new WeakSet());
}

function redact(value: unknown, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== 'object') return value;
  // Mirror JSON.stringify: what gets written is what toJSON returns (Date, class instances).
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return redact((json as () => unknown).call(value), seen);
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v: unknown) => redact(v, seen));
    const obj = value as Record<string, unknown>;
    const secret = isSecretBearer(obj);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(obj)) {
      const hidden = (key === 'password' && typeof v !== 'boolean') || (secret && (TEXT_FIELDS as readonly string[]).includes(key) && v !== undefined);
      // defineProperty, not assignment: a "__proto__" key must stay a key, not become a prototype.
      Object.defineProperty(out, key, { value: hidden ? REDACTED : redact(v, seen), enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    // Shared (non-cyclic) references are fine; only an object inside itself is a cycle.
    seen.delete(value);
  }
}
