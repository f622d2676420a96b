import { ApiError } from '../../api/api.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** A refused command as the person reads it: its typed code, what went wrong, the finer reason and the hint (docs/supervision.md#where-an-action-lands). */
export interface Failure {
  code: string;
  detail: string;
  reason?: string;
  hint?: string;
}

/** The failure of a command, from the error it rejected with. */
export function failureOf(error: unknown): Failure {
  if (!(error instanceof ApiError)) return { code: 'internal', detail: error instanceof Error ? error.message : String(error) };
  const info = error.info;
  const data = 'data' in info ? info.data : undefined;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const reason = text(data?.reason);
  const hint = text(data?.hint);
  return { code: info.code, detail: info.detail, ...(reason !== undefined ? { reason } : {}), ...(hint !== undefined ? { hint } : {}) };
}

/** One failure in words: `connection_unavailable (host_key_unknown): …`, then the hint on its own line. */
export function FailureWords({ failure: f }: { failure: Failure }) {
  return (
    <>
      <span data-testid="failure-code">
        <code>{f.code}</code>
        {f.reason !== undefined && (
          <>
            {' '}
            (<UntrustedText text={f.reason} limit={80} />)
          </>
        )}
      </span>
      : <UntrustedText text={f.detail} limit={400} />
      {f.hint !== undefined && (
        <div className="failure-hint" data-testid="failure-hint">
          What to do: <UntrustedText text={f.hint} limit={600} />
        </div>
      )}
    </>
  );
}
