import type { MouseEvent, ReactNode } from 'react';
import { ARM_MS } from '../../model/arming.js';
import { useArmed } from './useArming.js';

interface Props {
  /** The arm key of what this button decides (its card, its confirm step, its held row). */
  armKey: string;
  testId: string;
  className?: string;
  disabled: boolean;
  title?: string;
  ariaExpanded?: boolean;
  /** The button itself is what is measured (a confirm step); otherwise its card or row carries the arm key. */
  measured?: boolean;
  /** What it waits for beyond arming (Approve on a command not yet read to its end): shown disarmed, with no arming fill, saying so. */
  waitsFor?: string | undefined;
  onClick: (e: MouseEvent<HTMLButtonElement>) => void;
  children: ReactNode;
}

/**
 * A button that decides something. While arming it still takes clicks (each refused click says
 * why), shows a fill that grows over the arming time, and carries data-armed="false". Its label
 * never changes width, so arming cannot move anything.
 */
export function ArmedButton({ armKey, testId, className, disabled, title, ariaExpanded, measured, waitsFor, onClick, children }: Props) {
  const { armed: placed, since } = useArmed(armKey);
  const armed = placed && waitsFor === undefined;
  const elapsed = since === undefined ? 0 : Math.min(ARM_MS, Date.now() - since);
  return (
    <button
      type="button"
      className={`armed-button${className !== undefined ? ` ${className}` : ''}${armed ? '' : ' arming'}${waitsFor !== undefined ? ' waiting' : ''}`}
      data-testid={testId}
      data-armed={armed ? 'true' : 'false'}
      data-waits={waitsFor !== undefined ? 'true' : undefined}
      data-arm-key={measured === true ? armKey : undefined}
      disabled={disabled}
      aria-disabled={waitsFor !== undefined ? 'true' : undefined}
      title={waitsFor !== undefined ? `${title ?? ''} — ${waitsFor}`.replace(/^ — /, '') : title}
      aria-expanded={ariaExpanded}
      onClick={onClick}
    >
      {!armed && waitsFor === undefined && since !== undefined && (
        <span key={since} className="arm-fill" aria-hidden="true" style={{ animationDuration: `${ARM_MS}ms`, animationDelay: `-${elapsed}ms` }} />
      )}
      <span className="armed-label">{children}</span>
      {waitsFor !== undefined ? (
        <span className="visually-hidden"> ({waitsFor})</span>
      ) : (
        !armed && <span className="visually-hidden"> (arming: read the card first)</span>
      )}
    </button>
  );
}
