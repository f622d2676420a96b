// The receipts timeline's filters: by agent, tool and outcome, by who decided, a time range, and a
// search over what a person reads in the row (so a masked password is never found by its text).
import type { ReceiptRow } from './receiptRows.js';
import { searchText } from './receiptWords.js';

/** Who decided, or what became of it, as the decision filter offers it. */
export const DECISION_FILTERS = {
  person: 'approved by person',
  rule: 'approved by rule',
  automatic: 'automatic',
  denied: 'denied',
  refused: 'refused',
  failed: 'failed',
} as const;
export type DecisionFilter = keyof typeof DECISION_FILTERS;

/** The time ranges offered; `custom` uses `from` and `to`. */
export const TIME_RANGES = { all: 'all time', '5m': 'last 5 min', '1h': 'last hour', today: 'today', custom: 'from – to' } as const;
export type TimeRange = keyof typeof TIME_RANGES;

/** Filters of the receipts timeline; absent = any. `from` and `to` are local times as a datetime-local field gives them. */
export interface ReceiptFilters {
  agent?: string;
  tool?: string;
  outcome?: string;
  decision?: string;
  search?: string;
  range?: string;
  from?: string;
  to?: string;
}

/** Whether a row is of a decision filter: approvals by who decided, denials by anyone, refusals and failures by their outcome. */
export function matchesDecision(row: ReceiptRow, f: string): boolean {
  switch (f) {
    case 'person':
    case 'rule':
    case 'automatic':
    case 'denied':
      return row.kind === f;
    case 'refused':
      return row.outcome === 'refused' && row.kind !== 'denied';
    case 'failed':
      return row.outcome === 'failed' || row.outcome === 'unknown' || row.outcome === 'error';
    default:
      return true;
  }
}

/** Local midnight of the day `now` falls in. */
function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** A datetime-local value as ms, and how long the moment it names lasts (a minute, or a second when it gives seconds). */
function localTime(value: string | undefined): { at: number; span: number } | undefined {
  if (value === undefined || value === '') return undefined;
  // A date-time without an offset is local time (ECMA-262 Date.parse).
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return { at, span: /T\d\d:\d\d:\d\d/.test(value) ? 1000 : 60_000 };
}

/** Whether a row began within the chosen time range; `to` includes the whole minute (or second) it names. */
export function inRange(row: ReceiptRow, f: ReceiptFilters, now: number): boolean {
  const t = row.startMs;
  switch (f.range) {
    case '5m':
      return t >= now - 5 * 60_000;
    case '1h':
      return t >= now - 60 * 60_000;
    case 'today':
      return t >= startOfDay(now);
    case 'custom': {
      const from = localTime(f.from);
      const to = localTime(f.to);
      return (from === undefined || t >= from.at) && (to === undefined || t < to.at + to.span);
    }
    default:
      return true;
  }
}

/** The rows that pass every filter, in their order. */
export function filterRows(rows: readonly ReceiptRow[], f: ReceiptFilters, now: number): ReceiptRow[] {
  const words = (f.search ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  return rows.filter(
    (r) =>
      (f.agent === undefined || r.agent === f.agent) &&
      (f.tool === undefined || r.tool === f.tool) &&
      (f.outcome === undefined || r.outcome === f.outcome) &&
      (f.decision === undefined || matchesDecision(r, f.decision)) &&
      inRange(r, f, now) &&
      (words.length === 0 || words.every((w) => searchText(r).includes(w))),
  );
}

/** Whether any filter is set (the empty list then says "match the filters"). */
export function anyFilter(f: ReceiptFilters): boolean {
  return Object.entries(f).some(([k, v]) => v !== undefined && v !== '' && !(k === 'range' && v === 'all'));
}
