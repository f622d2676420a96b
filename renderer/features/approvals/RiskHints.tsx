import { CHARACTER_HINTS, RULE_SCOPE_HINT, SELECTION_HINT, SHELL_HINTS, escapeHiddenPlain } from '../../../protocol/index.js';

/** Hints that are not words a text contains: shown unquoted. */
const UNQUOTED = [...CHARACTER_HINTS, ...SHELL_HINTS, SELECTION_HINT, RULE_SCOPE_HINT];

/**
 * The card's warning (docs/supervision.md#risk-hints): risk words quoted, then what a command's shell
 * would do and what the text hides (hidden characters, a direction override, look-alike letters),
 * which are not words and are not quoted.
 */
export function RiskHints({ hints }: { hints: readonly string[] }) {
  if (hints.length === 0) return null;
  const words = hints.filter((h) => !UNQUOTED.includes(h)).map((h) => `“${escapeHiddenPlain(h)}”`);
  const chars = hints.filter((h) => UNQUOTED.includes(h)).map((h) => h.toLowerCase());
  return (
    <p className="risk" role="note" data-testid="risk-hints">
      ⚠ Check carefully: {[...words, ...chars].join(', ')}
    </p>
  );
}
