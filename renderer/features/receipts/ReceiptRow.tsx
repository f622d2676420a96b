import type { ReceiptRow as Row } from '../../model/receiptRows.js';
import { decisionLabel } from '../../model/receiptRows.js';
import { actLine, reasonOf, resultWords } from '../../model/receiptWords.js';
import { appStore } from '../../store/useApp.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ReceiptScreenLine } from './ReceiptScreen.js';

/** A row is two lines: this much of the act and of the reason shows; the details show all of it. */
const ACT_LIMIT = 160;
const REASON_LIMIT = 200;

/** One action in the timeline: when, its decision, outcome and duration, who; then what it did (its text) and why it did not run. */
export function ReceiptRow({ row, selected, height }: { row: Row; selected: boolean; height: number }) {
  const decision = decisionLabel(row);
  const reason = reasonOf(row);
  const screen = row.last.receipt?.screen !== undefined ? row.last : undefined;
  return (
    <button
      type="button"
      className={`receipt-row outcome-${row.outcome}${selected ? ' selected' : ''}`}
      data-testid="receipt-row"
      data-key={row.key}
      data-kind={row.receipt !== undefined ? 'act' : 'call'}
      data-decision={row.kind ?? ''}
      data-records={row.records.length}
      aria-expanded={selected}
      aria-controls={selected ? `receipt-detail-${row.seq}` : undefined}
      style={{ height }}
      onClick={() => appStore.getState().selectReceipt(selected ? undefined : row.seq)}
    >
      <span className="r-line">
        <span className="r-time">{new Date(row.startMs).toLocaleTimeString()}</span>
        {decision !== undefined && (
          <span className={`tag r-decision decision-${row.kind ?? ''}`} data-testid="receipt-decision">
            {decision}
          </span>
        )}
        <span className={`r-outcome tag outcome-${row.outcome}`} data-testid="receipt-outcome" title={resultWords(row)}>
          {row.outcome}
        </span>
        <span className="r-extra muted small">{`${Math.round(row.durationMs)} ms`}</span>
        <span className="r-agent">
          <UntrustedText text={row.agent} limit={40} expandable={false} />
        </span>
        <span className="r-tool">
          <UntrustedText text={row.tool} limit={40} expandable={false} />
        </span>
        {row.connection !== undefined && (
          <span className="tag r-where" data-testid="receipt-where" title={row.connection.where}>
            on {row.connection.name}
          </span>
        )}
      </span>
      <span className="r-line r-what">
        <span className="r-act" data-testid="receipt-act">
          <UntrustedText text={actLine(row)} limit={ACT_LIMIT} expandable={false} />
        </span>
        {reason !== undefined && (
          <span className="r-reason" data-testid="receipt-reason">
            <UntrustedText text={reason} limit={REASON_LIMIT} expandable={false} />
          </span>
        )}
      </span>
      {screen !== undefined && <ReceiptScreenLine entry={screen} />}
    </button>
  );
}
