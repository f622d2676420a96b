import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { ReceiptEntry } from '../../../protocol/index.js';
import { anyFilter, filterRows } from '../../model/receiptFilter.js';
import { groupReceipts, type ReceiptRow as Row } from '../../model/receiptRows.js';
import { selectReceiptFilters, selectReceipts, selectSelectedReceipt } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { useNow } from '../shell/time.js';
import { ReceiptDetails } from './ReceiptDetails.js';
import { ReceiptFilters } from './ReceiptFilters.js';
import { ReceiptRow } from './ReceiptRow.js';
import './receipts.css';

/** A row's two lines; a screen input's row has a third: where the input landed and on what. */
const ROW_HEIGHT = 50;
const SCREEN_ROW_HEIGHT = 68;
/** A row's height without its details (a selected row grows by them, measured). */
const rowHeight = (r: Row): number => (r.last.receipt?.screen !== undefined ? SCREEN_ROW_HEIGHT : ROW_HEIGHT);
/** How often "last 5 min", "last hour" and "today" move on. */
const RANGE_TICK_MS = 15_000;

/**
 * Every tool call as the journal recorded it, one row per action (docs/supervision.md#the-receipts-timeline),
 * newest first, with search, time range and decision filters, and JSONL export; a selected row opens
 * below itself to show its details as fields (measured, so the rows after it move down).
 */
export function ReceiptsTimeline() {
  const receipts = useApp(selectReceipts);
  const filters = useApp(selectReceiptFilters);
  const selectedSeq = useApp(selectSelectedReceipt);
  const now = useNow(RANGE_TICK_MS);
  const rows = useMemo(() => groupReceipts(receipts), [receipts]);
  const shown = useMemo(() => filterRows(rows, filters, now).reverse(), [rows, filters, now]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => {
      const r = shown[i];
      return r === undefined ? ROW_HEIGHT : rowHeight(r);
    },
    getItemKey: (i) => shown[i]?.key ?? i,
    overscan: 15,
  });

  return (
    <div className="receipts-view">
      <div className="tree-head">
        <h2 id="receipts-heading">Receipts</h2>
        <span className="muted small" data-testid="receipts-count">
          {shown.length} of {rows.length}
        </span>
        <button type="button" data-testid="receipts-export" disabled={shown.length === 0} onClick={() => exportJsonl(shown.slice().reverse())}>
          Export JSONL
        </button>
      </div>
      <ReceiptFilters rows={rows} filters={filters} />
      <div ref={scrollRef} className="receipts-scroll" role="list" aria-labelledby="receipts-heading" data-testid="receipts-list">
        <div className="tree-inner" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const r = shown[item.index] as Row;
            const open = r.seq === selectedSeq;
            return (
              <div
                key={r.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                role="listitem"
                className={`receipt-item${open ? ' open' : ''}`}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <ReceiptRow row={r} selected={open} height={rowHeight(r)} />
                {open && (
                  <section id={`receipt-detail-${r.seq}`} className="receipt-detail" aria-label="Receipt details" data-testid="receipt-detail">
                    <ReceiptDetails row={r} />
                  </section>
                )}
              </div>
            );
          })}
        </div>
        {shown.length === 0 && <p className="muted tree-empty">No receipts{anyFilter(filters) ? ' match the filters' : ' yet'}.</p>}
      </div>
    </div>
  );
}

/** Downloads the records of the rows as JSON Lines through a Blob URL, oldest first. */
function exportJsonl(rows: readonly Row[]): void {
  const entries: ReceiptEntry[] = rows.flatMap((r) => r.records).sort((a, b) => a.seq - b.seq);
  const blob = new Blob(
    entries.map((e) => `${JSON.stringify(e)}\n`),
    { type: 'application/x-ndjson' },
  );
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `overseer-receipts-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
