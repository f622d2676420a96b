import { useEffect, useState } from 'react';
import type { ReceiptEntry } from '../../../protocol/index.js';
import { ApiError } from '../../api/api.js';
import { useApi } from '../shell/apiContext.js';

/** The screen right after a screen input, as the supervisor kept it (asked for when the receipt is opened). */
export function ReceiptPicture({ entry }: { entry: ReceiptEntry }) {
  const api = useApi();
  const id = entry.picture === true ? entry.receipt_id : undefined;
  const [state, setState] = useState<{ id: string; picture?: string; error?: string } | undefined>(undefined);
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
  return (
    <figure className="receipt-picture">
      <img src={state.picture} alt="The screen right after this input" data-testid="receipt-picture" />
      <figcaption className="muted small">The screen right after this input.</figcaption>
    </figure>
  );
}
