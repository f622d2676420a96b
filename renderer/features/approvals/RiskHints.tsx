import { CHARACTER_HINTS, escapeHiddenPlain } from '../../../protocol/index.js';

/**
 * The card's warning (docs/supervision.md#risk-hints): risk words quoted, then what the text hides
 * (hidden characters, a direction override, look-alike letters), which are not words and are not quoted.
 */
export function RiskHints({ hints }: { hints: readonly string[] }) {
  if (hints.length === 0) return null;
  const words = hints.filter((h) => !CHARACTER_HINTS.includes(h)).map((h) => `“${escapeHiddenPlain(h)}”`);
  const chars = hints.filter((h) => CHARACTER_HINTS.includes(h)).map((h) => h.toLowerCase());
  return (
    <p className="risk" role="note" data-testid="risk-hints">
      ⚠ Check carefully: {[...words, ...chars].join(', ')}
    </p>
  );
}
