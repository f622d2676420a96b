import { createHash } from 'node:crypto';

/** Largest journal line, in bytes: far above any record the supervisor builds (a few KiB), far below what would slow every append behind it. */
export const MAX_RECORD_BYTES = 256 * 1024;
/** Room kept for the fields the journal adds (seq, at, prev_hash, hash) and the note of what was cut. */
const CHAIN_ALLOWANCE = 1024;
/** A summary's own size, at most: a value is replaced only when that saves more. */
const SUMMARY_BYTES = 300;
/** Characters of a summarised string kept as its beginning. */
const KEPT_CHARS = 120;
/** The field that lists what was summarised, by path. */
export const CUT_FIELD = 'cut_to_fit';

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');

/** What stands for a value left out: its kind, size and hash, so an auditor can still match it. */
function summary(value: unknown, size: number): string {
  const sha = createHash('sha256')
    .update(JSON.stringify(value) ?? 'null')
    .digest('hex')
    .slice(0, 16);
  if (typeof value === 'string') return `${value.slice(0, KEPT_CHARS)}…(${value.length} chars, ${size} bytes, sha256 ${sha}…: cut to fit the journal)`;
  const what = Array.isArray(value) ? `array of ${value.length}` : `object of ${Object.keys(value as object).length} keys`;
  return `[${what}, ${size} bytes, sha256 ${sha}…: left out to fit the journal]`;
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => v !== null && typeof v === 'object';

/** The largest member of a container, with its key and size. */
function largest(node: Container): { key: string | number; size: number } | undefined {
  let best: { key: string | number; size: number } | undefined;
  const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
  for (const [key, v] of entries) {
    const size = bytes(v);
    if (best === undefined || size > best.size) best = { key, size };
  }
  return best;
}

/**
 * A journal record's fields within MAX_RECORD_BYTES (docs/supervision.md#records): when they are
 * larger, the smallest value that removes the excess on its own — found by following the largest
 * member down from the record — is replaced by a summary (kind, size, hash), and so on until the
 * record fits; `cut_to_fit` lists the paths replaced. Plain JSON in, plain JSON out; a record
 * that fits is returned as it is.
 */
export function fitRecord(fields: Record<string, unknown>, max = MAX_RECORD_BYTES): Record<string, unknown> {
  const budget = max - CHAIN_ALLOWANCE;
  let size = bytes(fields);
  if (size <= budget) return fields;
  const record = structuredClone(fields);
  const cut: string[] = [];
  while (size > budget) {
    const excess = size - budget;
    // Down the largest members while one of them alone can take the whole excess.
    let parent: Container = record;
    let step = largest(record);
    const path: (string | number)[] = [];
    for (;;) {
      if (step === undefined) break;
      const child: unknown = (parent as Record<string | number, unknown>)[step.key];
      const next = isContainer(child) ? largest(child) : undefined;
      if (!isContainer(child) || next === undefined || next.size < excess + SUMMARY_BYTES) break;
      path.push(step.key);
      parent = child;
      step = next;
    }
    // Nothing left that a summary would shrink: the record stays as cut so far (no record of ours gets here).
    if (step === undefined || step.size <= SUMMARY_BYTES || (path.length === 0 && step.key === 'kind')) break;
    path.push(step.key);
    const holder = parent as Record<string | number, unknown>;
    holder[step.key] = summary(holder[step.key], step.size);
    cut.push(path.join('.'));
    size = bytes(record) + bytes(cut);
  }
  record[CUT_FIELD] = cut;
  return record;
}
