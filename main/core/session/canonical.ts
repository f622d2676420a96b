/**
 * Canonical JSON: object keys sorted, `undefined` members dropped, so two values that mean the same
 * thing serialize to the same string whatever order their fields were built in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const parts: string[] = [];
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** Query parameters that never change what is being observed, so they stay out of the scope. */
const NOT_SCOPE = new Set(['since', 'snapshot', 'targets']);

/**
 * The scope of a window_read: its query parameters except since/snapshot/targets, plus the window
 * actually read (the default "foreground window" query can land on different windows).
 */
export function observationScope(params: Readonly<Record<string, unknown>>, windowId: string): string {
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (!NOT_SCOPE.has(k)) kept[k] = v;
  return canonicalJson({ params: kept, window: windowId });
}
