import type { KeyboardEvent } from 'react';

interface Props {
  /** The field's accessible name (what the person is asked). */
  label: string;
  placeholder: string;
  testId: string;
  value: string;
  onChange: (value: string) => void;
  /** Enter (without Shift): the form's confirm. */
  onEnter: () => void;
  /** Escape: the form's cancel. */
  onEscape: () => void;
  maxLength?: number;
}

/**
 * What the person tells the agent (a deny reason, a decline note): a field as wide as the card and
 * several lines tall, wrapping, so that all of what the agent will be told can be read while it is
 * typed (docs/supervision.md#cards-that-fit). Enter confirms, Shift+Enter breaks the line, Escape cancels.
 */
export function ReasonField({ label, placeholder, testId, value, onChange, onEnter, onEscape, maxLength = 2000 }: Props) {
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      onEnter();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      onEscape();
    }
  };
  return (
    <label className="reason-field">
      <span className="small muted">{label}</span>
      <textarea
        data-testid={testId}
        placeholder={placeholder}
        maxLength={maxLength}
        autoFocus
        data-autofocus=""
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        onClick={(e) => e.stopPropagation()}
      />
    </label>
  );
}
