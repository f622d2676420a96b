import type { Element } from '../../../protocol/index.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** An element as a card names it: its role, its name (the agent's and the application's words, untrusted) and its automation id. */
export function TargetLabel({ target: t }: { target: Element }) {
  return (
    <>
      <strong>{t.role}</strong>{' '}
      {t.name !== undefined && (
        <>
          “<UntrustedText text={t.name} testId="card-target-name" />”
        </>
      )}{' '}
      {t.automation_id !== undefined && (
        <span className="aid">
          #<UntrustedText text={t.automation_id} />
        </span>
      )}
    </>
  );
}
