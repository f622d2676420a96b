import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { ReceiptEntry } from '../../../protocol/index.js';
import { selectReceiptFilters, selectReceipts, selectSelectedReceipt } from '../../store/selectors.js';
import { filterReceipts, type ReceiptFilters } from '../../store/slices.js';
import { appStore, useApp } from '../../store/useApp.js';
import { clock } from '../shell/time.js';
import { ReceiptPicture } from './ReceiptPicture.js';
import { ReceiptScreenFields, ReceiptScreenLine } from './ReceiptScreen.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { escapedJson } from '../../store/untrustedText.js';
import { escapeHiddenPlain } from '../../../protocol/index.js';

const ROW_HEIGHT = 30;
/** A row is one line: its summary shows this much, the detail panel all of it. */
const SUMMARY_LIMIT = 200;
/** A screen input's row has a second line: where it landed and on what. */
const SCREEN_ROW_HEIGHT = 48;

/** Every tool call as the journal recorded it, newest first, with filters, details and JSONL export. */
export function ReceiptsTimeline() {
  const receipts = useApp(selectReceipts);
  const filters = useApp(selectReceiptFilters);
  const selectedSeq = useApp(selectSelectedReceipt);
  const shown = useMemo(() => filterReceipts(receipts, filters).reverse(), [receipts, filters]);
  const selected = selectedSeq === undefined ? undefined : receipts.find((r) => r.seq === selectedSeq);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (shown[i]?.receipt?.screen !== undefined ? SCREEN_ROW_HEIGHT : ROW_HEIGHT),
    overscan: 15,
  });

  return (
    <div className="receipts-view">
      <div className="tree-head">
        <h2 id="receipts-heading">Receipts</h2>
        <span className="muted small" data-testid="receipts-count">
          {shown.length} of {receipts.length}
        </span>
        <Filters receipts={receipts} filters={filters} />
        <button type="button" data-testid="receipts-export" disabled={shown.length === 0} onClick={() => exportJsonl(shown.slice().reverse())}>
          Export JSONL
        </button>
      </div>
      <div className="receipts-split">
        <div ref={scrollRef} className="receipts-scroll" role="list" aria-labelledby="receipts-heading" data-testid="receipts-list">
          <div className="tree-inner" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const r = shown[item.index] as ReceiptEntry;
              return (
                <div key={r.seq} role="listitem" className="receipt-item" style={{ transform: `translateY(${item.start}px)`, height: item.size }}>
                  <button
                    type="button"
                    className={`receipt-row outcome-${r.outcome}${r.receipt?.screen !== undefined ? ' two-line' : ''}${r.seq === selectedSeq ? ' selected' : ''}`}
                    data-testid="receipt-row"
                    aria-pressed={r.seq === selectedSeq}
                    onClick={() => appStore.getState().selectReceipt(r.seq === selectedSeq ? undefined : r.seq)}
                  >
                    <span className="r-time">{clock(r.at)}</span>
                    <span className="r-agent">
                      <UntrustedText text={r.agent} expandable={false} />
                    </span>
                    <span className="r-tool">
                      <UntrustedText text={r.tool} expandable={false} />
                    </span>
                    <span className={`r-outcome tag outcome-${r.outcome}`}>{r.outcome}</span>
                    <span className="r-extra muted small">
                      {[r.decision, r.verification, r.path, `${Math.round(r.duration_ms)} ms`].filter((x) => x !== undefined).join(' · ')}
                    </span>
                    <span className="r-summary">
                      <UntrustedText text={r.summary} limit={SUMMARY_LIMIT} expandable={false} />
                    </span>
                    <ReceiptScreenLine entry={r} />
                  </button>
                </div>
              );
            })}
          </div>
          {shown.length === 0 && <p className="muted tree-empty">No receipts{Object.keys(filters).length > 0 ? ' match the filters' : ' yet'}.</p>}
        </div>
        <section className="detail" aria-label="Receipt details" data-testid="receipt-detail">
          {selected === undefined ? (
            <p className="muted">Select a receipt to see it whole.</p>
          ) : (
            <>
              <ReceiptScreenFields entry={selected} />
              <ReceiptPicture entry={selected} />
              <pre className="json" data-testid="receipt-json">
                {escapedJson(selected)}
              </pre>
            </>
          )}
        </section>
      </div>
    </div>
  );
}

function Filters({ receipts, filters }: { receipts: readonly ReceiptEntry[]; filters: ReceiptFilters }) {
  const options = useMemo(() => {
    const of = (k: keyof ReceiptFilters) => [...new Set(receipts.map((r) => r[k]))].sort();
    return { agent: of('agent'), tool: of('tool'), outcome: of('outcome') };
  }, [receipts]);
  return (
    <div className="filters" role="group" aria-label="Filter receipts">
      {(['agent', 'tool', 'outcome'] as const).map((k) => (
        <label key={k}>
          {k[0]?.toUpperCase()}
          {k.slice(1)}{' '}
          <select data-testid={`receipts-filter-${k}`} value={filters[k] ?? ''} onChange={(e) => appStore.getState().setReceiptFilter(k, e.target.value)}>
            <option value="">any</option>
            {options[k].map((v) => (
              <option key={v} value={v}>
                {escapeHiddenPlain(v)}
              </option>
            ))}
          </select>
        </label>
      ))}
    </div>
  );
}

/** Downloads the entries as JSON Lines through a Blob URL. */
function exportJsonl(entries: readonly ReceiptEntry[]): void {
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
