import type { ReceiptEntry } from '../../../protocol/index.js';
import { inputVerb, pointElementLine, receiptScreenLine, windowLine } from '../../model/screenDescribe.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { escapeHiddenPlain } from '../../../protocol/index.js';

/** A screen input's receipt in the timeline row: what it did, where it landed and on what, in one line. */
export function ReceiptScreenLine({ entry }: { entry: ReceiptEntry }) {
  const r = entry.receipt;
  if (r?.screen === undefined) return null;
  const line = receiptScreenLine(r.action, r.screen);
  return (
    <span className="r-screen small" data-testid="receipt-screen" title={escapeHiddenPlain(line)}>
      <UntrustedText text={line} limit={200} expandable={false} />
    </span>
  );
}

/** A screen input's receipt in the detail panel: its fields one a row, above the whole receipt. */
export function ReceiptScreenFields({ entry }: { entry: ReceiptEntry }) {
  const r = entry.receipt;
  const d = r?.screen;
  if (r === undefined || d === undefined) return null;
  const rows: [string, string | undefined][] = [
    ['Input', inputVerb(r.action, d)],
    ['Picture', d.point !== undefined ? `${d.point.x},${d.point.y}${d.screenshot !== undefined ? ` of ${d.screenshot}` : ''}` : undefined],
    ['Screen', d.physical !== undefined ? `${d.physical.x},${d.physical.y}` : undefined],
    ['To', d.to_physical !== undefined ? `${d.to !== undefined ? `${d.to.x},${d.to.y} → ` : ''}screen ${d.to_physical.x},${d.to_physical.y}` : undefined],
    ['Element', d.element !== undefined ? pointElementLine(d.element) : undefined],
    ['Window', d.window !== undefined ? windowLine(d.window) : undefined],
    ['Path', r.path],
  ];
  return (
    <dl className="receipt-screen" data-testid="receipt-screen-detail">
      {rows
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v !== undefined && <UntrustedText text={v} />}</dd>
          </div>
        ))}
    </dl>
  );
}
