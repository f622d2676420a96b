import { useEffect, useState, type KeyboardEvent } from 'react';
import type { ReceiptEntry } from '../../../protocol/index.js';
import { ApiError } from '../../api/api.js';
import { useApi } from '../shell/apiContext.js';
import { PictureViewer } from '../shell/PictureViewer.js';

const ALT = 'The screen right after this input';

/** The screen right after a screen input, as the supervisor kept it (asked for when the receipt is opened). */
export function ReceiptPicture({ entry }: { entry: ReceiptEntry }) {
  const api = useApi();
  const id = entry.picture === true ? entry.receipt_id : undefined;
  const [state, setState] = useState<{ id: string; picture?: string; error?: string } | undefined>(undefined);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (id === undefined) return;
    let current = true;
    api.command('receipt_picture', { receipt_id: id }).then(
      (r) => current && setState({ id, picture: r.picture }),
      (e: unknown) => current && setState({ id, error: e instanceof ApiError ? `${e.info.code}: ${e.info.detail}` : String(e) }),
    );
    return () => {
      current = false;
    };
  }, [api, id]);
  if (id === undefined || state?.id !== id) return null;
  if (state.error !== undefined)
    return (
      <p className="muted small" data-testid="receipt-picture-unavailable">
        No picture: {state.error}
      </p>
    );
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    setOpen(true);
  };
  // A control that opens it full size (docs/supervision.md#card-pictures), by click, Enter or Space.
  return (
    <figure className="receipt-picture">
      <div
        className="zoomable"
        role="button"
        tabIndex={0}
        aria-label="Open the screen right after this input full size"
        title="Open full size (Enter)"
        data-testid="receipt-picture-open"
        onClick={() => setOpen(true)}
        onKeyDown={onKeyDown}
      >
        <img src={state.picture} alt={ALT} data-testid="receipt-picture" />
      </div>
      <figcaption className="muted small">The screen right after this input; click to enlarge.</figcaption>
      {open && (
        <PictureViewer title={ALT} onClose={() => setOpen(false)}>
          <img src={state.picture} alt={ALT} className="viewer-picture" data-testid="receipt-picture-full" />
        </PictureViewer>
      )}
    </figure>
  );
}
