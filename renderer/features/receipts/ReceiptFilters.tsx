import { useMemo, useState } from 'react';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import { DECISION_FILTERS, TIME_RANGES, anyFilter, type ReceiptFilters as Filters } from '../../model/receiptFilter.js';
import type { ReceiptRow } from '../../model/receiptRows.js';
import { appStore } from '../../store/useApp.js';

const set = (k: keyof Filters, v: string): void => appStore.getState().setReceiptFilter(k, v);

/**
 * The timeline's search, time range and decision filters, and the agent, tool and outcome filters one
 * click away (they stay open while one is set), so the list keeps its height in a narrow column.
 */
export function ReceiptFilters({ rows, filters }: { rows: readonly ReceiptRow[]; filters: Filters }) {
  const options = useMemo(() => {
    const of = (k: 'agent' | 'tool' | 'outcome') => [...new Set(rows.map((r) => r[k]))].sort();
    return { agent: of('agent'), tool: of('tool'), outcome: of('outcome') };
  }, [rows]);
  const narrowing = (['agent', 'tool', 'outcome'] as const).filter((k) => filters[k] !== undefined).length;
  const [more, setMore] = useState(narrowing > 0);
  return (
    <div className="filters" role="group" aria-label="Filter receipts">
      <label className="r-search">
        Search{' '}
        <input
          type="search"
          data-testid="receipts-search"
          placeholder="tool, agent, element, text, reason"
          value={filters.search ?? ''}
          onChange={(e) => set('search', e.target.value)}
        />
      </label>
      <label>
        Decision{' '}
        <select data-testid="receipts-filter-decision" value={filters.decision ?? ''} onChange={(e) => set('decision', e.target.value)}>
          <option value="">any</option>
          {Object.entries(DECISION_FILTERS).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Time{' '}
        <select data-testid="receipts-filter-range" value={filters.range ?? 'all'} onChange={(e) => set('range', e.target.value)}>
          {Object.entries(TIME_RANGES).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {filters.range === 'custom' && (
        <>
          <label>
            From <input type="datetime-local" step={1} data-testid="receipts-from" value={filters.from ?? ''} onChange={(e) => set('from', e.target.value)} />
          </label>
          <label>
            To <input type="datetime-local" step={1} data-testid="receipts-to" value={filters.to ?? ''} onChange={(e) => set('to', e.target.value)} />
          </label>
        </>
      )}
      <button type="button" data-testid="receipts-more" aria-expanded={more || narrowing > 0} disabled={narrowing > 0} onClick={() => setMore(!more)}>
        {more || narrowing > 0 ? 'Fewer filters' : 'Agent, tool, outcome…'}
        {narrowing > 0 ? ` (${narrowing} set)` : ''}
      </button>
      {(more || narrowing > 0) &&
        (['agent', 'tool', 'outcome'] as const).map((k) => (
          <label key={k}>
            {k[0]?.toUpperCase()}
            {k.slice(1)}{' '}
            <select data-testid={`receipts-filter-${k}`} value={filters[k] ?? ''} onChange={(e) => set(k, e.target.value)}>
              <option value="">any</option>
              {options[k].map((v) => (
                <option key={v} value={v}>
                  {escapeHiddenPlain(v)}
                </option>
              ))}
            </select>
          </label>
        ))}
      <button type="button" data-testid="receipts-clear" disabled={!anyFilter(filters)} onClick={() => appStore.getState().clearReceiptFilters()}>
        Clear filters
      </button>
    </div>
  );
}
