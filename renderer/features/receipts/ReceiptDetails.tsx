import { useState } from 'react';
import type { ReceiptRow } from '../../model/receiptRows.js';
import { detailFields } from '../../model/receiptWords.js';
import { escapedJson } from '../../model/untrustedText.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ReceiptPicture } from './ReceiptPicture.js';
import { ReceiptScreenFields } from './ReceiptScreen.js';

/** The selected action whole: its fields one a row, where a screen input landed and the screen after it, and its raw records on request. */
export function ReceiptDetails({ row }: { row: ReceiptRow | undefined }) {
  const [raw, setRaw] = useState(false);
  if (row === undefined) return <p className="muted">Select an action to see it whole.</p>;
  const screen = row.records.findLast((r) => r.receipt?.screen !== undefined);
  const picture = row.records.findLast((r) => r.picture === true);
  return (
    <>
      <dl className="receipt-fields" data-testid="receipt-fields">
        {detailFields(row).map(([label, value]) => (
          <div key={label} data-field={label}>
            <dt>{label}</dt>
            <dd>
              <UntrustedText text={value} />
            </dd>
          </div>
        ))}
      </dl>
      {screen !== undefined && <ReceiptScreenFields entry={screen} />}
      {picture !== undefined && <ReceiptPicture entry={picture} />}
      <button type="button" className="r-raw-toggle" data-testid="receipt-raw-toggle" aria-expanded={raw} onClick={() => setRaw(!raw)}>
        {raw ? 'Hide the raw records' : `Show the raw records (${row.records.length})`}
      </button>
      {raw && (
        <pre className="json" data-testid="receipt-json">
          {escapedJson(row.records.length === 1 ? row.records[0] : row.records)}
        </pre>
      )}
    </>
  );
}
