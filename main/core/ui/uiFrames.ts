// What keeps every frame of the UI channel small whatever an agent sends (docs/architecture.md#ui-channel):
// receipts carry at most a few thousand characters of any one string to the UI (the journal keeps
// less still), and a snapshot sends the receipts that do not fit in its frame as backfill events.
import type { ReceiptEntry, UiSnapshot } from '../../../protocol/index.js';

/** Longest string a receipt carries to the UI; longer ones are cut and say how much was left out. */
export const MAX_UI_STRING = 2000;
/** Bytes of receipts a snapshot frame carries; the older ones follow in backfill frames of this size. */
export const SNAPSHOT_RECEIPT_BYTES = 128 * 1024;

/** A copy of `value` with every string longer than MAX_UI_STRING cut, saying how many characters were left out. */
function cut<T>(value: T, depth = 0): T {
  if (typeof value === 'string')
    return (value.length > MAX_UI_STRING ? `${value.slice(0, MAX_UI_STRING)}…(+${value.length - MAX_UI_STRING} characters)` : value) as T;
  if (value === null || typeof value !== 'object' || depth > 12) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => cut(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = cut(v, depth + 1);
  return out as T;
}

/** A receipt as the UI keeps and shows it: the same entry, its long strings cut. */
export function receiptForUi(entry: ReceiptEntry): ReceiptEntry {
  return cut(entry);
}

/**
 * A snapshot as frames: the snapshot with the newest receipts that fit in SNAPSHOT_RECEIPT_BYTES,
 * then the older ones as backfill chunks, newest chunk first, each of about that size.
 */
export function snapshotFrames(data: UiSnapshot): { snapshot: UiSnapshot; backfill: ReceiptEntry[][] } {
  const chunks: ReceiptEntry[][] = [];
  let chunk: ReceiptEntry[] = [];
  let bytes = 0;
  for (let i = data.receipts.length - 1; i >= 0; i--) {
    const entry = data.receipts[i] as ReceiptEntry;
    const size = JSON.stringify(entry).length;
    if (chunk.length > 0 && bytes + size > SNAPSHOT_RECEIPT_BYTES) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.unshift(entry);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  const [newest = [], ...older] = chunks;
  return { snapshot: { ...data, receipts: newest }, backfill: older };
}
